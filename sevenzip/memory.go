package sevenzip

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// Decoder memory of one folder. Limits.MaxMemory bounds the whole chain
// (every coder's window, model, buffers, plus the pack readers), so it
// is summed over the folder before any coder is built. The figures are
// what each decoder allocates at most.
const (
	packReaderMem = packBufSize
	lzmaFixedMem  = 8<<10 + 64<<10 // probabilities besides literals, input buffer
	ppmdFixedMem  = 64 << 10       // range coder input
	bcj2Mem       = 48 << 10       // its four bufio readers
	filterMem     = 64 << 10       // BCJ/Delta buffer
	deflateMem    = 256 << 10      // four windows and Huffman tables
	bzip2Mem      = 900_000*4 + 64<<10
	aesMem        = 8 << 10

	// growWindowOver: an LZMA window larger than this is grown with the
	// output when its input cannot explain it (see lzmaGrows).
	growWindowOver = 256 << 10
)

// coderPlan is what newFolderReader decided for one coder before
// building it.
type coderPlan struct {
	grow bool // LZMA/LZMA2: start the window small and grow it with output
}

// planFolder sums the decoder memory of folder fi and fails with
// errs.ErrLimit when it passes MaxMemory; it also decides, per coder,
// whether an LZMA window is allocated up front or grown with output.
func (a *Archive) planFolder(si *streamsInfo, f *folder, inBase, outBase []int) ([]coderPlan, int64, error) {
	plans := make([]coderPlan, len(f.coders))
	total := int64(len(f.packed)) * packReaderMem
	for ci := range f.coders {
		c := &f.coders[ci]
		out := f.unpackSizes[outBase[ci]]
		var m int64
		switch c.method {
		case mLZMA, mLZMA2:
			dict, lit, ok := lzmaShape(c)
			if !ok {
				continue // newCoder reports the bad properties
			}
			w := min(max(dict, 4096), out)
			if w > a.cfg.Limits.MaxDictionary {
				return nil, 0, errs.Limit("7z: LZMA window of %d bytes, above MaxDictionary (%d)", w, a.cfg.Limits.MaxDictionary)
			}
			m = w + lit + lzmaFixedMem
			in := a.inputBound(si, f, inBase, outBase, ci, 0)
			plans[ci].grow = w > growWindowOver && (in < 0 || w > 4*in)
		case mPPMD:
			if len(c.props) == 5 {
				mem := int64(binary.LittleEndian.Uint32(c.props[1:]))
				m = mem + ppmd.Overhead(mem) + ppmdFixedMem
			}
		case mBCJ2:
			m = bcj2Mem
		case mDeflate, mDeflate64:
			m = deflateMem
		case mBZip2:
			m = bzip2Mem
		case mAES:
			m = aesMem
		case mCopy:
		default:
			m = filterMem
		}
		total += m
		if total > a.cfg.Limits.MaxMemory || total < 0 {
			return nil, 0, errs.Limit("7z: the folder's decoders need %d bytes or more, above MaxMemory (%d)", total, a.cfg.Limits.MaxMemory)
		}
	}
	return plans, total, nil
}

// streamBases returns, per coder of f, the index of its first input and
// of its first output stream.
func streamBases(f *folder) (inBase, outBase []int) {
	inBase = make([]int, len(f.coders))
	outBase = make([]int, len(f.coders))
	nIn, nOut := 0, 0
	for i := range f.coders {
		inBase[i], outBase[i] = nIn, nOut
		nIn += f.coders[i].numIn
		nOut += f.coders[i].numOut
	}
	return inBase, outBase
}

// folderMemory returns the decoder memory of folder fi as planFolder
// counts it, or MaxMemory when planFolder refuses the folder.
func (a *Archive) folderMemory(fi int) int64 {
	f := &a.si.folders[fi]
	inBase, outBase := streamBases(f)
	_, total, err := a.planFolder(a.si, f, inBase, outBase)
	if err != nil {
		return a.cfg.Limits.MaxMemory
	}
	return total
}

// litCoderMem is the memory of one LZMA literal coder: 0x300
// probabilities of two bytes and the decoder's stamp of its last reset.
const litCoderMem = 0x300*2 + 4

// lzmaShape returns an LZMA or LZMA2 coder's dictionary size and the
// bytes of its literal probabilities.
func lzmaShape(c *coder) (dict, lit int64, ok bool) {
	if c.method == mLZMA2 {
		if len(c.props) != 1 {
			return 0, 0, false
		}
		d, err := lzma.DictSizeLZMA2(c.props[0])
		if err != nil {
			return 0, 0, false
		}
		return d, litCoderMem << 4, true
	}
	p, err := lzma.DecodeProps(c.props)
	if err != nil {
		return 0, 0, false
	}
	return int64(p.DictSize), litCoderMem << uint(p.LC+p.LP), true
}

// inputBound returns an upper bound, known from the archive itself, of
// the bytes coder ci reads on input j: a pack stream's size, carried
// through coders that do not expand their input (Copy, AES, filters);
// -1 when the input comes from a decompressor, whose output size is
// only what the header declares.
func (a *Archive) inputBound(si *streamsInfo, f *folder, inBase, outBase []int, ci, j int) int64 {
	for depth := 0; depth <= len(f.coders); depth++ {
		in := inBase[ci] + j
		src := -1
		for _, bp := range f.bindPairs {
			if bp.in == in {
				src = bp.out
				break
			}
		}
		if src < 0 {
			for k, p := range f.packed {
				if p == in {
					return si.packSizes[f.firstPack+k]
				}
			}
			return -1
		}
		next := -1
		for i := range f.coders {
			if src >= outBase[i] && src < outBase[i]+f.coders[i].numOut {
				next = i
			}
		}
		if next < 0 {
			return -1
		}
		switch f.coders[next].method {
		case mLZMA, mLZMA2, mPPMD, mBCJ2, mDeflate, mDeflate64, mBZip2:
			return -1
		}
		ci, j = next, 0 // Copy, AES, a filter: as large as its input
	}
	return -1
}

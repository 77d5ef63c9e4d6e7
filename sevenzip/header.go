package sevenzip

import (
	"unsafe"

	"github.com/go-unarc/unarc/internal/errs"
)

// Property IDs of the 7z header (DOC/7zFormat.txt, "Property IDs").
const (
	idEnd = iota
	idHeader
	idArchiveProperties
	idAdditionalStreamsInfo
	idMainStreamsInfo
	idFilesInfo
	idPackInfo
	idUnpackInfo
	idSubStreamsInfo
	idSize
	idCRC
	idFolder
	idCodersUnpackSize
	idNumUnpackStream
	idEmptyStream
	idEmptyFile
	idAnti
	idName
	idCTime
	idATime
	idMTime
	idWinAttributes
	idComment
	idEncodedHeader
	idStartPos
	idDummy
)

// Bounds on the coder graph of one folder. 7-Zip itself allows 64 coders
// and 64 streams; real archives use at most 8 coders (BCJ2, 3 LZMA and,
// encrypted, a 7zAES under each of its 4 inputs).
const (
	maxCoders  = 64
	maxStreams = 64
)

// coder is one step of a folder's decoding pipeline.
type coder struct {
	method uint64 // method ID bytes, big-endian
	numIn  int    // packed-side streams (decoder inputs)
	numOut int    // unpacked-side streams (decoder outputs)
	props  []byte
}

// bindPair feeds coder input stream in from coder output stream out
// (indices over the folder's concatenated streams).
type bindPair struct{ in, out int }

// folder is one independently decodable unit ("block"): a coder graph
// over one or more pack streams producing one unpacked stream that holds
// the contents of one or more files back to back.
type folder struct {
	coders      []coder
	bindPairs   []bindPair
	packed      []int   // input stream fed by the folder's k-th pack stream
	unpackSizes []int64 // per output stream
	hasCRC      bool
	crc         uint32
	firstPack   int // index of its first pack stream
	mainOut     int // the output stream not bound: the folder's data
	numSub      int // files (substreams) stored in it
}

func (f *folder) size() int64 { return f.unpackSizes[f.mainOut] }

// encrypted reports whether one of the folder's coders is 7zAES.
func (f *folder) encrypted() bool {
	for i := range f.coders {
		if f.coders[i].method == mAES {
			return true
		}
	}
	return false
}

// streamsInfo is PackInfo + UnpackInfo + SubStreamsInfo.
type streamsInfo struct {
	packPos   int64
	packSizes []int64
	packOff   []int64 // offset of each pack stream from packPos
	folders   []folder
	subSizes  []int64 // per substream, in folder order
	subHasCRC []bool
	subCRC    []uint32
}

func (r *hreader) expect(id uint64, what string) {
	if got := r.number(); r.err == nil && got != id {
		r.fail("expected %s (0x%02x), found 0x%02x", what, id, got)
	}
}

// readStreamsInfo parses a StreamsInfo block up to its kEnd.
func (r *hreader) readStreamsInfo() *streamsInfo {
	si := new(streamsInfo)
	sawUnpack, sawSub := false, false
	for r.err == nil {
		switch id := r.number(); id {
		case idEnd:
			if !sawSub {
				si.defaultSubStreams(r)
			}
			return si
		case idPackInfo:
			r.readPackInfo(si)
		case idUnpackInfo:
			r.readUnpackInfo(si)
			sawUnpack = true
		case idSubStreamsInfo:
			if !sawUnpack {
				r.fail("SubStreamsInfo before UnpackInfo")
				return nil
			}
			r.readSubStreams(si)
			sawSub = true
		default:
			r.fail("unexpected property 0x%02x in StreamsInfo", id)
		}
	}
	return nil
}

func (r *hreader) readPackInfo(si *streamsInfo) {
	si.packPos = r.size()
	n := r.count("pack stream", 1)
	for r.err == nil {
		switch id := r.number(); id {
		case idEnd:
			if si.packSizes == nil && n > 0 {
				r.fail("PackInfo without sizes")
			}
			return
		case idSize:
			if si.packSizes != nil || !r.alloc(int64(n)*16, "pack stream sizes") {
				r.fail("PackInfo with two size lists")
				return
			}
			si.packSizes = make([]int64, n)
			si.packOff = make([]int64, n)
			var off int64
			for i := range si.packSizes {
				s := r.size()
				si.packSizes[i] = s
				si.packOff[i] = off
				off += s
				if off > 1<<62 {
					r.fail("pack sizes overflow")
				}
			}
		case idCRC:
			def := r.optBits(n)
			for _, d := range def {
				if d {
					r.uint32() // pack stream CRCs: 7-Zip never writes them
				}
			}
		default:
			r.skip(r.number())
		}
	}
}

func (r *hreader) readUnpackInfo(si *streamsInfo) {
	r.expect(idFolder, "kFolder")
	n := r.count("folder", 2)
	if r.byte() != 0 && r.err == nil {
		r.err = errs.Unsupported("7z: external folder definitions")
		return
	}
	if si.folders != nil || !r.alloc(int64(n)*int64(unsafe.Sizeof(folder{})), "folders") {
		r.fail("two UnpackInfo blocks")
		return
	}
	si.folders = make([]folder, n)
	packIdx := 0
	for i := range si.folders {
		r.readFolder(&si.folders[i])
		si.folders[i].firstPack = packIdx
		packIdx += len(si.folders[i].packed)
	}
	if r.err != nil {
		return
	}
	if packIdx != len(si.packSizes) {
		r.fail("folders use %d pack streams, PackInfo has %d", packIdx, len(si.packSizes))
		return
	}
	r.expect(idCodersUnpackSize, "kCodersUnpackSize")
	for i := range si.folders {
		f := &si.folders[i]
		f.unpackSizes = make([]int64, len(f.unpackSizes))
		for j := range f.unpackSizes {
			f.unpackSizes[j] = r.size()
		}
	}
	for r.err == nil {
		switch id := r.number(); id {
		case idEnd:
			return
		case idCRC:
			def := r.optBits(n)
			for i, d := range def {
				if d {
					si.folders[i].hasCRC = true
					si.folders[i].crc = r.uint32()
				}
			}
		default:
			r.skip(r.number())
		}
	}
}

func (r *hreader) readFolder(f *folder) {
	nc := r.count("coder", 2)
	if nc == 0 || nc > maxCoders {
		r.fail("folder with %d coders", nc)
		return
	}
	if !r.alloc(int64(nc)*(int64(unsafe.Sizeof(coder{}))+64), "coders") {
		return
	}
	f.coders = make([]coder, nc)
	totalIn, totalOut := 0, 0
	for i := range f.coders {
		c := &f.coders[i]
		flag := r.byte()
		if flag&0x80 != 0 {
			r.fail("coder with alternative methods")
			return
		}
		idSize := int(flag & 0x0F)
		if idSize > 8 {
			r.fail("method ID of %d bytes", idSize)
			return
		}
		for _, b := range r.bytes(idSize) {
			c.method = c.method<<8 | uint64(b)
		}
		c.numIn, c.numOut = 1, 1
		if flag&0x10 != 0 {
			c.numIn = int(r.number())
			c.numOut = int(r.number())
			if c.numIn < 1 || c.numIn > maxStreams || c.numOut < 1 || c.numOut > maxStreams {
				r.fail("coder with %d inputs and %d outputs", c.numIn, c.numOut)
				return
			}
		}
		if flag&0x20 != 0 {
			c.props = r.bytes(r.count("property byte", 1))
		}
		totalIn += c.numIn
		totalOut += c.numOut
		if totalIn > maxStreams || totalOut > maxStreams {
			r.fail("folder with too many streams")
			return
		}
	}
	if r.err != nil {
		return
	}
	nb := totalOut - 1
	inBound := make([]bool, totalIn)
	outBound := make([]bool, totalOut)
	f.bindPairs = make([]bindPair, nb)
	for i := range f.bindPairs {
		in, out := r.number(), r.number()
		if r.err != nil {
			return
		}
		if in >= uint64(totalIn) || out >= uint64(totalOut) || inBound[in] || outBound[out] {
			r.fail("bad bind pair %d-%d", in, out)
			return
		}
		inBound[in], outBound[out] = true, true
		f.bindPairs[i] = bindPair{int(in), int(out)}
	}
	np := totalIn - nb
	if np < 1 {
		r.fail("folder without pack streams")
		return
	}
	f.packed = make([]int, np)
	if np == 1 {
		f.packed[0] = -1
		for i, b := range inBound {
			if !b {
				f.packed[0] = i
				break
			}
		}
	} else {
		for i := range f.packed {
			v := r.number()
			if r.err != nil {
				return
			}
			if v >= uint64(totalIn) || inBound[v] {
				r.fail("bad packed stream index %d", v)
				return
			}
			inBound[v] = true
			f.packed[i] = int(v)
		}
	}
	f.mainOut = -1
	for i, b := range outBound {
		if !b {
			f.mainOut = i
		}
	}
	if f.packed[0] < 0 || f.mainOut < 0 {
		r.fail("inconsistent bind pairs")
	}
	f.unpackSizes = make([]int64, totalOut)
}

// defaultSubStreams applies when SubStreamsInfo is absent: one file per
// folder, with the folder's size and CRC.
func (si *streamsInfo) defaultSubStreams(r *hreader) {
	if !r.alloc(int64(len(si.folders))*13, "substreams") {
		return
	}
	si.subSizes = make([]int64, len(si.folders))
	si.subHasCRC = make([]bool, len(si.folders))
	si.subCRC = make([]uint32, len(si.folders))
	for i := range si.folders {
		f := &si.folders[i]
		f.numSub = 1
		si.subSizes[i] = f.size()
		si.subHasCRC[i] = f.hasCRC
		si.subCRC[i] = f.crc
	}
}

func (r *hreader) readSubStreams(si *streamsInfo) {
	for i := range si.folders {
		si.folders[i].numSub = 1
	}
	id := r.number()
	total := len(si.folders)
	if id == idNumUnpackStream {
		total = 0
		for i := range si.folders {
			n := r.number()
			// Every stream past the first of a folder costs a size byte.
			if n > uint64(r.left())+1 {
				r.fail("%d substreams in a folder", n)
				return
			}
			si.folders[i].numSub = int(n)
			total += int(n)
			if total > len(r.b) {
				r.fail("too many substreams")
				return
			}
		}
		id = r.number()
	}
	if r.maxEntries > 0 && int64(total) > r.maxEntries && r.err == nil {
		r.err = errs.Limit("7z: %d substreams (files with data) declared, above MaxEntries (%d)", total, r.maxEntries)
		return
	}
	if !r.alloc(int64(total)*13, "substreams") {
		return
	}
	si.subSizes = make([]int64, 0, total)
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub == 0 {
			continue
		}
		var sum int64
		for j := 1; j < f.numSub; j++ {
			if id != idSize {
				r.fail("folder with %d substreams but no sizes", f.numSub)
				return
			}
			s := r.size()
			sum += s
			if sum > f.size() || r.err != nil {
				r.fail("substream sizes exceed their folder")
				return
			}
			si.subSizes = append(si.subSizes, s)
		}
		si.subSizes = append(si.subSizes, f.size()-sum)
	}
	if id == idSize {
		id = r.number()
	}
	si.subHasCRC = make([]bool, total)
	si.subCRC = make([]uint32, total)
	// Folders holding exactly one file with a folder CRC pass it on.
	nDigests := 0
	k := 0
	for i := range si.folders {
		f := &si.folders[i]
		if f.numSub == 1 && f.hasCRC {
			si.subHasCRC[k], si.subCRC[k] = true, f.crc
		} else {
			nDigests += f.numSub
		}
		k += f.numSub
	}
	for r.err == nil {
		switch id {
		case idEnd:
			return
		case idCRC:
			def := r.optBits(nDigests)
			d, k := 0, 0
			for i := range si.folders {
				f := &si.folders[i]
				if f.numSub == 1 && f.hasCRC {
					k++
					continue
				}
				for j := 0; j < f.numSub && r.err == nil; j, k, d = j+1, k+1, d+1 {
					if def[d] {
						si.subHasCRC[k] = true
						si.subCRC[k] = r.uint32()
					}
				}
			}
		default:
			r.skip(r.number())
		}
		id = r.number()
	}
}

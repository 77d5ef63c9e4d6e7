package sevenzip

import "github.com/go-unarc/unarc/internal/errs"

// Decoder memory of one folder. Limits.MaxMemory bounds the whole chain
// (every coder's window, model, buffers, plus the pack readers), so it
// is summed over the folder before any coder is built. The figures are
// what each decoder allocates at most.
//
// Each method's figure is in its row of the method table (method.go).
const packReaderMem = packBufSize

// coderPlan is what newFolderReader decided for one coder before
// building it.
type coderPlan struct {
	grow bool // LZMA/LZMA2: start the window small and grow it with output
	// in bounds the bytes a single-input coder reads (inputBound), -1
	// when only its output size is known: the stream coders (Zstd)
	// judge the windows their frames declare by it.
	in int64
}

// planFolder sums the decoder memory of folder fi and fails with
// errs.ErrLimit when it passes MaxMemory; it also decides, per coder,
// whether an LZMA window is allocated up front or grown with output.
func (a *Archive) planFolder(si *streamsInfo, f *folder, inBase, outBase []int) ([]coderPlan, int64, error) {
	plans := make([]coderPlan, len(f.coders))
	total := int64(len(f.packed)) * packReaderMem
	for ci := range f.coders {
		m := methodOf(f.coders[ci].method)
		plans[ci].in = -1
		if m != nil && m.role == roleCoder && f.coders[ci].numIn == 1 {
			plans[ci].in = a.inputBound(si, f, inBase, outBase, ci, 0)
		}
		n := int64(filterMem) // what an unknown method would hold; newCoder refuses it
		switch {
		case m == nil:
		case m.memory != nil:
			var err error
			if n, plans[ci].grow, err = m.memory(a, si, f, inBase, outBase, ci); err != nil {
				return nil, 0, err
			}
			if n < 0 {
				continue // open reports the bad properties
			}
		default:
			n = m.mem
		}
		total += n
		if total > a.cfg.Bounds.MaxMemory || total < 0 {
			return nil, 0, errs.Limit("7z: the folder's decoders need %d bytes or more, above MaxMemory (%d)", total, a.cfg.Bounds.MaxMemory)
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
		return a.cfg.Bounds.MaxMemory
	}
	return total
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
		if m := methodOf(f.coders[next].method); m != nil && (m.role == roleCoder || m.role == roleBCJ2) {
			return -1
		}
		ci, j = next, 0 // Copy, AES, a filter: as large as its input
	}
	return -1
}

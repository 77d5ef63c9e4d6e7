package unarc

import (
	"bytes"
	"io"

	"github.com/go-unarc/unarc/internal/volume"
)

// splitVolumes recognises name.001 and opens the numbered parts that
// follow it (internal/volume's rules). It returns nil when name is not
// the first part of such a set, or when name.002 starts with an archive
// signature: then the parts are real volumes (a RAR set named .001,
// .002) that the format reads itself.
//
// open opens a part by name; the parts it opens are closed by the
// returned Concat's Close (or by splitVolumes on error).
func splitVolumes(name string, first io.ReaderAt, firstSize int64, open func(string) (io.ReaderAt, int64, error)) (*volume.Concat, error) {
	return volume.JoinSplit(first, firstSize, name, open, startsWithSignature)
}

// openFirstSplitPart opens part 001 when name is a later part (.002,
// .003, …) of a byte-split set whose first part exists and that is not
// itself an archive volume (a RAR set named .001/.002 is found by the
// format from any of its volumes). ok is false, and nothing is opened,
// otherwise.
func openFirstSplitPart(name string, r io.ReaderAt, open func(string) (io.ReaderAt, int64, error)) (first string, ra io.ReaderAt, size int64, ok bool) {
	prefix, width, part, isPart := volume.SplitPart(name)
	if !isPart || part < 2 || open == nil || startsWithSignature(r) {
		return "", nil, 0, false
	}
	first = volume.SplitName(prefix, width, 1)
	ra, size, err := open(first)
	if err != nil {
		return "", nil, 0, false
	}
	return first, ra, size, true
}

// startsWithSignature reports whether r begins with a registered format's
// signature.
func startsWithSignature(r io.ReaderAt) bool {
	var head [16]byte
	n, _ := r.ReadAt(head[:], 0)
	for _, f := range formats {
		for _, m := range f.Magic {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				return true
			}
		}
	}
	return false
}

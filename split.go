package unarc

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/volume"
)

// splitVolumes recognises name.001 and opens the numbered parts that
// follow it. It returns nil when name is not the first part of such a set,
// or when name.002 starts with an archive signature: then the parts are
// real volumes (a RAR set named .001, .002) that the format reads itself.
//
// open opens a part by name (the caller closes what it opened); a part
// it reports as fs.ErrNotExist ends the set.
func splitVolumes(name string, first io.ReaderAt, firstSize int64, open func(string) (io.ReaderAt, int64, error)) (*volume.Concat, error) {
	dot, ext, part := splitPart(name)
	if part != 1 || open == nil {
		return nil, nil
	}
	c := volume.NewConcat(first, firstSize)
	for n := 2; ; n++ {
		num := strconv.Itoa(n)
		if len(num) < len(ext) {
			num = strings.Repeat("0", len(ext)-len(num)) + num
		}
		f, size, err := open(name[:dot+1] + num)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, err
		}
		if n == 2 && startsWithSignature(f) {
			return nil, nil
		}
		c.Add(f, size)
		if n > 100000 {
			return nil, errs.Limit("more than 100000 split volumes")
		}
	}
	if c.Len() == 1 {
		return nil, nil // a lone .001 is just a file
	}
	return c, nil
}

// splitPart parses a byte-split part name, "name.NNN" with three or more
// digits: the index of the dot, the digits, and the part number (0 when
// name is not one, or the number is 0).
func splitPart(name string) (dot int, ext string, part int) {
	dot = strings.LastIndexByte(name, '.')
	if dot < 0 {
		return -1, "", 0
	}
	ext = name[dot+1:]
	if len(ext) < 3 || strings.Trim(ext, "0123456789") != "" {
		return -1, "", 0
	}
	n, err := strconv.Atoi(ext)
	if err != nil {
		return -1, "", 0
	}
	return dot, ext, n
}

// openFirstSplitPart opens part 001 when name is a later part (.002,
// .003, …) of a byte-split set whose first part exists and that is not
// itself an archive volume (a RAR set named .001/.002 is found by the
// format from any of its volumes). ok is false, and nothing is opened,
// otherwise.
func openFirstSplitPart(name string, r io.ReaderAt, open func(string) (io.ReaderAt, int64, error)) (first string, ra io.ReaderAt, size int64, ok bool) {
	dot, ext, part := splitPart(name)
	if part < 2 || open == nil || startsWithSignature(r) {
		return "", nil, 0, false
	}
	first = name[:dot+1] + strings.Repeat("0", len(ext)-1) + "1"
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

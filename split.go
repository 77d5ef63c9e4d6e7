package unarc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc/internal/volume"
)

// splitVolumes recognises name.001 and opens the numbered parts that
// follow it. It returns nil when name is not the first part of such a set,
// or when name.002 starts with an archive signature: then the parts are
// real volumes (a RAR set named .001, .002) that the format reads itself.
func splitVolumes(name string, first *os.File, firstSize int64) (*volume.Concat, []io.Closer, error) {
	dot := strings.LastIndexByte(name, '.')
	if dot < 0 {
		return nil, nil, nil
	}
	ext := name[dot+1:]
	if len(ext) < 3 || strings.Trim(ext, "0") != "1" || strings.Trim(ext, "0123456789") != "" {
		return nil, nil, nil
	}
	c := volume.NewConcat(first, firstSize)
	var closers []io.Closer
	for n := 2; ; n++ {
		num := strconv.Itoa(n)
		if len(num) < len(ext) {
			num = strings.Repeat("0", len(ext)-len(num)) + num
		}
		f, err := os.Open(name[:dot+1] + num)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, closers, err
		}
		closers = append(closers, f)
		st, err := f.Stat()
		if err != nil {
			return nil, closers, err
		}
		if n == 2 && startsWithSignature(f) {
			return nil, closers, nil
		}
		c.Add(f, st.Size())
		if n > 100000 {
			return nil, closers, fmt.Errorf("%w: too many split volumes", ErrLimit)
		}
	}
	if c.Len() == 1 {
		return nil, closers, nil // a lone .001 is just a file
	}
	return c, closers, nil
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

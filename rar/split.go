package rar

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
)

// joinedAt reads several files as one: a RAR archive cut into pieces by a
// file splitter (name.rar.001, name.rar.002, …), which is not a RAR
// volume set and which unrar reads only once concatenated.
type joinedAt struct {
	parts []io.ReaderAt
	ends  []int64 // cumulative end offsets
}

func (j *joinedAt) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for i, end := range j.ends {
		if off >= end || len(p) == 0 {
			continue
		}
		start := end
		if i > 0 {
			start = j.ends[i-1]
		} else {
			start = 0
		}
		k := int(min(int64(len(p)), end-off))
		m, err := j.parts[i].ReadAt(p[:k], off-start)
		n += m
		if m < k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		p, off = p[k:], off+int64(k)
	}
	if len(p) > 0 {
		return n, io.EOF
	}
	return n, nil
}

// joinSplit returns the concatenation of name's pieces when name ends in
// ".001" and a ".002" exists that is not a RAR volume of its own.
func (p *parser) joinSplit(ra io.ReaderAt, size int64, name string) (io.ReaderAt, int64, []io.Closer, error) {
	if !strings.HasSuffix(name, ".001") || p.cfg.OpenVolume == nil {
		return ra, size, nil, nil
	}
	j := &joinedAt{parts: []io.ReaderAt{ra}, ends: []int64{size}}
	var closers []io.Closer
	base := name[:len(name)-3]
	for k := 2; k < 1000; k++ {
		r, n, err := p.cfg.OpenVolume(fmt.Sprintf("%s%03d", base, k))
		if err != nil {
			break
		}
		if c, ok := r.(io.Closer); ok {
			closers = append(closers, c)
		}
		if k == 2 {
			var m [7]byte
			if _, err := r.ReadAt(m[:], 0); err == nil && string(m[:6]) == string(sig4[:6]) {
				for _, c := range closers {
					c.Close()
				}
				return ra, size, nil, nil // real volumes named .001/.002
			}
		}
		if size+n < size {
			return nil, 0, closers, errs.Limit("split archive too large")
		}
		size += n
		j.parts = append(j.parts, r)
		j.ends = append(j.ends, size)
	}
	if len(j.parts) == 1 {
		return ra, size, nil, nil
	}
	return j, size, closers, nil
}

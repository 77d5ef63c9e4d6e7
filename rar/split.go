package rar

import (
	"fmt"
	"io"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
	splitvol "github.com/go-unarc/unarc/internal/volume"
)

// joinSplit returns the concatenation of name's pieces when name ends in
// ".001" and a ".002" exists that is not a RAR volume of its own.
func (p *parser) joinSplit(ra io.ReaderAt, size int64, name string) (io.ReaderAt, int64, []io.Closer, error) {
	if !strings.HasSuffix(name, ".001") || p.cfg.OpenVolume == nil {
		return ra, size, nil, nil
	}
	j := splitvol.NewConcat(ra, size)
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
		j.Add(r, n)
	}
	if j.Len() == 1 {
		return ra, size, nil, nil
	}
	return j, size, closers, nil
}

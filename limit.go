package unarc

import (
	"io"
	"math"

	"github.com/go-unarc/unarc/internal/pool"

	"github.com/go-unarc/unarc/internal/errs"
)

// ratioFloor is the packed size below which MaxRatio is not applied: tiny
// entries of zeros compress by huge ratios and are harmless.
const ratioFloor = 1 << 20

// limitReader enforces Limits.MaxEntrySize and MaxRatio on an entry's
// decoded bytes, passing WriteTo through so the decoder's window still
// goes straight to the destination. Resetting it allocates nothing.
type limitReader struct {
	r     io.Reader
	c     io.Closer // may be nil
	max   int64     // bytes allowed
	n     int64
	ratio bool
	lw    limitWriter
}

func (l *limitReader) reset(r io.Reader, c io.Closer, e *Entry, lim *Limits) {
	max := lim.MaxEntrySize
	ratio := false
	if lim.MaxRatio > 0 && !math.IsInf(lim.MaxRatio, 1) && e.PackedSize >= ratioFloor {
		if m := int64(float64(e.PackedSize) * lim.MaxRatio); m < max {
			max, ratio = m, true
		}
	}
	*l = limitReader{r: r, c: c, max: max, ratio: ratio}
	l.lw.l = l
}

func newLimitReader(rc io.ReadCloser, e *Entry, lim *Limits) *limitReader {
	l := new(limitReader)
	l.reset(rc, rc, e, lim)
	return l
}

func (l *limitReader) over() error {
	if l.ratio {
		return errs.Limit("entry expands beyond the compression-ratio limit (%d bytes)", l.max)
	}
	return errs.Limit("entry larger than the %d-byte size limit", l.max)
}

func (l *limitReader) Read(p []byte) (int, error) {
	if rem := l.max - l.n; int64(len(p)) > rem+1 {
		p = p[:rem+1]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.max {
		return n, l.over()
	}
	return n, err
}

// limitWriter counts what a decoder's WriteTo hands on.
type limitWriter struct {
	l *limitReader
	w io.Writer
}

func (lw *limitWriter) Write(p []byte) (int, error) {
	l := lw.l
	if l.n+int64(len(p)) > l.max {
		return 0, l.over()
	}
	n, err := lw.w.Write(p)
	l.n += int64(n)
	return n, err
}

// WriteTo copies the rest of the entry to w.
func (l *limitReader) WriteTo(w io.Writer) (int64, error) {
	start := l.n
	l.lw.w = w
	defer func() { l.lw.w = nil }()
	if wt, ok := l.r.(io.WriterTo); ok {
		_, err := wt.WriteTo(&l.lw)
		return l.n - start, err
	}
	_, err := pool.Copy(&l.lw, l.r)
	return l.n - start, err
}

func (l *limitReader) Close() error {
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

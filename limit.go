package unarc

import (
	"io"

	"github.com/go-unarc/unarc/arc"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// limitReader bounds one entry's decoded bytes: by the entry's declared
// size (a decoder producing more is corrupt data and stops one byte
// past it, so nothing downstream grows beyond the declared size), by
// Limits.MaxEntrySize, and through the Archive's or Reader's account by
// MaxTotalSize and, for an entry of unknown size only, MaxRatio. WriteTo passes through, so the decoder's
// window still goes straight to the destination. Resetting it allocates
// nothing.
type limitReader struct {
	r    io.Reader
	c    io.Closer // may be nil
	acct *account  // may be nil
	max  int64     // MaxEntrySize
	size int64     // declared size; -1 unknown
	stop int64     // min(max, size): bytes allowed
	n    int64
	lw   limitWriter
}

func (l *limitReader) reset(r io.Reader, c io.Closer, e *Entry, lim *engine.Limits, acct *account) {
	stop := lim.MaxEntrySize
	size := e.Size
	if size < 0 {
		size = -1
	} else if size < stop {
		stop = size
	}
	*l = limitReader{r: r, c: c, acct: acct, max: lim.MaxEntrySize, size: size, stop: stop}
	l.lw.l = l
}

// over is the error for output past l.stop.
func (l *limitReader) over() error {
	if l.size >= 0 && l.size == l.stop {
		return errs.Corrupt("data runs past the declared size of %d bytes", l.size)
	}
	return errs.Limit("entry larger than MaxEntrySize (%d bytes)", l.max)
}

func (l *limitReader) Read(p []byte) (int, error) {
	// (Written so that a lifted limit, MaxInt64, cannot overflow.)
	if rem := l.stop - l.n; int64(len(p))-1 > rem {
		p = p[:rem+1]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.stop {
		// Hand on nothing past the limit.
		return n - int(l.n-l.stop), l.over()
	}
	if cerr := l.acct.charge(n, l.size >= 0); cerr != nil {
		return n, cerr
	}
	return n, err
}

// limitWriter counts and bounds what a decoder's WriteTo hands on.
type limitWriter struct {
	l *limitReader
	w io.Writer
}

func (lw *limitWriter) Write(p []byte) (int, error) {
	l := lw.l
	var over error
	if rem := l.stop - l.n; int64(len(p)) > rem {
		p, over = p[:rem], l.over()
		if len(p) == 0 {
			return 0, over
		}
	}
	if err := l.acct.charge(len(p), l.size >= 0); err != nil {
		return 0, err
	}
	n, err := lw.w.Write(p)
	l.n += int64(n)
	if err == nil {
		err = over
	}
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

// checkEntryCount holds MaxEntries for an opened archive. Formats check
// the declared count before allocating per entry; this catches any
// that cannot.
func checkEntryCount(a arc.Archive, l *engine.Limits) error {
	if n := int64(len(a.Entries())); n > l.MaxEntries {
		return errs.Limit("%d entries, above MaxEntries (%d)", n, l.MaxEntries)
	}
	return nil
}

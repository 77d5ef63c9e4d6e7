package unarc

import (
	"io"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// account is the output tally of one Open or NewReader: every entry
// reader of that Archive or Reader charges it, so MaxTotalSize and
// MaxRatio hold across entries, solid runs and file copies, whatever the
// format says about packed sizes. Consumed is what really came out of
// the source (counted by countingReaderAt / countingReader below), so a
// small packed size, a solid folder without one, or a copy that reads
// nothing are all measured the same way. Safe for concurrent use: two
// or three atomic operations per charge.
//
// All output counts toward MaxTotalSize; only undeclared output (an
// entry whose size no header gives) counts toward MaxRatio. An entry of
// declared size is held to that size by its limitReader, and the
// declared total was judged before decoding (checkDeclared), so its
// ratio says nothing about a bomb: a 4 GB file of zeros packed into
// 600 KB is honest.
type account struct {
	produced   atomic.Int64
	undeclared atomic.Int64 // the part of produced no header declared
	consumed   atomic.Int64
	// tripped holds the first limit error: the archive is over its
	// budget for good, and later entries fail before decoding anything
	// (a solid prefix skipped to reach them would cost unbounded time).
	tripped  atomic.Pointer[error]
	maxTotal int64
	maxRatio float64 // +Inf when lifted
	floor    int64   // MaxRatio applies once produced passes this
	// parent, for the account of one entry decoded ahead by a parallel
	// Extract: its limits are checked against the parent's committed
	// output plus this entry's, and the entry is charged to the parent
	// (commit) when its turn comes, in entry order.
	parent *account
}

// resetChild makes a an empty account of one entry under parent.
func (a *account) resetChild(parent *account) {
	a.produced.Store(0)
	a.undeclared.Store(0)
	a.tripped.Store(nil)
	a.maxTotal, a.maxRatio, a.floor, a.parent = parent.maxTotal, parent.maxRatio, parent.floor, parent
}

// commit charges the parent with what child a produced, as if it had
// been produced now; a limit the child hit trips the parent too, so no
// later entry is written, as when decoding in order.
func (a *account) commit() error {
	p := a.parent
	und := a.undeclared.Load()
	if t := a.tripped.Load(); t != nil {
		p.produced.Add(a.produced.Load())
		p.undeclared.Add(und)
		return p.trip(*t)
	}
	if err := p.charge64(und, false); err != nil {
		return err
	}
	return p.charge64(a.produced.Load()-und, true)
}

func newAccount(l *engine.Limits) *account {
	return &account{maxTotal: l.MaxTotalSize, maxRatio: l.MaxRatio, floor: l.RatioFloor}
}

// charge records n bytes produced, declared or not (see account). It
// fails with ErrLimit when the archive's output passes MaxTotalSize, or,
// once its undeclared output passes RatioFloor, when that output /
// consumed input passes MaxRatio. A nil account charges nothing.
func (a *account) charge(n int, declared bool) error { return a.charge64(int64(n), declared) }

func (a *account) charge64(n int64, declared bool) error {
	if a == nil || n <= 0 {
		return nil
	}
	p := a.produced.Add(n)
	src := a
	if a.parent != nil {
		src = a.parent
		p += src.produced.Load()
	}
	if p > a.maxTotal || p < 0 {
		return a.trip(errs.Limit("archive output passes MaxTotalSize (%d bytes)", a.maxTotal))
	}
	if declared {
		return nil
	}
	u := a.undeclared.Add(n)
	if a.parent != nil {
		u += src.undeclared.Load()
	}
	if u > a.floor {
		// With a lifted ratio, Inf*0 is NaN and the test is false.
		if c := src.consumed.Load(); float64(u) > a.maxRatio*float64(c) {
			return a.trip(errs.Limit("archive output of undeclared size, %d bytes from %d bytes of input, passes MaxRatio (%g)", u, c, a.maxRatio))
		}
	}
	return nil
}

// spent returns the bytes produced so far (0 for a nil account).
func (a *account) spent() int64 {
	if a == nil {
		return 0
	}
	return a.produced.Load()
}

func (a *account) trip(err error) error {
	a.tripped.CompareAndSwap(nil, &err)
	return err
}

// exhausted returns the limit error once the archive's budget is spent
// (nil before, and for a nil account).
func (a *account) exhausted() error {
	if a == nil {
		return nil
	}
	if p := a.tripped.Load(); p != nil {
		return *p
	}
	return a.parent.exhausted()
}

// countingReaderAt counts the bytes read from an archive's source.
type countingReaderAt struct {
	ra io.ReaderAt
	n  *atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// countingReaderAtCloser keeps a volume's io.Closer visible to the
// format package that closes what it opened.
type countingReaderAtCloser struct {
	countingReaderAt
	io.Closer
}

func countReaderAt(ra io.ReaderAt, n *atomic.Int64) io.ReaderAt {
	if c, ok := ra.(io.Closer); ok {
		return &countingReaderAtCloser{countingReaderAt{ra, n}, c}
	}
	return &countingReaderAt{ra, n}
}

// countVolumes makes cfg's volume opener count what is read from the
// volumes it opens, on the same account.
func countVolumes(cfg *arc.Config, n *atomic.Int64) {
	open := cfg.OpenVolume
	if open == nil {
		return
	}
	cfg.OpenVolume = func(name string) (io.ReaderAt, int64, error) {
		ra, size, err := open(name)
		if err != nil {
			return ra, size, err
		}
		return countReaderAt(ra, n), size, nil
	}
}

// countingReader counts the bytes read from a stream, under the
// Reader's buffer (so it counts what was taken from the source).
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

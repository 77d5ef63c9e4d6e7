package unarc

import (
	"context"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/parallel"
)

// Test decodes entries to their end, verifying each against its stored
// checksum, as Extract would but writing nothing: every entry that has
// data (not directories, hard links, junctions, or symlinks whose target
// the listing holds) and that keep selects (nil: all). Units are decoded
// on up to WithWorkers goroutines, as in Extract.
//
// done(e, err) is called on the calling goroutine for each entry tested,
// in entry order, whatever the number of workers; err is nil when the
// entry decoded and verified (an *EntryError otherwise). done returning
// false stops the test. written, when not nil, is called with the size
// of every chunk decoded, from the decoding goroutines (for a progress
// display). Limits (MaxTotalSize, MaxRatio) apply in entry order as for
// Extract. Test returns ctx.Err() when ctx is cancelled (entries not
// reported by then are not reported), else nil.
func (a *Archive) Test(ctx context.Context, keep func(*Entry) bool, written func(n int64), done func(e *Entry, err error) bool) error {
	ents := a.Entries()
	var p parallel.Plan
	var units []int
	if us, ok := a.a.(arc.Units); ok && a.opts.workers > 1 {
		if u := us.Units(); len(u) == len(ents) {
			units = u
		}
	}
	prompt := a.pw != nil && !a.opts.fixedPassword
	for k, e := range ents {
		if !hasData(e) || keep != nil && !keep(e) {
			continue
		}
		if prompt && e.Encrypted {
			units = nil // the prompt's questions must come in entry order
		}
		p.Items = append(p.Items, k)
		p.Unit = append(p.Unit, k)
	}
	workers := 1
	if units != nil {
		for i, k := range p.Items {
			p.Unit[i] = units[k]
		}
		if nu := p.Units(); nu > 1 {
			workers = a.opts.workers
			defer a.withEntryWorkers(nu)()
		}
	}
	type result struct {
		err  error
		acct account
	}
	res := make([]*result, len(ents))
	work := func(wctx context.Context, k int) {
		r := &result{}
		r.acct.resetChild(a.acct)
		res[k] = r
		rc, err := a.openEntry(ents[k], &r.acct)
		if err != nil {
			r.err = err
			return
		}
		_, r.err = io.Copy(testSink{wctx, written}, rc)
		rc.Close()
	}
	deliver := func(k int) bool {
		r := res[k]
		res[k] = nil
		err := r.err
		if x := a.acct.exhausted(); x != nil {
			// Spent before this entry's turn: in order it would not
			// have been opened.
			err = x
		} else if cerr := r.acct.commit(); err == nil {
			err = cerr
		}
		if err != nil {
			err = entryErr(ents[k].Name, err)
		}
		return done(ents[k], err)
	}
	parallel.Run(ctx, workers, p, work, deliver)
	return ctx.Err()
}

// hasData reports whether reading e decodes anything Test checks.
func hasData(e *Entry) bool {
	return !(e.IsDir() || e.Link == LinkHardlink || e.Link == LinkJunction ||
		(e.Link == LinkSymlink && e.LinkTarget != ""))
}

// testSink discards a tested entry's bytes, counting them for written
// and stopping when the context is cancelled.
type testSink struct {
	ctx     context.Context
	written func(int64)
}

func (w testSink) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	if w.written != nil {
		w.written(int64(len(p)))
	}
	return len(p), nil
}

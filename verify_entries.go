package unarc

import (
	"context"
	"io"

	"github.com/go-unarc/unarc/internal/parallel"
)

// decodeEntries decodes the entries that have data and that keep selects
// (nil: all), as Extract would but writing nothing: units (engine.Units) run
// on up to WithWorkers goroutines, and each entry's reader goes to decode
// on a worker goroutine. done(k, err) is then called on the calling
// goroutine for entry k, in entry order whatever the number of workers;
// err is what opening or decode returned, or the limit (MaxTotalSize,
// MaxRatio) the entry hit when charged in its turn. done returning false
// stops the run. decodeEntries returns ctx.Err() when ctx is cancelled
// (entries not delivered by then are not), else nil. Verify is built on
// it.
func (a *Archive) decodeEntries(ctx context.Context, keep func(*Entry) bool, decode func(wctx context.Context, k int, r io.Reader) error, done func(k int, err error) bool) error {
	ents := a.Entries()
	chosen := func(e *Entry) bool { return hasData(e) && (keep == nil || keep(e)) }
	// One plan for Extract and Verify (parallelPlan); when it says the
	// entries must go in order, each is its own unit on one worker.
	p, par := a.parallelPlan(ents, chosen)
	workers := 1
	if par {
		workers = a.opts.workers
		defer a.withEntryWorkers(&p, p.Units())()
	} else {
		p = parallel.Plan{}
		for k, e := range ents {
			if chosen(e) {
				p.Items = append(p.Items, k)
				p.Unit = append(p.Unit, k)
			}
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
		r.err = decode(wctx, k, rc)
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
		return done(k, err)
	}
	parallel.Run(ctx, workers, p, work, deliver)
	return ctx.Err()
}

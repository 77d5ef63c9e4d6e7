package unarc

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/parallel"
)

// A parallel Extract splits each entry in two. Its data is decoded ahead
// by a worker (one unit of the format — a 7z folder, a RAR solid run, a
// ZIP entry — per worker, in entry order) into a temporary file at the
// top of the destination, charging an account of its own. Everything
// else — the checks, the directories, the overwrite policy and the
// conflict callback, links, the progress callback, the archive's output
// account (MaxTotalSize, MaxRatio), the errors — happens on the calling
// goroutine in entry order, exactly as in the sequential loop, which
// then takes the staged file instead of decoding: the result is the one
// the sequential loop gives. A hard link is made in its turn, after the
// entry it names was placed.

// staged is what a worker made of one entry ahead of its turn.
type staged struct {
	tmp     string  // root-relative temporary file with the data ("" none)
	n       int64   // bytes written to it
	writes  []int32 // the size of each write, for the progress callback (nil without one)
	openErr error   // opening (or, for a symlink, reading) the entry failed
	err     error   // decoding or writing failed after n bytes (tmp removed)
	target  string  // a symlink target read from the data (7z)
	acct    account // the entry's output, charged to the archive's in its turn
}

// parallelPlan returns the plan for extracting ents (positions in ents
// as items) on several workers, or false when the extraction must run
// in order: one worker, a format without units, a single unit, or a
// password prompt that encrypted entries would call (its questions must
// come in entry order).
func (a *Archive) parallelPlan(ents []*Entry, keep func(*Entry) bool) (parallel.Plan, bool) {
	var p parallel.Plan
	us, ok := a.view.(engine.Units)
	if !ok || a.opts.workers <= 1 {
		return p, false
	}
	units := us.Units()
	if len(units) != len(a.a.Entries()) {
		return p, false
	}
	prompt := a.pw != nil && !a.opts.fixedPassword
	for k, e := range ents {
		if keep != nil && !keep(e) {
			continue
		}
		if prompt && e.Encrypted {
			return p, false
		}
		p.Items = append(p.Items, k)
		p.Unit = append(p.Unit, units[e.Index])
	}
	return p, p.Units() > 1
}

// withEntryWorkers tells the format how many goroutines one entry may
// use while the units of p run on the Archive's workers, and returns the
// function that gives it back its default. A format that can share a
// worker budget (engine.SharedWorkers) gets one: its decoders borrow the
// goroutines that p's run leaves idle (p.Idle gives them to the pool),
// so the units still running use every worker to the end. Others get a
// fixed share, workers/units.
func (a *Archive) withEntryWorkers(p *parallel.Plan, units int) func() {
	n := a.opts.workers
	sw, shared := a.view.(engine.SharedWorkers)
	if shared {
		wp := engine.NewWorkerPool(0)
		p.Idle = wp.Release
		sw.SetWorkerPool(wp)
	}
	ew, ok := a.view.(engine.EntryWorkers)
	if ok {
		ew.SetEntryWorkers(max(1, n/max(units, 1)))
	}
	return func() {
		if ok {
			ew.SetEntryWorkers(n)
		}
		if shared {
			sw.SetWorkerPool(nil)
		}
	}
}

// extractParallel is Archive.Extract on a.opts.workers goroutines.
func (a *Archive) extractParallel(ctx context.Context, x *extractor, ents []*Entry, p parallel.Plan) error {
	defer a.withEntryWorkers(&p, p.Units())()
	st := make([]*staged, len(ents))
	var fatal error
	work := func(wctx context.Context, k int) { st[k] = x.stageEntry(wctx, a, ents[k]) }
	deliver := func(k int) bool {
		e := ents[k]
		if err := ctx.Err(); err != nil {
			x.dropStaged(st[k])
			fatal = err
			return false
		}
		x.stage = st[k]
		x.entry(e, func() (io.ReadCloser, error) { return a.OpenEntry(e) })
		x.stage = nil
		x.dropStaged(st[k])
		st[k] = nil
		return !x.aborted && a.acct.exhausted() == nil
	}
	for _, k := range parallel.Run(ctx, a.opts.workers, p, work, deliver) {
		x.dropStaged(st[k])
	}
	if fatal == nil {
		fatal = ctx.Err()
	}
	return x.finish(fatal)
}

// stageEntry decodes e ahead of its turn (on a worker): the data of a
// file into a temporary file, the target of a symlink stored as data.
// Entries that need no decoding, or whose name the sequential checks
// will refuse, are left for their turn (nil).
func (x *extractor) stageEntry(ctx context.Context, a *Archive, e *Entry) *staged {
	rel, err := localName(e.Name)
	if err != nil || rel == "" || x.checkNameLimits(e, rel) != nil {
		return nil
	}
	switch {
	case e.IsDir() && e.Link == LinkNone, e.Link == LinkHardlink:
		return nil
	}
	s := &staged{}
	s.acct.resetChild(a.acct)
	if e.Link == LinkSymlink || e.Link == LinkJunction {
		if e.LinkTarget != "" {
			return nil
		}
		s.target, s.openErr = readLinkTarget(func() (io.ReadCloser, error) { return a.openEntry(e, &s.acct) })
		return s
	}
	rc, err := a.openEntry(e, &s.acct)
	if err != nil {
		s.openErr = err
		return s
	}
	defer rc.Close()
	f, tmp, err := x.createStaged()
	if err != nil {
		s.err = err
		return s
	}
	sw := &stageWriter{ctx: ctx, w: f, s: s, record: x.xo.progress != nil}
	_, err = io.Copy(sw, rc)
	if err == nil {
		err = f.Chmod(x.perm(e, false))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.root.Remove(tmp)
		s.err = fsErr(err)
		return s
	}
	if !e.Modified.IsZero() {
		chtimes(x.root, tmp, e.Modified)
	}
	s.tmp = tmp
	return s
}

// createStaged makes an exclusive temporary file at the top of the
// destination (safe from any goroutine: it uses only the root).
func (x *extractor) createStaged() (*os.File, string, error) {
	for {
		tmp := tempBase()
		f, err := x.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fsErr(err)
		}
		return f, tmp, nil
	}
}

func (x *extractor) dropStaged(s *staged) {
	if s != nil && s.tmp != "" {
		x.root.Remove(s.tmp)
		s.tmp = ""
	}
}

// stageWriter is ctxWriter for a worker: it counts, and records each
// write for the progress callback, which runs later in entry order.
type stageWriter struct {
	ctx    context.Context
	w      io.Writer
	s      *staged
	record bool
}

func (c *stageWriter) Write(p []byte) (int, error) {
	n, err := writeCtx(c.ctx, c.w, p)
	c.s.n += int64(n)
	if c.record && n > 0 {
		c.s.writes = append(c.s.writes, int32(n))
	}
	return n, err
}

// fileStaged is x.file for an entry a worker decoded ahead (s): the
// same decisions in the same order, then the staged file is put in
// place instead of decoding.
func (x *extractor) fileStaged(e *Entry, rel string, s *staged) error {
	dst, replace, err := x.destination(e, rel)
	if err == errSkip {
		return nil
	}
	if err != nil {
		return err
	}
	if s.openErr != nil {
		return s.openErr
	}
	room := s.acct.parent.maxTotal - s.acct.parent.produced.Load()
	cerr := s.acct.commit()
	x.replay(e, s, cerr != nil, room)
	if s.err != nil {
		return s.err
	}
	if cerr != nil {
		return cerr
	}
	tmp, err := x.moveBeside(e, s, dst)
	if err != nil {
		return fsErr(err)
	}
	if err := x.place(tmp, dst, replace); err != nil {
		return err
	}
	x.mine[dst] = madeFile
	x.record(rel, dst)
	if x.xo.progress != nil {
		x.xo.progress(Progress{Entry: e, EntryWritten: s.n, TotalWritten: x.total, Done: true})
	}
	return nil
}

// replay makes the progress calls the sequential copy would have made
// for s's writes; after a limit, those that fitted in room.
func (x *extractor) replay(e *Entry, s *staged, limited bool, room int64) {
	if x.xo.progress == nil {
		x.total += s.n
		return
	}
	var n int64
	for _, w := range s.writes {
		if limited && n+int64(w) > room {
			break
		}
		n += int64(w)
		x.total += int64(w)
		x.xo.progress(Progress{Entry: e, EntryWritten: n, TotalWritten: x.total})
	}
}

// moveBeside moves s's staged file into dst's directory under a
// temporary name (place then renames or links it to dst). A directory
// on another file system gets a copy.
func (x *extractor) moveBeside(e *Entry, s *staged, dst string) (string, error) {
	if dirOf(dst) == "." {
		t := s.tmp
		s.tmp = ""
		return t, nil
	}
	tmp := x.tempLinkName(dst)
	err := x.root.Rename(s.tmp, tmp)
	if err == nil {
		s.tmp = ""
		return tmp, nil
	}
	if !errors.Is(err, syscall.EXDEV) {
		return "", err
	}
	x.root.Chmod(s.tmp, 0o600) // its final mode may deny reading it
	src, err := x.root.Open(s.tmp)
	if err != nil {
		return "", err
	}
	defer src.Close()
	f, tmp, err := x.createTemp(dst)
	if err != nil {
		return "", err
	}
	if err := x.fillTemp(f, tmp, e, f, src); err != nil {
		return "", err
	}
	x.dropStaged(s)
	return tmp, nil
}

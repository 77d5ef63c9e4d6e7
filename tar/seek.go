package tar

import (
	"archive/tar"
	"fmt"
	"io"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Seekable entries (engine.EntrySeeker, engine.Checkpointer).
//
// A plain tar entry (not sparse) is read from any offset directly.
//
// A compressed tarball is one stream: an entry's content is a range of
// the decoded stream, whose start Open noted while listing. A seekable
// reader (OpenAt) of a gzip, bzip2, lzip, .lzma or xz tarball, or of such a
// single compressed file, decodes the stream with a decoder that takes
// a checkpoint of the stream (checkpoint.go) at the first point of every
// Interval bytes of the decoded stream where it can, whatever entry that
// point falls in (or between entries), into the Archive's one cache;
// OpenAt then resumes from the nearest one at or before the entry's
// data offset plus the target, so that opening entry 900 after a pass
// over the stream starts near it, not at the stream's start. The pass of
// the last closed seekable reader is kept, as Open keeps its own, so
// opening entries in stored order through OpenAt (the fs.FS files)
// continues from it when nothing is nearer.
//
// gzip is decoded there by the deflate package (its decoder checkpoints
// between blocks) rather than by klauspost's, which ordinary reading
// keeps. A GNU sparse entry is read through the header reader from its
// header as Open does (start 0): its data offsets are not the content's.

// OpenAt serves engine.EntrySeeker.
func (c *capable) OpenAt(i int, off int64) (io.ReadCloser, int64, error) {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.ents) {
		return nil, 0, fmt.Errorf("tar: no entry %d", i)
	}
	off = max(off, 0)
	if err := a.checkIndexed(i, true); err != nil {
		return nil, 0, err
	}
	if a.kind == kindNone {
		e := a.ents[i]
		if isSparse(e.Sys.(*tar.Header)) || e.Size <= 0 || off == 0 {
			rc, err := a.Open(i)
			return rc, 0, err
		}
		off = min(off, e.Size)
		return &sectionReader{ra: a.ra, pos: a.offs[i] + off, end: a.offs[i] + e.Size}, off, nil
	}
	data, end, ok := a.cpRange(i)
	if !ok {
		rc, err := a.Open(i)
		return rc, 0, err
	}
	if end >= 0 {
		off = min(off, end-data)
	}
	p, err := a.pass(data + off)
	if err != nil {
		return nil, 0, err
	}
	r := &cpReader{a: a, p: p, i: i, data: data, end: end, every: a.cps.Interval()}
	r.next = (p.pos/r.every + 1) * r.every
	p.d.PauseAt(r.next)
	return r, max(p.pos-data, 0), nil
}

// StartAt serves engine.EntrySeeker: where OpenAt(i, off) would start.
func (c *capable) StartAt(i int, off int64) int64 {
	a := (*Archive)(c)
	if i < 0 || i >= len(a.ents) || off <= 0 {
		return 0
	}
	if a.kind == kindNone {
		if e := a.ents[i]; !isSparse(e.Sys.(*tar.Header)) && e.Size > 0 {
			return min(off, e.Size)
		}
		return 0
	}
	data, end, ok := a.cpRange(i)
	if !ok {
		return 0
	}
	if end >= 0 {
		off = min(off, end-data)
	}
	at := int64(0)
	if cp, ok := a.cps.Find(0, data+off); ok {
		at = cp.Out
	}
	a.mu.Lock()
	if p := a.sidle; p != nil && p.pos <= data+off {
		at = max(at, p.pos)
	}
	a.mu.Unlock()
	return max(at-data, 0)
}

// SetCheckpoints serves engine.Checkpointer.
func (c *capable) SetCheckpoints(p engine.CheckpointPolicy) {
	a := (*Archive)(c)
	a.cps.SetPolicy(p)
	a.cps.SetInput(a.cpInput) // restored ones must match the archive's bytes
}

// CheckpointStats serves engine.CheckpointReporter.
func (c *capable) CheckpointStats() engine.CheckpointStats { return c.cps.Stats() }

// cpRange is where entry i's content lies in the decoded stream (end -1:
// at the stream's end), when it is read through checkpoints.
func (a *Archive) cpRange(i int) (data, end int64, ok bool) {
	if cpKindOf(a.kind) == "" || a.cps.Interval() <= 0 {
		return 0, 0, false
	}
	if a.bare {
		return 0, -1, true
	}
	if a.offs[i] < 0 || a.ents[i].Size <= 0 {
		return 0, 0, false
	}
	return a.offs[i], a.offs[i] + a.ents[i].Size, true
}

// spass is a decoding pass over the compressed stream for seekable
// readers, at stream offset pos.
type spass struct {
	d   cpStream // nil once closed
	in  countReader
	g   guard // MaxTotalSize and MaxRatio, counted from where the pass started
	pos int64
	err error // sticky (io.EOF at the stream's end)
}

func (p *spass) close() {
	if p.d != nil {
		p.d.Close()
		p.d = nil
	}
}

// pass returns a pass at or before stream offset target: the kept one,
// or one resumed from the nearest checkpoint if that is nearer, or a new
// one from the stream's start.
func (a *Archive) pass(target int64) (*spass, error) {
	a.mu.Lock()
	idle := a.sidle
	if idle != nil && idle.pos <= target {
		a.sidle = nil
	} else {
		idle = nil
	}
	a.mu.Unlock()
	cp, ok := a.findCP(target)
	if idle != nil {
		if !ok || idle.pos >= cp.Out {
			return idle, nil
		}
		a.park(idle)
	}
	p := new(spass)
	var from *engine.Checkpoint
	if ok {
		from = &cp
	}
	d, err := a.openStream(from, &p.in)
	if err != nil {
		return nil, err
	}
	p.d, p.pos = d, d.Total()
	p.g.reset(d, &p.in, &a.lim)
	return p, nil
}

// park keeps p for the next OpenAt (closing the one kept before), or
// closes it when it failed or the Archive is closed.
func (a *Archive) park(p *spass) {
	if p.err != nil {
		p.close()
		return
	}
	a.mu.Lock()
	old := a.sidle
	if a.closed {
		old = p
	} else {
		a.sidle = p
	}
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// cpReader reads entry i's content, stream offsets [data, end), from a
// pass, taking checkpoints as it goes.
type cpReader struct {
	a         *Archive
	p         *spass // nil once closed
	i         int
	data, end int64
	every     int64 // 0: take no more checkpoints
	next      int64 // the next grid point to take one at
}

func (r *cpReader) Read(b []byte) (int, error) {
	p := r.p
	if p == nil {
		return 0, errClosed
	}
	if p.pos < r.data {
		if err := r.skip(); err != nil {
			return 0, err
		}
	}
	if r.end >= 0 {
		if p.pos >= r.end {
			return 0, io.EOF
		}
		b = b[:min(int64(len(b)), r.end-p.pos)]
	}
	n, err := r.fill(b)
	for n == 0 && err == nil && len(b) > 0 { // a decoder paused where it can checkpoint
		n, err = r.fill(b)
	}
	if err == io.EOF && r.end >= 0 && p.pos < r.end {
		err = errs.Corrupt("tar: the stream ends inside entry %d it listed", r.i)
	}
	return n, err
}

// skip decodes up to the entry's data.
func (r *cpReader) skip() error {
	buf := pool.Get(32 << 10)
	defer pool.Put(buf)
	for r.p.pos < r.data {
		if _, err := r.fill((*buf)[:min(int64(len(*buf)), r.data-r.p.pos)]); err != nil {
			if err == io.EOF {
				err = errs.Corrupt("tar: the stream ends before entry %d it listed", r.i)
			}
			return err
		}
	}
	return nil
}

// fill reads the stream into b and takes a checkpoint when one is due.
func (r *cpReader) fill(b []byte) (int, error) {
	p := r.p
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.g.Read(b)
	p.pos += int64(n)
	if r.every > 0 && p.pos >= r.next && p.d.CanCheckpoint() {
		r.take()
	}
	if err != nil {
		p.err = mapErr(r.a.kind, err)
		err = p.err
	}
	return n, err
}

// take keeps a checkpoint at the decoder's position unless the grid
// cell it falls in has one.
func (r *cpReader) take() {
	d, pos := r.p.d, r.p.pos
	if d.Total() != pos {
		r.every = 0 // output and decoder disagree: take none
		return
	}
	cell := pos / r.every * r.every
	r.next = cell + r.every
	d.PauseAt(r.next)
	cps := &r.a.cps
	if cps.Has(0, cell, cell+r.every) || !cps.Fits(d.CheckpointSize()) {
		return
	}
	state, out, in := d.Checkpoint(make([]byte, 0, d.CheckpointSize()))
	cp := engine.Checkpoint{Kind: cpKindOf(r.a.kind), Out: out, In: in, Entry: -1, State: state}
	if out >= r.data && (r.end < 0 || out < r.end) {
		cp.Entry, cp.EntryOff = r.i, out-r.data
	}
	cps.Add(cp)
}

// Close hands the pass to the Archive for the next OpenAt.
func (r *cpReader) Close() error {
	if p := r.p; p != nil {
		r.p = nil
		r.a.park(p)
	}
	return nil
}

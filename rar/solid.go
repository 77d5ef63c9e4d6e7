package rar

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/crc32x"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// The decoders of a solid Archive (see "Solid archives" on Archive):
// slots, how a reader takes one and positions it in its run.

// maxSolidSlots bounds the decoders one solid Archive keeps.
const maxSolidSlots = 32

// slotOverhead is what a decoder costs beyond its window (tables, input
// and filter buffers), charged against Limits.MaxMemory per slot.
const slotOverhead = 1 << 20

// solidSlot is one decoder of a solid archive and where it stands.
type solidSlot struct {
	dec    unpacker
	run    int          // first entry of the solid run the decoder is in
	next   int          // idle: the entry it is positioned at; -1 none
	holder *entryReader // the reader whose entry it is in, or nil (idle)
	charge int64        // memory counted against Limits.MaxMemory
	used   uint64       // last use, for taking the least recently used
	busy   bool         // its holder is decoding with it, without a.mu
}

// solidState is an Archive's solid decoders.
type solidState struct {
	slots   []*solidSlot
	charged int64
	tick    uint64
	idle    sync.Cond // signalled when a slot stops being busy (L: Archive.mu)
	busy    int       // slots busy now

	// The first entry of run whose decoding failed (failErr != nil).
	failRun, failAt int
	failErr         error
}

// close releases every slot: readers that held one fail on their next
// Read (the Archive is closed), so no decoder is shared with another
// archive through the pool while a reader can still use it.
func (s *solidState) close() {
	for _, sl := range s.slots {
		if sl.holder != nil {
			sl.holder.slot = nil
			sl.holder = nil
		}
		sl.dec.release()
	}
	s.slots, s.charged = nil, 0
}

// runStart returns the first entry of the solid run holding entry i: the
// nearest entry at or before i that has packed data and does not continue
// the previous one.
func (a *Archive) runStart(i int) int {
	run := i
	for a.files[run].solid {
		j := run - 1
		for j >= 0 && (!entryData(a.files[j].e) || a.files[j].method == 0 || a.files[j].copyOf >= 0) {
			j--
		}
		if j < 0 {
			break
		}
		run = j
	}
	return run
}

// acquire picks the slot r will decode with (see "Solid archives").
func (a *Archive) acquire(r *entryReader) (*solidSlot, error) {
	s := &a.solid
	fam := familyOf(r.f.algo)
	var best, free, idle *solidSlot
	for _, sl := range s.slots {
		if sl.holder != nil {
			continue
		}
		if sl.dec.family() == fam && sl.run == r.run && sl.next >= 0 && sl.next <= r.idx && (best == nil || sl.next > best.next) {
			best = sl
		}
		if sl.next < 0 && (free == nil || free.dec.family() != fam) {
			free = sl
		}
		if idle == nil || idle.used > sl.used {
			idle = sl
		}
	}
	if best != nil {
		return best, nil
	}
	if free != nil && free.dec.family() == fam {
		return free, nil
	}
	charge := fam.memory(min(r.f.dict, a.unpacked), a.entryWorkers()) + slotOverhead
	// The kept copy content has its share of MaxMemory; the slots the rest.
	if free == nil && (len(s.slots) == 0 || len(s.slots) < maxSolidSlots && s.charged+charge <= a.limits.mem-a.cacheMax) {
		d, err := newUnpacker(r.f, a.limits.mem)
		if err != nil {
			return nil, err
		}
		sl := &solidSlot{dec: d, next: -1, charge: charge}
		s.slots = append(s.slots, sl)
		s.charged += charge
		return sl, nil
	}
	sl := free
	if sl == nil {
		sl = idle
	}
	if sl == nil {
		// Every slot is held: take the least recently used one that is
		// not decoding now. Its reader will position again when it
		// next reads.
		for _, x := range s.slots {
			if x.holder != r && !x.busy && (sl == nil || x.used < sl.used) {
				sl = x
			}
		}
		if sl == nil {
			return nil, nil // all busy: the caller waits
		}
		sl.holder.slot = nil
		sl.holder = nil
	}
	sl.next = -1
	if sl.dec.family() != fam {
		d, err := newUnpacker(r.f, a.limits.mem)
		if err != nil {
			return nil, err
		}
		sl.dec.release()
		sl.dec = d
	}
	return sl, nil
}

// position makes sl decode r's entry from r.pos on, decoding the entries
// of the run before it (into io.Discard, verified) when needed.
func (a *Archive) position(r *entryReader, sl *solidSlot) error {
	s := &a.solid
	if s.failErr != nil && s.failRun == r.run && s.failAt < r.idx {
		// unrar's rule: after a broken entry the rest of a solid stream
		// cannot be decoded. Failing fast also keeps a hostile archive
		// from making every later Open re-decode the whole run.
		return fmt.Errorf("solid predecessor %s: %w", a.files[s.failAt].e.Name, s.failErr)
	}
	from := r.run
	if sl.next >= 0 && sl.run == r.run && sl.next <= r.idx {
		from = sl.next
	}
	sl.next, sl.run = -1, r.run
	setWorkers(sl.dec, a.entryWorkers(), r.f.dict, a.limits.mem)
	var cr *rarcrypto.Reader
	for j := from; j < r.idx; j++ {
		g := a.files[j]
		if !entryData(g.e) || g.method == 0 || g.copyOf >= 0 {
			continue
		}
		if g.missing != nil {
			return g.missing
		}
		if g.broken != nil {
			return fmt.Errorf("solid predecessor %s: %w", g.e.Name, g.broken)
		}
		if g.split {
			return fmt.Errorf("%w: solid predecessor %s continues in a missing volume", errs.ErrTruncated, g.e.Name)
		}
		if err := a.limits.checkDict(g); err != nil {
			return err
		}
		var pr partsReader
		if cr == nil {
			// One decryptor serves every predecessor in turn.
			cr = cryptReaders.Get()
			defer putCrypt(&cr)
		}
		pr.reset(a.vols, g.parts)
		gsrc, guess, err := a.keys.decrypter(g, &pr, cr)
		if err != nil {
			return fmt.Errorf("solid predecessor: %w", err)
		}
		if err := sl.dec.reset(gsrc, g.algo, g.dict, g.e.Size, j != r.run); err != nil {
			return mapErr(err, guess)
		}
		redecoded.Add(1)
		var v crc32x.Reader
		var mac macCRC
		verifier(&v, &mac, g, sl.dec)
		n, err := v.WriteTo(io.Discard)
		if want := declaredSize(g); err == nil && want >= 0 && n != want {
			err = sizeError(n, g.e.Size)
		}
		if err != nil {
			err = mapErr(err, guess)
			s.failRun, s.failAt, s.failErr = r.run, j, err
			return fmt.Errorf("solid predecessor %s: %w", g.e.Name, err)
		}
	}
	if err := a.chain(r, sl.dec, r.idx != r.run); err != nil {
		return err
	}
	if r.pos > 0 {
		// The reader had its slot taken: skip what it has returned.
		if n, err := io.CopyN(io.Discard, &r.v, r.pos); err != nil {
			if err == io.EOF {
				err = sizeError(n, r.want)
			}
			return err
		}
	}
	sl.holder, r.slot = r, sl
	s.tick++
	sl.used = s.tick
	return nil
}

// readSolid is Read (w == nil) or WriteTo of a solid entry. The Archive's
// lock is held to attach a slot and to settle the result, not while the
// slot decodes: entries of different solid runs decode at the same time,
// each with its own slot, which no other reader takes while it is busy.
func (r *entryReader) readSolid(p []byte, w io.Writer) (int64, error) {
	a := r.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := r.attach(); err != nil {
		return 0, err
	}
	if r.done {
		if w != nil && r.err == io.EOF {
			return 0, nil
		}
		return 0, r.err
	}
	sl := r.slot
	a.solid.setBusy(sl, true)
	a.mu.Unlock()
	var n int64
	var err error
	if w == nil {
		var k int
		k, err = r.v.Read(p)
		n = int64(k)
		if r.teeOK {
			r.tee = append(r.tee, p[:k]...)
		}
	} else {
		if r.teeOK {
			w = teeWriter{r, w}
		}
		n, err = r.v.WriteTo(w)
		if err == nil {
			err = io.EOF
		}
	}
	a.mu.Lock()
	a.solid.setBusy(sl, false)
	r.pos += n
	if err != nil {
		err = r.finish(err)
		if w != nil && err == io.EOF {
			err = nil
		}
	}
	return n, err
}

// solidBusyMax is the most slots ever busy at once (tests).
var solidBusyMax atomic.Int32

func (s *solidState) setBusy(sl *solidSlot, b bool) {
	sl.busy = b
	if b {
		s.busy++
		if int32(s.busy) > solidBusyMax.Load() {
			solidBusyMax.Store(int32(s.busy))
		}
		return
	}
	s.busy--
	if s.idle.L != nil {
		s.idle.Broadcast()
	}
}

// wait waits, with mu (the Archive's lock) held, until a busy slot is
// released.
func (s *solidState) wait(mu *sync.Mutex) {
	if s.idle.L == nil {
		s.idle.L = mu
	}
	s.idle.Wait()
}

// attach gives a solid reader a positioned slot, with a.mu held.
func (r *entryReader) attach() error {
	a := r.a
	if a.closed.Load() {
		return errArchiveClosed
	}
	if r.done || r.slot != nil {
		if r.slot != nil {
			a.solid.tick++
			r.slot.used = a.solid.tick
		}
		return nil
	}
	sl, err := a.acquire(r)
	for sl == nil && err == nil {
		// Every slot is decoding another run's entry: wait for one.
		a.solid.wait(&a.mu)
		if a.closed.Load() {
			return errArchiveClosed
		}
		if r.slot != nil {
			return nil
		}
		sl, err = a.acquire(r)
	}
	if err == nil {
		err = a.position(r, sl)
	}
	if err != nil {
		r.finish(err)
		return r.err
	}
	return nil
}

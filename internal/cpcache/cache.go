// Package cpcache is the bounded cache of decoder checkpoints an Archive
// keeps for its seekable readers (engine.Checkpoint): found by stream and
// output offset, bounded in bytes by the policy's MaxMemory, the least
// recently used dropped first. It is safe for concurrent use.
//
// Checkpoints restored from an index (Restore) are untrusted until
// FindChecked has verified them once: the archive's bytes it was decoded
// from must give its Input (input.go), and decoding from it must give
// its Check, or it is dropped.
package cpcache

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"slices"
	"sync"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// Cache holds checkpoints. The zero value takes none (Interval 0).
type Cache struct {
	mu    sync.Mutex
	pol   engine.CheckpointPolicy
	items []*item
	bytes int64
	tick  uint64
	taken int64
	evict int64

	restored, verified, rejected int64

	input func(engine.Checkpoint) (Input, error) // SetInput
	marks []mark                                 // InputSum's
}

type item struct {
	cp      engine.Checkpoint
	used    uint64
	pending bool // restored, not verified yet
	// A restored item's input (input.go): its Input matched the
	// archive's bytes; the Key and N of its input, asked for once.
	inChecked, inSet, inBad bool
	inKey                   int
	inN                     int64
}

// SetPolicy sets the interval and the memory bound.
func (c *Cache) SetPolicy(p engine.CheckpointPolicy) {
	c.mu.Lock()
	c.pol = p
	c.mu.Unlock()
}

// Interval is the policy's interval (0: take none).
func (c *Cache) Interval() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(c.pol.Interval, 0)
}

// Stats reports what the cache holds.
func (c *Cache) Stats() engine.CheckpointStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return engine.CheckpointStats{Count: len(c.items), Bytes: c.bytes, Taken: c.taken, Evicted: c.evict,
		Restored: c.restored, Verified: c.verified, Rejected: c.rejected}
}

// Find returns the latest checkpoint of stream at or before out, and
// marks it used. Its State must not be modified. It may be one restored
// and not verified yet: use FindChecked to resume from it.
func (c *Cache) Find(stream int, out int64) (engine.Checkpoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := c.find(stream, out)
	if best == nil {
		return engine.Checkpoint{}, false
	}
	return best.cp, true
}

// find is Find with c.mu held.
func (c *Cache) find(stream int, out int64) *item {
	var best *item
	for _, it := range c.items {
		if it.cp.Stream == stream && it.cp.Out <= out && (best == nil || it.cp.Out > best.cp.Out) {
			best = it
		}
	}
	if best != nil {
		c.tick++
		best.used = c.tick
	}
	return best
}

// FindChecked is Find for resuming: a restored checkpoint is first
// passed to check (outside the lock), which reports whether decoding
// from it gives its Check. One that does not is dropped and the next
// latest tried; an error from check (a password that is needed, say)
// is returned and the checkpoint kept unverified.
func (c *Cache) FindChecked(stream int, out int64, check func(engine.Checkpoint) (bool, error)) (engine.Checkpoint, bool, error) {
	for {
		c.mu.Lock()
		it := c.find(stream, out)
		if it == nil {
			c.mu.Unlock()
			return engine.Checkpoint{}, false, nil
		}
		cp, pending, inChecked := it.cp, it.pending, it.inChecked
		c.mu.Unlock()
		if !pending {
			return cp, true, nil
		}
		// The bytes its state came from first (check may keep a
		// decoder at cp for the caller), then those it gives.
		ok := inChecked || c.checkInput(it)
		if ok {
			var err error
			if ok, err = check(cp); err != nil {
				return engine.Checkpoint{}, false, err
			}
		}
		c.mu.Lock()
		if j := slices.Index(c.items, it); j >= 0 && it.pending {
			if ok {
				it.pending = false
				c.verified++
			} else {
				c.remove(j)
				c.rejected++
			}
		}
		c.mu.Unlock()
		if ok {
			return cp, true, nil
		}
	}
}

// remove drops item j (c.mu held).
func (c *Cache) remove(j int) {
	c.bytes -= int64(len(c.items[j].cp.State))
	c.items = append(c.items[:j], c.items[j+1:]...)
}

// Snapshot returns the checkpoints held that were taken or verified (not
// those restored and unchecked), by stream and offset. Their States are
// shared and must not be modified.
func (c *Cache) Snapshot() []engine.Checkpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []engine.Checkpoint
	for _, it := range c.items {
		if !it.pending {
			out = append(out, it.cp)
		}
	}
	slices.SortFunc(out, func(a, b engine.Checkpoint) int {
		if a.Stream != b.Stream {
			return a.Stream - b.Stream
		}
		return int(max(min(a.Out-b.Out, 1), -1))
	})
	return out
}

// Has reports a checkpoint of stream in [lo, hi).
func (c *Cache) Has(stream int, lo, hi int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range c.items {
		if it.cp.Stream == stream && it.cp.Out >= lo && it.cp.Out < hi {
			return true
		}
	}
	return false
}

// Fits reports whether a checkpoint of n bytes may be kept at all.
func (c *Cache) Fits(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(n) <= c.pol.MaxMemory
}

// Add keeps cp, dropping the least recently used checkpoints until the
// total fits MaxMemory; one larger than MaxMemory is not kept.
func (c *Cache) Add(cp engine.Checkpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.add(cp, false) {
		c.taken++
	}
}

// RestoreAll restores each of cps, read from an index, after fit has
// checked it against the archive and set its Entry and EntryOff; it stops
// at the first checkpoint fit refuses (those before it stay). A Cache
// that takes no checkpoints (Interval 0) restores none and checks none.
func (c *Cache) RestoreAll(cps []engine.Checkpoint, fit func(cp *engine.Checkpoint) error) error {
	if c.Interval() <= 0 {
		return nil
	}
	for _, cp := range cps {
		if err := fit(&cp); err != nil {
			return err
		}
		c.Restore(cp)
	}
	return nil
}

// Restore keeps cp, read from an index, as Add does, but unverified:
// FindChecked checks it before it is resumed from. A checkpoint of the
// same stream and offset already held is kept instead.
func (c *Cache) Restore(cp engine.Checkpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, it := range c.items {
		if it.cp.Stream == cp.Stream && it.cp.Out == cp.Out {
			return
		}
	}
	if c.add(cp, true) {
		c.restored++
	}
}

func (c *Cache) add(cp engine.Checkpoint, pending bool) bool {
	n := int64(len(cp.State))
	if n > c.pol.MaxMemory {
		return false
	}
	for c.bytes+n > c.pol.MaxMemory && len(c.items) > 0 {
		old := 0
		for j, it := range c.items {
			if it.used < c.items[old].used {
				old = j
			}
		}
		c.remove(old)
		c.evict++
	}
	c.tick++
	c.items = append(c.items, &item{cp: cp, used: c.tick, pending: pending})
	c.bytes += n
	return true
}

// Clear drops every checkpoint (the Archive is closed).
func (c *Cache) Clear() {
	c.mu.Lock()
	c.items, c.bytes, c.marks = nil, 0, nil
	c.mu.Unlock()
}

// SumHead starts the Check of cp: the CRC-32 (IEEE) of its kind, stream,
// offsets and state, which the CheckLen bytes decoded from it then
// continue (crc32.Update). A checkpoint moved to another offset or
// stream, or with its state altered, no longer matches its Check even
// where the bytes decoded from it would.
func SumHead(cp engine.Checkpoint) uint32 {
	var h [3*8 + 16]byte
	binary.LittleEndian.PutUint64(h[0:], uint64(cp.Stream))
	binary.LittleEndian.PutUint64(h[8:], uint64(cp.Out))
	binary.LittleEndian.PutUint64(h[16:], uint64(cp.In))
	copy(h[24:], cp.Kind)
	sum := crc32.Update(0, crc32.IEEETable, h[:])
	return crc32.Update(sum, crc32.IEEETable, cp.State)
}

// SumFrom is cp's Check as decoding from it gives it: SumHead, then the
// first cp.CheckLen bytes r yields (r resumes the stream at cp). A short
// stream is ErrTruncated naming what; a reader that stops making
// progress is ErrCorrupt.
func SumFrom(cp engine.Checkpoint, r io.Reader, what string) (uint32, error) {
	var buf [16 << 10]byte
	return sumFrom(cp, r, what, buf[:])
}

// SumKeep is SumFrom that also returns the cp.CheckLen bytes it
// decoded, so that a read inside them need not decode them again.
func SumKeep(cp engine.Checkpoint, r io.Reader, what string) (uint32, []byte, error) {
	if cp.CheckLen < 0 || cp.CheckLen > engine.CheckSpan {
		return 0, nil, errs.Corrupt("%s: check span of %d bytes", what, cp.CheckLen)
	}
	buf := make([]byte, cp.CheckLen)
	sum, err := sumFrom(cp, r, what, buf)
	return sum, buf, err
}

// sumFrom is SumFrom decoding into buf in pieces (wrapping around when
// buf is shorter than the span).
func sumFrom(cp engine.Checkpoint, r io.Reader, what string, buf []byte) (uint32, error) {
	sum := SumHead(cp)
	at := 0
	for n := cp.CheckLen; n > 0; {
		if at == len(buf) {
			at = 0
		}
		m, err := r.Read(buf[at:min(int64(len(buf)), int64(at)+n)])
		sum = crc32.Update(sum, crc32.IEEETable, buf[at:at+m])
		n -= int64(m)
		at += m
		if err != nil && n > 0 {
			return 0, errs.EOF(err, what)
		}
		if m == 0 && err == nil {
			return 0, errs.Corrupt("%s: decoder made no progress", what)
		}
	}
	return sum, nil
}

// Export readies checkpoints for an index: each of cps (a Snapshot) whose
// entry size says it belongs to a live entry (size < 0: drop it) gets
// the CheckLen up to CheckSpan bytes that follow it in its entry (none:
// drop it) and the Check that sum, decoding them, gives. cps is reused.
func Export(cps []engine.Checkpoint, size func(engine.Checkpoint) int64, sum func(engine.Checkpoint) (uint32, error)) ([]engine.Checkpoint, error) {
	out := cps[:0]
	for _, cp := range cps {
		n := size(cp)
		if n < 0 {
			continue
		}
		cp.CheckLen = min(engine.CheckSpan, n-cp.Out)
		if cp.CheckLen <= 0 {
			continue
		}
		s, err := sum(cp)
		if err != nil {
			return nil, err
		}
		cp.Check = s
		out = append(out, cp)
	}
	return out, nil
}

// Verify reports whether decoding from restored checkpoint cp gives its
// Check (sum decodes, as for Export): the check FindChecked runs. A
// missing password is returned; any other failure means no.
func Verify(cp engine.Checkpoint, sum func(engine.Checkpoint) (uint32, error)) (bool, error) {
	if cp.CheckLen <= 0 {
		return false, nil
	}
	s, err := sum(cp)
	if err != nil {
		if errors.Is(err, errs.ErrPasswordRequired) {
			return false, err
		}
		return false, nil
	}
	return s == cp.Check, nil
}

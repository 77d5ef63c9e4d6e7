package cpcache

import (
	"io"
	"slices"
	"sync/atomic"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// A checkpoint's state (its window above all) was decoded from every
// byte of its stream's packed input before its input offset, not only
// from the bytes after it that its Check covers: an archive changed
// inside the window, and nowhere after the checkpoint, still gives a
// stale checkpoint its Check, and reads from it return the old bytes.
// So a checkpoint kept in an index carries Input, the BLAKE3 of the
// archive bytes it was decoded from (the format's Input: the stream's
// packed bytes up to the input offset, and a solid run's before it),
// and a restored one is used only once the archive's bytes give that
// digest again (FindChecked, with SetInput). That costs reading those
// bytes, not decoding them, and each byte of an input is read about
// once over the Archive's life: a pass over an input checks every
// restored checkpoint of it that it passes, and leaves a mark (the hash
// state at its end) that the next pass starts from.

// InputRead counts the bytes the input checks read (tests: the reads a
// restored checkpoint costs beside decoding).
var InputRead atomic.Int64

// Span is Len bytes of R from Off: a piece of a stream's packed input as
// the archive holds it.
type Span struct {
	R        io.ReaderAt
	Off, Len int64
}

// Input is what a checkpoint's state was decoded from: the first N bytes
// of Spans joined. Inputs with the same Key must agree on the bytes both
// reach (one input, read to different lengths).
type Input struct {
	Key   int
	Spans []Span
	N     int64
}

// mark is the hash of the first n bytes of input key.
type mark struct {
	key int
	n   int64
	h   *blake3.Hasher
}

// maxMarks bounds the marks a Cache keeps (about 10 KiB each; one per
// input, the furthest point checked).
const maxMarks = 64

// SetInput sets what FindChecked asks of a restored checkpoint before
// it decodes from it: the archive bytes its state was decoded from,
// whose digest must be its Input. Without it (nil) a restored
// checkpoint is checked by its Check only.
func (c *Cache) SetInput(input func(engine.Checkpoint) (Input, error)) {
	c.mu.Lock()
	c.input = input
	c.mu.Unlock()
}

// ExportSealed is the checkpoints of the Cache readied for an index:
// Export of a Snapshot, then SealInputs.
func (c *Cache) ExportSealed(size func(engine.Checkpoint) int64, sum func(engine.Checkpoint) (uint32, error)) ([]engine.Checkpoint, error) {
	cps, err := Export(c.Snapshot(), size, sum)
	if err == nil {
		err = c.SealInputs(cps)
	}
	if err != nil {
		return nil, err
	}
	return cps, nil
}

// SealInputs sets the Input of each of cps (for an index) from the
// archive's bytes, as SetInput's function describes them: one pass per
// input.
func (c *Cache) SealInputs(cps []engine.Checkpoint) error {
	c.mu.Lock()
	input := c.input
	c.mu.Unlock()
	if input == nil {
		return nil
	}
	ins := make([]Input, len(cps))
	order := make([]int, len(cps))
	for k := range cps {
		in, err := input(cps[k])
		if err != nil {
			return err
		}
		ins[k], order[k] = in, k
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if ins[x].Key != ins[y].Key {
			return ins[x].Key - ins[y].Key
		}
		return int(max(min(ins[x].N-ins[y].N, 1), -1))
	})
	for len(order) > 0 {
		// The checkpoints of one input, the longest's spans for all.
		n := 1
		for n < len(order) && ins[order[n]].Key == ins[order[0]].Key {
			n++
		}
		group := order[:n]
		last := ins[group[n-1]]
		stops := make([]int64, n)
		for j, k := range group {
			stops[j] = ins[k].N
		}
		sums, err := c.walk(last, stops)
		if err != nil {
			return err
		}
		for j, k := range group {
			cps[k].Input = sums[j]
		}
		order = order[n:]
	}
	return nil
}

// checkInput checks restored item it's Input against the archive's
// bytes, and on the way every other unchecked restored item of the same
// input that ends before it (marking those that match checked, dropping
// those that do not). It reports whether it matched (true when no
// SetInput was made).
func (c *Cache) checkInput(it *item) bool {
	c.mu.Lock()
	input := c.input
	c.mu.Unlock()
	if input == nil {
		return true
	}
	in, err := input(it.cp)
	if err != nil || it.cp.Input == ([32]byte{}) {
		return false
	}
	// The other unchecked items of this input before it (their inputs
	// are asked for once).
	c.mu.Lock()
	var unset []*item
	for _, o := range c.items {
		if o != it && o.pending && !o.inChecked && !o.inSet {
			unset = append(unset, o)
		}
	}
	c.mu.Unlock()
	for _, o := range unset {
		oin, err := input(o.cp)
		c.mu.Lock()
		o.inSet, o.inKey, o.inN, o.inBad = true, oin.Key, oin.N, err != nil
		c.mu.Unlock()
	}
	type stop struct {
		o *item
		n int64
	}
	var passed []stop
	c.mu.Lock()
	for _, o := range c.items {
		if o != it && o.pending && !o.inChecked && o.inSet && !o.inBad && o.inKey == in.Key && o.inN <= in.N && o.cp.Input != ([32]byte{}) {
			passed = append(passed, stop{o, o.inN})
		}
	}
	c.mu.Unlock()
	slices.SortFunc(passed, func(x, y stop) int { return int(max(min(x.n-y.n, 1), -1)) })
	stops := make([]int64, 0, len(passed)+1)
	for _, p := range passed {
		stops = append(stops, p.n)
	}
	stops = append(stops, in.N)
	sums, err := c.walk(in, stops)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, p := range passed {
		if o := p.o; sums[j] == o.cp.Input {
			o.inChecked = true
		} else if k := slices.Index(c.items, o); k >= 0 && o.pending {
			c.remove(k)
			c.rejected++
		}
	}
	return sums[len(stops)-1] == it.cp.Input
}

// walk returns the BLAKE3 of the first stops[j] bytes of in.Spans, for
// each of stops (ascending, the last at most in.N), reading from the
// mark of in.Key when it lies at or before stops[0], and leaves the mark
// at the last stop. An input shorter than a stop is ErrCorrupt; a read
// error is returned.
func (c *Cache) walk(in Input, stops []int64) ([][32]byte, error) {
	var total int64
	for _, s := range in.Spans {
		if s.Off < 0 || s.Len < 0 || total > 1<<62-s.Len {
			return nil, errs.Corrupt("checkpoint input: span %d+%d", s.Off, s.Len)
		}
		total += s.Len
	}
	if len(stops) == 0 || stops[0] < 0 || stops[len(stops)-1] > total {
		return nil, errs.Corrupt("checkpoint input beyond its stream")
	}
	h, pos := blake3.New(), int64(0)
	c.mu.Lock()
	for _, m := range c.marks {
		if m.key == in.Key && m.n <= stops[0] {
			h, pos = m.h.Clone(), m.n
		}
	}
	c.mu.Unlock()
	bufp := pool.Get(64 << 10)
	defer pool.Put(bufp)
	buf := (*bufp)[:64<<10]
	sums := make([][32]byte, len(stops))
	next := 0
	stop := func() {
		for next < len(stops) && stops[next] == pos {
			h.Sum(sums[next][:0])
			next++
		}
	}
	stop()
	var at int64 // where the current span starts in the input
	for _, s := range in.Spans {
		for next < len(stops) && pos < at+s.Len {
			n := min(at+s.Len, stops[next], pos+int64(len(buf))) - pos
			got, err := s.R.ReadAt(buf[:n], s.Off+pos-at)
			if int64(got) < n {
				if err == nil || err == io.EOF {
					err = errs.Corrupt("checkpoint input: the archive is shorter than its index says")
				}
				return nil, err
			}
			h.Write(buf[:n])
			InputRead.Add(n)
			pos += n
			stop()
		}
		at += s.Len
	}
	c.addMark(in.Key, pos, h)
	return sums, nil
}

// addMark keeps h, the hash of the first n bytes of input key, as its
// mark when it lies further than the one kept (while there is room).
func (c *Cache) addMark(key int, n int64, h *blake3.Hasher) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.marks {
		if c.marks[k].key == key {
			if c.marks[k].n < n {
				c.marks[k] = mark{key: key, n: n, h: h}
			}
			return
		}
	}
	if len(c.marks) < maxMarks {
		c.marks = append(c.marks, mark{key: key, n: n, h: h})
	}
}

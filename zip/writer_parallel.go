package zip

import (
	"io"
	"runtime"
	"sync"
)

// workers compress the entries that end within the head on several
// goroutines (WithThreads); the Writer writes them in archive order as
// they complete. At most 2 jobs per worker are in flight, each holding
// its entry (up to the 1 MiB head) and the compressed bytes. The
// goroutines live with the pooled state, parked on their channel, and
// end when a state is not kept (stop).
type workers struct {
	n      int       // goroutines started
	work   chan *job // to the workers
	free   []*job    // jobs not in flight
	queue  []*job    // in flight, in archive order
	level  int       // the level the workers compress at
	method uint16    // the method whose encoders they made at start
}

// start readies n workers at level, their encoders for method made.
func (p *workers) start(n, level int, method uint16) {
	if p.n != n || p.level != level || p.method != method {
		p.stop()
		p.n, p.level, p.method = n, level, method
		p.work = make(chan *job, 2*n)
		var ready sync.WaitGroup
		ready.Add(n)
		for range n {
			go worker(p.work, level, method, &ready)
		}
		ready.Wait() // their allocations belong to this archive
		// All the jobs at once, taken in turn (first in, first out), so
		// each has its buffers after the first 2n entries whatever the
		// timing: a job made when the workers happen to fall behind
		// would allocate them in a later archive.
		p.free = p.free[:0]
		for range 2 * n {
			p.free = append(p.free, &job{done: make(chan struct{}, 1)})
		}
	}
}

// worker compresses jobs with encoders of its own, the one of the
// Writer's method made at once: made at its first job, it would be
// made in whichever archive first kept two workers busy.
func worker(work chan *job, level int, method uint16, ready *sync.WaitGroup) {
	var enc encoders
	defer enc.release()
	if method != Store {
		if c, err := enc.get(method, level, io.Discard, true); err == nil {
			c.Close()
			enc.done()
		}
	}
	ready.Done()
	for j := range work {
		j.compress(&enc, level)
		j.done <- struct{}{}
	}
}

// stop ends the workers (the queue must be empty).
func (p *workers) stop() {
	if p.work != nil {
		close(p.work)
		p.work, p.n = nil, 0
	}
}

// queue hands the current entry (in the head) to the workers and
// writes the entries that are done, in order.
func (w *Writer) queue() error {
	st := w.st
	p := &st.par
	j, err := w.take()
	if err != nil {
		return err
	}
	j.e = w.cur
	j.head, st.head = st.head, j.head[:0]
	p.queue = append(p.queue, j)
	if j.e.noData || len(j.head) == 0 || j.e.r.real == Store {
		j.compress(nil, 0) // stored: nothing for a worker
		j.done <- struct{}{}
	} else {
		p.work <- j
	}
	return w.writeReady()
}

// take returns a free job, after writing the oldest in flight when 2n
// are: a job is always free then.
func (w *Writer) take() (*job, error) {
	p := &w.st.par
	p.start(w.cfg.threads, w.cfg.Level, w.cfg.method)
	if len(p.queue) >= 2*p.n {
		if err := w.writeNext(true); err != nil {
			return nil, err
		}
	}
	j := p.free[0]
	copy(p.free, p.free[1:])
	p.free[len(p.free)-1] = nil
	p.free = p.free[:len(p.free)-1]
	return j, nil
}

// writeReady writes the jobs done at the front of the queue.
func (w *Writer) writeReady() error {
	p := &w.st.par
	for len(p.queue) > 0 && ready(p.queue[0]) {
		if err := w.writeDone(); err != nil {
			return err
		}
	}
	return nil
}

// ready reports whether j is done, taking its signal.
func ready(j *job) bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// writeNext waits (when wait) for the oldest job, and writes it.
func (w *Writer) writeNext(wait bool) error {
	p := &w.st.par
	if wait {
		<-p.queue[0].done
	}
	return w.writeDone()
}

// writeDone writes the oldest job, which is done, and frees it.
func (w *Writer) writeDone() error {
	p := &w.st.par
	j := p.queue[0]
	copy(p.queue, p.queue[1:])
	p.queue[len(p.queue)-1] = nil
	p.queue = p.queue[:len(p.queue)-1]
	var err error
	if j.seg {
		err = w.writeSegment(j)
	} else {
		err = w.writeJob(j)
	}
	j.e, j.seg = entry{}, false
	p.free = append(p.free, j)
	return err
}

// drain writes every queued entry: before anything else goes to the
// output.
func (w *Writer) drain() error {
	if w.st == nil {
		return nil
	}
	for len(w.st.par.queue) > 0 {
		if err := w.writeNext(true); err != nil {
			return err
		}
	}
	return nil
}

// abandon waits for the jobs in flight after an error, dropping them.
func (p *workers) abandon() {
	for _, j := range p.queue {
		<-j.done
		j.e = entry{}
		p.free = append(p.free, j)
	}
	clear(p.queue)
	p.queue = p.queue[:0]
}

// defaultThreads is WithThreads(0): one worker per CPU.
func defaultThreads() int { return runtime.GOMAXPROCS(0) }

// Long Deflate entries are cut into segments of segSize after the head,
// as pigz cuts a stream: each is compressed apart with the previous
// segment's last segDict bytes as its dictionary and ends with a sync
// flush (byte-aligned, not final), the last with the final block, so
// their concatenation is one Deflate stream. Segments are cut the same
// way whatever the thread count, so the bytes do not depend on it.
const (
	segSize = headSize
	segDict = 32 << 10 // Deflate's window
)

// writeSegmented takes p, bytes of a segmented entry, cutting a segment
// each time segSize bytes are held.
func (w *Writer) writeSegmented(p []byte) error {
	st := w.st
	for len(p) > 0 {
		if cap(st.head) < segSize {
			st.head = append(make([]byte, 0, segSize), st.head...)
		}
		c := copy(st.head[len(st.head):segSize], p)
		st.head = st.head[:len(st.head)+c]
		p = p[c:]
		if len(st.head) == segSize {
			if err := w.segment(false); err != nil {
				return err
			}
		}
	}
	return nil
}

// segment hands the held bytes over as a segment: compressed here, or
// queued for the workers.
func (w *Writer) segment(final bool) error {
	st := w.st
	j := &st.job
	if w.cfg.threads > 1 {
		var err error
		if j, err = w.take(); err != nil {
			return err
		}
	}
	j.seg, j.final = true, final
	j.dict = st.tail
	if !final {
		copy(st.tail[:], st.head[len(st.head)-segDict:])
	}
	j.head, st.head = st.head, j.head[:0]
	if w.cfg.threads <= 1 {
		j.compress(&st.enc, w.cfg.Level)
		err := w.writeSegment(j)
		j.seg = false
		return err
	}
	p := &st.par
	p.queue = append(p.queue, j)
	p.work <- j
	return w.writeReady()
}

// compressSegment compresses the segment j holds.
func (j *job) compressSegment(enc *encoders, level int) {
	j.err = nil
	if cap(j.cbuf) < len(j.head)+len(j.head)/8+64 {
		j.cbuf = make([]byte, 0, segSize+segSize/8+64)
	}
	j.cbuf = j.cbuf[:0]
	j.sw = switchWriter{buf: &j.cbuf}
	fw := enc.deflateDict(level, &j.sw, j.dict[:])
	_, err := fw.Write(j.head)
	if err == nil {
		if j.final {
			err = fw.Close()
		} else {
			err = fw.Flush()
		}
	}
	enc.done()
	j.sw = switchWriter{}
	j.err = err
}

// writeSegment writes a compressed segment of the current entry.
func (w *Writer) writeSegment(j *job) error {
	if j.err != nil {
		return j.err
	}
	if w.cur.crypt != 0 {
		return w.st.crypt.writeOwned(j.cbuf)
	}
	return w.out.write(j.cbuf)
}

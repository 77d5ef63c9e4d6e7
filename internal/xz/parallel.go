package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"hash/crc32"
	"hash/crc64"
	"io"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/bcj"
	"github.com/go-unarc/unarc/internal/inbuf"
	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/pool"
)

// Blocks decoded in parallel (Workers > 1).
//
// At a block header that declares both sizes, the caller's goroutine
// (in Read or WriteTo) reads the whole block — header, packed data,
// padding, check — into a pooled buffer and queues it for the workers,
// then the next block, until Workers+1 blocks are queued, MaxMemory
// would be passed, or the next thing is not such a block (the index, a
// header without sizes or one that fails its checks). The queue is
// delivered in order from each block's output buffer; at its end the
// serial path takes the input where the scan left it, so an index, a
// footer or a bad header is read and reported exactly as with one
// worker, and the next block may be queued again.
//
// A worker only says whether a block is good: its LZMA2 data ends at its
// declared compressed size, it decodes to its declared size, its
// padding is zero, its check matches and it stays within
// UncompressedSize. A block that is not good, or input that ends or
// fails inside a block being read ahead, makes the caller hand the raw
// bytes of that block and of those queued after it, then the rest of
// the input, to the serial path (a stitched input): it decodes them as
// one worker would have from the start, output and error alike. The
// stream is then serial to the end (until Reset).

// maxWorkers caps Workers.
const maxWorkers = 256

// mtMaxBlock is the largest block (compressed or not) decoded on a
// worker when MaxMemory is 0: a hostile header must not make the reader
// allocate without bound. xz -T9's blocks are 192 MiB.
const mtMaxBlock = 256 << 20

// mtSlice is how much a worker decodes between two updates of the check,
// so the check reads bytes still in the cache.
const mtSlice = 256 << 10

type mtJob struct {
	raw   *[]byte // the block: header, packed data, padding, check
	out   *[]byte // its output (nil for an empty block)
	bi    blockInfo
	at    int64 // input offset of its header
	start int64 // output offset of its first byte
	need  int64 // memory counted for it
	check byte  // the stream's check type
	csize int
	size  int64 // UncompressedSize (-1: unknown)
	ok    bool
	done  chan struct{} // one value when decoded
}

type mtState struct {
	n       int // workers
	jobs    chan *mtJob
	wg      sync.WaitGroup
	running bool

	queue    []*mtJob // read ahead, in order; queue[0] is being delivered
	free     []*mtJob
	off      int64 // bytes of queue[0] delivered
	waited   bool  // queue[0] is decoded
	inflight int64 // memory of the queue
	next     int64 // output offset after the last queued block
	serial   bool  // no more blocks on workers until Reset

	pending   *[]byte // a block cut short by the input while read ahead
	pendingAt int64
	stitch    stitchReader

	cancel atomic.Bool // the queue is being dropped: workers stop early

	decoded int // blocks decoded on workers (for tests)
}

// mtOn reports whether the next block may go to the workers.
func (z *Reader) mtOn() bool {
	return z.cfg.workers > 1 && z.mt != nil && !z.mt.serial
}

// mtReset readies z.mt for a new input (Reset): the queue drained, the
// workers kept when their number is unchanged.
func (z *Reader) mtReset() {
	if z.cfg.workers <= 1 && z.mt == nil {
		return
	}
	if z.mt == nil {
		z.mt = new(mtState)
	}
	m := z.mt
	m.drain()
	if m.running && m.n != z.cfg.workers {
		m.stop()
	}
	m.n = z.cfg.workers
	m.serial, m.next, m.decoded = false, 0, 0
}

// start runs the workers.
func (m *mtState) start() {
	if m.running {
		return
	}
	m.jobs = make(chan *mtJob, m.n+1)
	m.running = true
	m.wg.Add(m.n)
	for range m.n {
		go m.work()
	}
}

// stop ends the workers (the queue is drained first).
func (m *mtState) stop() {
	if !m.running {
		return
	}
	close(m.jobs)
	m.wg.Wait()
	m.running, m.jobs = false, nil
}

// drain waits for the queued blocks and returns their buffers and the
// stitched input's.
func (m *mtState) drain() {
	m.cancel.Store(true)
	for len(m.queue) > 0 {
		m.pop()
	}
	m.cancel.Store(false)
	if m.pending != nil {
		pool.Put(m.pending)
		m.pending = nil
	}
	m.stitch.release()
}

// pop waits for queue[0] and gives its buffers back.
func (m *mtState) pop() {
	j := m.queue[0]
	if !m.waited {
		<-j.done
	}
	m.release(j, true)
	n := copy(m.queue, m.queue[1:])
	m.queue[n] = nil
	m.queue = m.queue[:n]
	m.off, m.waited = 0, false
}

// release returns j to the free list, and its buffers to the pool (the
// raw bytes only if putRaw: else the stitched input has them).
func (m *mtState) release(j *mtJob, putRaw bool) {
	if putRaw && j.raw != nil {
		pool.Put(j.raw)
	}
	if j.out != nil {
		pool.Put(j.out)
	}
	j.raw, j.out = nil, nil
	m.inflight -= j.need
	m.free = append(m.free, j)
}

func (m *mtState) job() *mtJob {
	if n := len(m.free); n > 0 {
		j := m.free[n-1]
		m.free = m.free[:n-1]
		return j
	}
	return &mtJob{done: make(chan struct{}, 1)}
}

// mtNeed is the memory a block costs on a worker, and whether it may go
// to one at all.
func (z *Reader) mtNeed(bi *blockInfo) (int64, bool) {
	if bi.comp < 0 || bi.unc < 0 || bi.comp > mtMaxBlock || bi.unc > mtMaxBlock && z.cfg.maxMem == 0 {
		return 0, false
	}
	raw := int64(bi.size) + bi.comp + (-bi.comp & 3) + int64(z.csize)
	win := min(max(bi.dict, 4096), max(bi.unc, 4096))
	need := pooled(raw) + pooled(bi.unc) + win + int64(bi.nf-1)*FilterBufferSize
	if z.cfg.maxMem > 0 && 2*need > z.cfg.maxMem {
		return 0, false
	}
	return need, true
}

// pooled is what pool.Get(n) holds: n rounded up to a power of two.
func pooled(n int64) int64 {
	if n <= 1 {
		return n
	}
	return 1 << bits.Len64(uint64(n-1))
}

// scan queues blocks for the workers from the input position (see the
// comment at the top). It reports whether the queue holds any.
func (z *Reader) scan() bool {
	m := z.mt
	in := &z.in
	for !m.serial && len(m.queue) <= m.n {
		if len(m.queue) == 0 {
			m.next = z.total
		}
		if !in.more() || in.Buf[in.IP] == 0x00 {
			break // the end, or the index: the serial path reads it
		}
		var bi blockInfo
		if z.parseHeader(&bi, m.next) != nil {
			break // the serial path reports it
		}
		need, ok := z.mtNeed(&bi)
		if !ok || z.cfg.maxMem > 0 && m.inflight+need > z.cfg.maxMem {
			break
		}
		n := bi.size + int(bi.comp) + int(-bi.comp&3) + z.csize
		raw := pool.Get(n)
		at := in.Base + int64(in.IP)
		if got := in.take((*raw)[:n]); got < n {
			// The input ended or failed inside the block: the serial
			// path decodes it from its header, and says so.
			*raw = (*raw)[:got]
			m.pending, m.pendingAt, m.serial = raw, at, true
			break
		}
		*raw = (*raw)[:n]
		j := m.job()
		j.raw, j.bi, j.at, j.start, j.need = raw, bi, at, m.next, need
		j.check, j.csize, j.size, j.ok = z.check, z.csize, z.cfg.size, false
		if bi.unc > 0 {
			j.out = pool.Get(int(bi.unc))
		}
		m.next += bi.unc
		m.inflight += need
		m.queue = append(m.queue, j)
		m.start()
		m.jobs <- j
	}
	if len(m.queue) == 0 && m.pending != nil {
		m.stitch.release()
		m.stitch.parts = append(m.stitch.parts, m.pending)
		m.pending = nil
		z.restitch(m.pendingAt)
	}
	return len(m.queue) > 0
}

// front returns the block being delivered, decoded, with output left;
// nil when the queue has ended (z.st is then set for what follows).
func (z *Reader) front() *mtJob {
	m := z.mt
	for len(m.queue) > 0 {
		j := m.queue[0]
		if !m.waited {
			<-j.done
			m.waited = true
			if !j.ok {
				z.fallback()
				return nil
			}
			m.decoded++
		}
		if m.off < j.bi.unc {
			return j
		}
		z.blocks.add(uint64(int64(j.bi.size)+j.bi.comp+int64(z.csize)), uint64(j.bi.unc))
		m.pop()
		z.scan() // top up while the workers are busy
	}
	z.st = stBlock
	return nil
}

// fallback hands the queue's raw blocks (from the first, which a worker
// found wrong), a block cut short and the unread input to the serial
// path, which goes on from the first block's header.
func (z *Reader) fallback() {
	m := z.mt
	s := &m.stitch
	s.release()
	at := m.queue[0].at
	for len(m.queue) > 0 {
		j := m.queue[0]
		if !m.waited {
			<-j.done
		}
		s.parts = append(s.parts, j.raw)
		m.release(j, false)
		n := copy(m.queue, m.queue[1:])
		m.queue[n] = nil
		m.queue = m.queue[:n]
		m.waited = false
	}
	m.off = 0
	if m.pending != nil {
		s.parts = append(s.parts, m.pending)
		m.pending = nil
	}
	z.restitch(at)
}

// restitch makes the input read s.parts, then what was left of the
// input, with offsets counted from at.
func (z *Reader) restitch(at int64) {
	m := z.mt
	s := &m.stitch
	in := &z.in
	if n := in.Avail(); n > 0 {
		b := pool.Get(n)
		*b = append((*b)[:0], in.Buf[in.IP:in.End]...)
		s.parts = append(s.parts, b)
	}
	s.r, s.err = in.R, nil
	switch {
	case in.Err != nil:
		s.r, s.err = nil, in.Err
	case in.EOF:
		s.r, s.err = nil, io.EOF
	}
	in.Reset(s, inBufSize, 0)
	in.Base = at
	m.serial = true
	z.st = stBlock
}

// stitchReader reads pooled buffers in turn, then r, or err when r is
// nil.
type stitchReader struct {
	parts []*[]byte
	off   int
	r     io.Reader
	err   error
}

func (s *stitchReader) Read(p []byte) (int, error) {
	for len(s.parts) > 0 {
		b := *s.parts[0]
		if s.off < len(b) {
			n := copy(p, b[s.off:])
			s.off += n
			return n, nil
		}
		pool.Put(s.parts[0])
		s.parts[0] = nil
		s.parts = s.parts[1:]
		s.off = 0
	}
	if s.r != nil {
		return s.r.Read(p)
	}
	return 0, s.err
}

func (s *stitchReader) release() {
	for i, b := range s.parts {
		pool.Put(b)
		s.parts[i] = nil
	}
	s.parts, s.off, s.r, s.err = s.parts[:0], 0, nil, nil
}

// take copies the next len(p) input bytes into p, the buffered ones then
// straight from R, and consumes them. Fewer means the input ended or
// failed (EOF or Err says which).
func (in *input) take(p []byte) int {
	n := copy(p, in.Buf[in.IP:in.End])
	in.IP += n
	if n == len(p) {
		return n
	}
	in.Base += int64(in.End)
	in.IP, in.End = 0, 0
	for empty := 0; n < len(p) && !in.EOF && in.Err == nil; {
		m, err := in.R.Read(p[n:])
		n += m
		in.Base += int64(m)
		switch {
		case err == io.EOF:
			in.EOF = true
		case err != nil:
			in.Err = err
		case m == 0:
			if empty++; empty == 100 {
				in.Err = io.ErrNoProgress
			}
		}
	}
	return n
}

// mtWorker is one worker's decoder, kept from block to block.
type mtWorker struct {
	in    input
	frame framer
	lz    *lzma.Reader2
	flt   [maxFilters - 1]*bcj.Reader
	sha   hash.Hash
	sum   [sha256.Size]byte
	one   [1]byte
}

func (m *mtState) work() {
	defer m.wg.Done()
	var w mtWorker
	defer w.close()
	for j := range m.jobs {
		j.ok = !m.cancel.Load() && w.decode(j, &m.cancel)
		j.done <- struct{}{}
	}
}

func (w *mtWorker) close() {
	if w.lz != nil {
		w.lz.Close()
	}
	for _, f := range w.flt {
		if f != nil {
			f.Close()
		}
	}
}

// decode decodes j's block into j.out and reports whether it is good
// (see the comment at the top).
func (w *mtWorker) decode(j *mtJob, cancel *atomic.Bool) bool {
	raw, bi := *j.raw, &j.bi
	data := raw[bi.size:]
	w.in = input{inbuf.Buffer{Buf: data, End: len(data), EOF: true}}
	w.frame.reset(&w.in)
	var err error
	if w.lz == nil {
		w.lz, err = lzma.NewReader2(&w.frame, bi.dict, bi.unc, lzma.GrowWindow())
	} else {
		err = w.lz.Reset(&w.frame, bi.dict, bi.unc, lzma.GrowWindow())
	}
	if err != nil {
		return false
	}
	var src io.Reader = w.lz
	for i := bi.nf - 2; i >= 0; i-- {
		if w.flt[i] == nil {
			w.flt[i] = bcj.NewReader(src, bi.kinds[i], bi.starts[i], bi.dists[i])
		} else {
			w.flt[i].Reset(src, bi.kinds[i], bi.starts[i], bi.dists[i])
		}
		src = w.flt[i]
	}
	var out []byte
	if j.out != nil {
		out = (*j.out)[:bi.unc]
	}
	var c32 uint32
	var c64 uint64
	if j.check == checkSHA256 {
		if w.sha == nil {
			w.sha = sha256.New()
		}
		w.sha.Reset()
	}
	for off := 0; off < len(out); {
		if cancel.Load() {
			return false
		}
		n, err := io.ReadFull(src, out[off:min(off+mtSlice, len(out))])
		if err != nil {
			return false
		}
		p := out[off : off+n]
		switch j.check {
		case checkCRC32:
			c32 = crc32.Update(c32, crc32.IEEETable, p)
		case checkCRC64:
			c64 = crc64.Update(c64, crc64Table, p)
		case checkSHA256:
			w.sha.Write(p)
		}
		off += n
	}
	if n, err := src.Read(w.one[:]); n != 0 || err != io.EOF {
		return false
	}
	if !w.frame.done || w.frame.rem != 0 || w.frame.total != bi.comp {
		return false
	}
	if j.size >= 0 && j.start+bi.unc > j.size {
		return false
	}
	tail := data[bi.comp:]
	pad := int(-bi.comp & 3)
	if len(tail) != pad+j.csize {
		return false
	}
	for _, c := range tail[:pad] {
		if c != 0 {
			return false
		}
	}
	stored := tail[pad:]
	switch j.check {
	case checkCRC32:
		return binary.LittleEndian.Uint32(stored) == c32
	case checkCRC64:
		return binary.LittleEndian.Uint64(stored) == c64
	case checkSHA256:
		return bytes.Equal(stored, w.sha.Sum(w.sum[:0]))
	}
	return true
}

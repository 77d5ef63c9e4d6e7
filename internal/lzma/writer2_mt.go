package lzma

// The block mode of Writer2: multi-threaded LZMA2 as independent blocks.
//
// The input is cut into blocks of a fixed size; each block is encoded by
// a block2Encoder (enc_block2.go) as an independent run of LZMA2 chunks
// that starts with a dictionary reset, so blocks need nothing from each
// other and the stream is their concatenation plus the end byte. Where a
// block ends depends only on the block size (and on the caller's Flush
// calls), never on the number of goroutines, and a block's chunks depend
// only on its bytes and the options: the output is byte-identical for
// every thread count, Threads(1) included.
//
// Concurrency: the writer owns n slots (n = the thread count). A slot is
// an input buffer, an output buffer and a block2Encoder. The caller's
// goroutine fills a free slot; a full slot is handed to a worker
// goroutine that encodes it. When every slot is busy the caller waits for the
// oldest one, writes its output and reuses it, so output goes out in
// order, at most n blocks are held in memory, and the destination is only
// ever written from the caller's goroutine. With one thread the block is
// encoded on the caller's goroutine and no goroutine is started.
//
// The goroutines are shared by all writers of the process: a pool of
// workers that wait on mtQueue and end after mtIdle without work. A slot
// is self-contained (its encoder and buffers travel with it), so any
// worker can encode any writer's block. A steady stream of blocks thus
// starts no goroutine and allocates nothing; a burst starts as many
// workers as blocks are in flight (at most the sum of the writers'
// Threads), and they are gone mtIdle after the last block.

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// mtIdle is how long a worker waits for a block before it ends.
const mtIdle = 500 * time.Millisecond

// mtQueue carries full slots to the workers. Its capacity only bounds how
// far senders run ahead; every queued slot has a worker to take it.
var mtQueue = make(chan *mtSlot, 64)

// mtPool counts the workers. idle is the number of live workers not
// encoding minus the slots queued for them: a dispatch takes one (idle--)
// or starts a worker, a worker that finishes a block gives one back
// (idle++), and a worker may end only by taking one (so idle >= 1): then
// every queued slot still has a waiting worker.
var mtPool struct {
	sync.Mutex
	idle int
}

// mtSend queues s for a worker, starting one when none is free.
func mtSend(s *mtSlot) {
	mtPool.Lock()
	start := mtPool.idle == 0
	if !start {
		mtPool.idle--
	}
	mtPool.Unlock()
	if start {
		go mtWorker() // no closure, no arguments: starting it allocates nothing
	}
	mtQueue <- s
}

// mtWorker encodes queued slots until it has waited mtIdle for one and
// can leave without stranding a queued slot.
func mtWorker() {
	t := time.NewTimer(mtIdle)
	defer t.Stop()
	for {
		select {
		case s := <-mtQueue:
			s.encode()
			s.done <- struct{}{}
			mtPool.Lock()
			mtPool.idle++
			mtPool.Unlock()
		case <-t.C:
			mtPool.Lock()
			leave := mtPool.idle > 0
			if leave {
				mtPool.idle--
			}
			mtPool.Unlock()
			if leave {
				return
			}
		}
		t.Reset(mtIdle)
	}
}

// Block size bounds of the block mode.
const (
	// MinBlockSize is the smallest BlockSize (the smallest dictionary);
	// smaller values are raised to it.
	//
	// # Block mode
	//
	// A Writer2 made with Threads(n) for n > 1, or with a BlockSize, cuts
	// its input into independent blocks: each starts with a dictionary
	// reset, so matches never reach into an earlier block, and blocks
	// are compressed on up to n goroutines (one: on the caller's). The
	// block size is BlockSize, or else 7-Zip's choice for the dictionary
	// (Lzma2Enc.c): 4 x the dictionary, at least 1 MiB and the
	// dictionary, at most 256 MiB unless the dictionary is larger,
	// rounded up to whole MiB (level 5: 128 MiB). Each Flush also ends a
	// block. The stream depends on the input, the options and the Flush
	// calls only, never on n: Threads(1), Threads(2) and Threads(4) with
	// the same BlockSize write the same bytes, and Threads(n) without
	// BlockSize writes what Threads(1) with BlockSize(7-Zip's size) does.
	// Without Threads above 1 and without BlockSize the stream is one
	// solid block, as 7-Zip's -mmt1 writes it, and usually a little
	// smaller.
	//
	// Memory: n x (the input block + its output, about the block size
	// each, grown as data arrives + the block encoder's tables for
	// min(dictionary, block size), see Level). Buffers come from the
	// pools, are reused from block to block and go back on Close.
	//
	// The goroutines are shared by every Writer2 of the process and end
	// half a second after their last block. Write, ReadFrom, Flush, Close
	// and Reset of one Writer2 must not be called concurrently (Close
	// while another goroutine is in Write is not supported). An error of
	// the destination stops the writer: it is returned by the call that
	// met it and by every later one, nothing more is written, no new block
	// is started, and Close waits for the blocks in flight and releases
	// the memory.
	MinBlockSize = 1 << 12
	// 7-Zip's automatic block size (Lzma2Enc.c, Lzma2EncProps_Normalize):
	// four times the dictionary, clamped to 1 MiB..256 MiB but never
	// below the dictionary, rounded up to a multiple of 1 MiB.
	autoBlockMin = 1 << 20
	autoBlockMax = 1 << 28
	// The first input buffer of a slot is at most this big; it doubles
	// up to the block size as the block fills, so a short stream does
	// not take a whole block's memory.
	mtFirstBuf = 1 << 20
)

// autoBlockSize returns 7-Zip's block size for dictionary size dict.
func autoBlockSize(dict int64) int64 {
	n := min(max(dict*4, autoBlockMin), autoBlockMax)
	n = max(n, dict)
	return (n + autoBlockMin - 1) &^ (autoBlockMin - 1)
}

// mtBlockSize returns the block size of the options: BlockSize when
// given (raised to MinBlockSize), else 7-Zip's size for the dictionary.
func mtBlockSize(cfg *encConfig) int {
	if cfg.blockSize > 0 {
		return int(min(max(cfg.blockSize, MinBlockSize), maxBlockBytes))
	}
	return int(autoBlockSize(int64(cfg.dictSize)))
}

// maxBlockBytes bounds a block so its buffers stay in an int on every
// platform and within what the pool hands out.
const maxBlockBytes = 1 << 30

// mtOutCap is the output buffer for a block of n bytes: LZMA2 never
// grows data by more than 3 bytes per 64 KiB stored chunk plus a few
// bytes per chunk header (7-Zip's bound is n + n/1024 + 16).
func mtOutCap(n int) int { return n + n>>10 + 64 }

// mtSlot is one block in flight: its input, its encoded output and the
// encoder that turns one into the other.
type mtSlot struct {
	enc   block2Encoder
	opts  []WriterOption
	ready bool // enc.reset done since the last close

	inp  *[]byte // pooled input buffer; len = bytes in the block so far
	outp *[]byte // pooled output buffer
	res  []byte  // the encoded block (in *outp) once done
	err  error

	done chan struct{} // one token per finished encode (goroutine mode)
	busy bool          // handed to a goroutine, not yet collected
}

// encode turns the slot's input into res.
func (s *mtSlot) encode() {
	s.res, s.err = nil, nil
	if !s.ready {
		if s.err = s.enc.reset(s.opts...); s.err != nil {
			return
		}
		s.ready = true
	}
	in := *s.inp
	if s.outp == nil || cap(*s.outp) < mtOutCap(len(in)) {
		pool.Put(s.outp)
		s.outp = pool.Get(mtOutCap(len(in)))
	}
	s.res, s.err = s.enc.encodeBlock((*s.outp)[:0], in)
}

// release returns the slot's memory to the pools.
func (s *mtSlot) release() {
	pool.Put(s.inp)
	pool.Put(s.outp)
	s.inp, s.outp, s.res = nil, nil, nil
	if s.ready {
		s.enc.close()
		s.ready = false
	}
}

// mtWriter is the block mode of a Writer2.
type mtWriter struct {
	w         io.Writer
	blockSize int
	slots     []mtSlot
	fill      int // the slot being filled
	oldest    int // the oldest busy slot (when busy > 0)
	busy      int // slots handed to goroutines and not yet collected
	err       error
	closed    bool
	known     int64 // KnownSize, -1 unknown
	total     int64 // bytes taken from the caller
}

// sizeErr is the error for n bytes written against KnownSize.
func (m *mtWriter) sizeErr(n int64) error {
	return fmt.Errorf("lzma: %w: KnownSize(%d) but %d bytes written", errs.ErrInvalidOption, m.known, n)
}

// init sets m up for cfg with threads slots; opts are what each slot's
// block2Encoder is reset with.
func (m *mtWriter) init(w io.Writer, cfg *encConfig, opts []WriterOption) {
	m.w = w
	m.known = cfg.knownSize
	m.blockSize = mtBlockSize(cfg)
	n := max(cfg.threads, 1)
	m.slots = make([]mtSlot, n)
	for i := range m.slots {
		m.slots[i].opts = opts
		if n > 1 {
			m.slots[i].done = make(chan struct{}, 1)
		}
	}
	m.fill, m.oldest, m.busy, m.err, m.closed = 0, 0, 0, nil, false
}

// reset makes m write a new stream to w, keeping its slots and buffers.
// Blocks still being encoded are waited for and dropped.
func (m *mtWriter) reset(w io.Writer) {
	m.drop()
	for i := range m.slots {
		if m.slots[i].inp != nil {
			*m.slots[i].inp = (*m.slots[i].inp)[:0]
		}
	}
	m.w = w
	m.fill, m.oldest, m.err, m.closed, m.total = 0, 0, nil, false, 0
}

// drop waits for every busy slot and discards its output.
func (m *mtWriter) drop() {
	for m.busy > 0 {
		s := &m.slots[m.oldest]
		<-s.done
		s.busy = false
		m.oldest = (m.oldest + 1) % len(m.slots)
		m.busy--
	}
}

// slot returns the slot to fill, with room for at least one byte, after
// collecting the oldest busy slot when every slot is taken.
func (m *mtWriter) slot() (*mtSlot, error) {
	s := &m.slots[m.fill]
	if s.busy {
		// All slots are busy (fill follows oldest around the ring).
		if err := m.collect(); err != nil {
			return nil, err
		}
	}
	if s.inp == nil {
		p := pool.Get(min(m.blockSize, mtFirstBuf))
		*p = (*p)[:0]
		s.inp = p
	} else if len(*s.inp) == cap(*s.inp) && cap(*s.inp) < m.blockSize {
		// Grow the first buffer of a slot towards the block size.
		p := pool.Get(min(m.blockSize, 2*cap(*s.inp)))
		*p = append((*p)[:0], *s.inp...)
		pool.Put(s.inp)
		s.inp = p
	}
	return s, nil
}

// room is the part of s's input buffer that the block may still take.
func (m *mtWriter) room(s *mtSlot) []byte {
	in := *s.inp
	end := min(cap(in), m.blockSize)
	return in[len(in):end]
}

// grew records that n bytes were put into room(s), and hands the block
// on when it is full.
func (m *mtWriter) grew(s *mtSlot, n int) error {
	*s.inp = (*s.inp)[:len(*s.inp)+n]
	if len(*s.inp) == m.blockSize {
		return m.dispatch()
	}
	return nil
}

// dispatch hands the slot being filled to the encoder: a goroutine when
// there are several slots, else the caller's goroutine.
func (m *mtWriter) dispatch() error {
	s := &m.slots[m.fill]
	if s.busy || s.inp == nil || len(*s.inp) == 0 {
		return nil
	}
	if len(m.slots) == 1 {
		s.encode()
		return m.output(s)
	}
	s.busy = true
	if m.busy == 0 {
		m.oldest = m.fill
	}
	m.busy++
	m.fill = (m.fill + 1) % len(m.slots)
	mtSend(s)
	return nil
}

// collect waits for the oldest busy slot and writes its output.
func (m *mtWriter) collect() error {
	s := &m.slots[m.oldest]
	<-s.done
	s.busy = false
	m.oldest = (m.oldest + 1) % len(m.slots)
	m.busy--
	return m.output(s)
}

// output writes a finished slot's block and empties the slot.
func (m *mtWriter) output(s *mtSlot) error {
	res, err := s.res, s.err
	s.res, s.err = nil, nil
	*s.inp = (*s.inp)[:0]
	if err != nil {
		return err
	}
	if _, err := m.w.Write(res); err != nil {
		return err
	}
	return nil
}

// fail records the first error; the writer writes nothing after it.
func (m *mtWriter) fail(err error) error {
	if m.err == nil {
		m.err = err
	}
	return m.err
}

// write is Writer2.Write in block mode.
func (m *mtWriter) write(p []byte) (int, error) {
	if m.closed {
		return 0, ErrWriterClosed
	}
	if m.err != nil {
		return 0, m.err
	}
	if m.known >= 0 && int64(len(p)) > m.known-m.total {
		return 0, m.fail(m.sizeErr(m.total + int64(len(p))))
	}
	m.total += int64(len(p))
	n := 0
	for len(p) > 0 {
		s, err := m.slot()
		if err != nil {
			return n, m.fail(err)
		}
		k := copy(m.room(s), p)
		p = p[k:]
		n += k
		if err := m.grew(s, k); err != nil {
			return n, m.fail(err)
		}
	}
	return n, nil
}

// readFrom is Writer2.ReadFrom in block mode: it reads straight into the
// block buffers.
func (m *mtWriter) readFrom(r io.Reader) (int64, error) {
	if m.closed {
		return 0, ErrWriterClosed
	}
	if m.err != nil {
		return 0, m.err
	}
	var total int64
	for {
		s, err := m.slot()
		if err != nil {
			return total, m.fail(err)
		}
		room := m.room(s)
		if m.known >= 0 && int64(len(room)) > m.known-m.total+1 {
			room = room[:m.known-m.total+1] // one more byte shows an overrun
		}
		n, rerr := r.Read(room)
		if n < 0 || n > len(room) {
			return total, m.fail(io.ErrShortBuffer)
		}
		if m.known >= 0 && m.total+int64(n) > m.known {
			return total, m.fail(m.sizeErr(m.total + int64(n)))
		}
		m.total += int64(n)
		total += int64(n)
		if err := m.grew(s, n); err != nil {
			return total, m.fail(err)
		}
		if rerr == io.EOF {
			return total, nil
		}
		if rerr != nil {
			return total, rerr // the source's error; the stream may go on
		}
	}
}

// flush ends the current block early, waits for every block and writes
// them: all data written so far is then in the destination and
// decodable. Each Flush thus starts a new block.
func (m *mtWriter) flush() error {
	if m.closed {
		return ErrWriterClosed
	}
	if m.err != nil {
		return m.err
	}
	if err := m.dispatch(); err != nil {
		return m.fail(err)
	}
	for m.busy > 0 {
		if err := m.collect(); err != nil {
			return m.fail(err)
		}
	}
	return nil
}

// close flushes, writes the end byte and returns the memory to the pools.
// After an error it still waits for the goroutines and releases, and
// returns the error. Later calls return ErrWriterClosed, or the error.
func (m *mtWriter) close() error {
	if m.closed {
		return m.err
	}
	if m.known >= 0 && m.total != m.known && m.err == nil {
		m.fail(m.sizeErr(m.total))
	}
	err := m.flush()
	if err == nil {
		if _, werr := m.w.Write(endByte[:]); werr != nil {
			err = m.fail(werr)
		}
	}
	m.drop()
	for i := range m.slots {
		m.slots[i].release()
	}
	m.closed = true
	if err == nil {
		m.err = ErrWriterClosed
	}
	return err
}

// blockMode reports whether cfg asks for independent blocks: Threads
// above 1, or a BlockSize.
func (c *encConfig) blockMode() bool { return c.threads > 1 || c.blockSize > 0 }

// mtMemory is what the block mode of c allocates: per thread an input
// and an output buffer of a block and a block encoder's tables for
// min(dictionary, block size) (its window is the input buffer).
func (c *encConfig) mtMemory() int64 {
	bs := mtBlockSize(c)
	b := *c
	b.dictSize = uint32(min(int64(c.dictSize), max(int64(bs), MinDictSize)))
	per := b.memory(true) - poolClass(int64(windowFor(&b, true))) + poolClass(int64(bs)) + poolClass(int64(mtOutCap(bs)))
	return int64(max(c.threads, 1)) * per
}

// resetBlocks is Writer2.Reset in block mode; it reports false, doing
// nothing, when the options ask for one solid stream. The options of a
// Writer2 never change, so neither does its mode. MaxMemory limits the
// memory of all threads together (mtMemory).
func (z *Writer2) resetBlocks(w io.Writer) (bool, error) {
	c := &z.e.cfg
	if !c.blockMode() {
		return false, nil
	}
	if c.maxMemory > 0 {
		if n := c.mtMemory(); n > c.maxMemory {
			err := errs.Limit("lzma2: %d threads with %d-byte blocks need %d bytes of memory, limit %d", max(c.threads, 1), mtBlockSize(c), n, c.maxMemory)
			if z.mt != nil {
				z.mt.reset(w)
				z.mt.err = err
			}
			return true, err
		}
	}
	if z.mt == nil {
		z.mt = new(mtWriter)
		z.mt.init(w, c, z.opts[:z.nopts])
		return true, nil
	}
	z.mt.reset(w)
	return true, nil
}

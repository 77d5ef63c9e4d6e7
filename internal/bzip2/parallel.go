package bzip2

import (
	"encoding/binary"
	"io"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/pool"
)

// Parallel decoding (Workers > 1).
//
// Blocks are independent once their first bit is known, and each starts
// with the 48-bit block magic at any bit offset. The consumer (the
// goroutine calling Read) reads the input ahead into a window, scans it
// for candidate magics (block or end of stream), and makes a job of each
// stretch from one candidate to the next. A job is decoded completely
// (symbols, inverse BWT, the walk into the block's pre-RLE1 bytes, the
// derandomisation) and notes the bit where it ended: on a worker
// goroutine (on a copy of the stretch) when a token lets one more
// goroutine work, else on the consumer itself, which decodes the next
// block rather than wait for a worker. The consumer takes results in
// stream order and accepts a block only if it decoded without error and
// ended exactly at the next candidate; it then undoes RLE1 into the
// caller's buffer and computes the block CRC on the way, as the
// sequential decoder does, so a mismatch is reported after the same
// bytes with the same error. Anything else (a magic inside compressed
// data splitting a block, a damaged block, input that ends, a block
// longer than any valid one) makes the consumer discard the work in
// flight and go on sequentially from the start of that block, for the
// rest of the input: data and errors are then those of the sequential
// decoder, by construction. A stream's end also hands over to the
// sequential decoder (it checks the stream CRC and what follows), which
// re-enters parallel mode at the next stream's first block. With shared
// tokens (Shared), the reader goes back to the sequential decoder
// whenever it has nothing in flight and no token is free (no scan, no
// copies), and comes back at a later block when one is.

// src is what the bit reader reads: bytes handed back by the parallel
// window first, then the caller's reader.
type src struct {
	pend []byte
	pbuf *[]byte // pooled backing of pend
	r    io.Reader
}

func (s *src) Read(p []byte) (int, error) {
	if len(s.pend) > 0 {
		n := copy(p, s.pend)
		s.pend = s.pend[n:]
		if len(s.pend) == 0 {
			pool.Put(s.pbuf)
			s.pbuf, s.pend = nil, nil
		}
		return n, nil
	}
	return s.r.Read(p)
}

func (s *src) reset(r io.Reader) {
	pool.Put(s.pbuf)
	*s = src{r: r}
}

// job is one block in flight. Its buffers are sized once for its block
// size bs (newJob), whatever the block holds, so they are exactly what
// WorkerMemory counts; whole jobs are kept between readers (idleJobs).
type job struct {
	// input
	seg      []byte // a worker's copy of the compressed block (cap maxBlockBytes(bs))
	data     []byte // from the byte holding its magic
	dataOff  int64  // stream offset of data[0]
	start    int64  // stream bit of the magic
	end      int64  // stream bit of the next candidate; -1: none found
	endIsEOS bool
	bs       int    // the block size the buffers are for
	onWorker bool   // handed to a worker (which signals done)
	tokens   Tokens // the token the worker gives back (nil: none)
	ready    bool   // decoded (the consumer saw done, or decoded it)

	// output
	d      *decoder
	tt     []uint32 // the block table, bs entries
	outBuf []byte   // walkCap(bs)
	out    []byte   // pre-RLE1 bytes, derandomised, in spans
	spans  []span
	stored uint32
	gotEnd int64
	err    error
	done   chan struct{}
}

type parallel struct {
	z       *Reader
	workers int // blocks decoded at once: the consumer and workers-1 goroutines
	depth   int // blocks in flight, decoded or not (MaxMemory)
	bs      int
	tokens  Tokens // nil: the reader's own workers
	held    bool   // a token taken on entry, not yet given to a job

	jobs     chan *job
	wg       sync.WaitGroup
	started  int          // worker goroutines running
	inflight atomic.Int32 // jobs handed to workers and not yet decoded
	queue    []*job       // in stream order
	spare    []*job
	br       bitReader // the consumer's, for the blocks it decodes

	// the window of input read ahead
	wbuf    *[]byte
	win     []byte
	winOff  int64 // stream offset of win[0]
	eof     bool
	readErr error
	next    int64 // stream bit of the next block to make a job of
	done    bool  // no more jobs in this run

	// the block being delivered
	cur *job
	bo  bytesOut
	crc uint32

	disabled  bool // an anomaly was met: sequential for the rest of the input
	accepted  int  // blocks delivered from the parallel path (tests)
	onWorkers int  // of which decoded by a worker goroutine (tests)
}

// decodeHook, when set by a test, is called with +1 when a goroutine
// starts decoding a block and -1 when it is done.
var decodeHook func(delta int)

// startParallel is called by the sequential decoder right after it read
// a block magic and its CRC. It returns false (decode sequentially) when
// parallel decoding is off, disabled, MaxMemory leaves room for fewer
// than two blocks, or no shared token is free.
func (z *Reader) startParallel(crc uint32) bool {
	if z.par != nil && z.par.disabled {
		return false
	}
	level := z.blockSize / 100_000
	w, depth := z.cfg.workers, z.cfg.workers+1
	if z.cfg.maxMem > 0 {
		fit := (z.cfg.maxMem - Memory(level)) / WorkerMemory(level)
		w = int(min(int64(w), fit))
		depth = int(min(int64(depth), fit))
	}
	if w < 2 {
		return false
	}
	if t := z.cfg.tokens; t != nil && !t.TryAcquire() {
		return false
	}
	if z.par == nil {
		z.par = &parallel{z: z}
	}
	p := z.par
	p.workers, p.depth, p.bs = w, depth, z.blockSize
	p.tokens, p.held = z.cfg.tokens, z.cfg.tokens != nil
	// The window starts at the byte holding the magic: the bits before it
	// in that byte are zeros (never read), then the magic and CRC the
	// sequential decoder consumed, then what its bit buffer and byte
	// buffer still hold.
	br := &z.br
	start := br.bitPos() - 80
	p.winOff = start / 8
	if p.wbuf == nil {
		p.wbuf = pool.Get(4 << 20)
	}
	p.win = (*p.wbuf)[:0]
	var bw [24]byte
	nb := 0
	acc, nacc := uint64(0), uint(start%8)
	put := func(v uint64, n uint) {
		for n > 0 {
			k := min(n, 8)
			acc = acc<<k | (v>>(n-k))&(1<<k-1)
			nacc += k
			n -= k
			for nacc >= 8 {
				bw[nb] = byte(acc >> (nacc - 8))
				nb++
				nacc -= 8
			}
		}
	}
	put(blockMagic, 48)
	put(uint64(crc), 32)
	put(br.v&(1<<br.n-1), br.n)
	p.win = append(p.win, bw[:nb]...)
	p.win = append(p.win, br.buf[br.pos:]...)
	br.buf, br.pos, br.n = br.buf[:0], 0, 0
	p.eof = br.eof
	p.readErr = br.err
	p.next = start
	p.done = false
	p.queue = p.queue[:0]
	p.cur = nil
	if p.jobs == nil {
		p.jobs = make(chan *job, 8)
	}
	z.st = stPar
	return true
}

func (p *parallel) worker() {
	defer p.wg.Done()
	var br bitReader
	for j := range p.jobs {
		j.run(&br)
		if j.tokens != nil {
			j.tokens.Release()
		}
		p.inflight.Add(-1)
		j.done <- struct{}{}
	}
}

// drain waits for the jobs on workers and drops every job in flight.
func (p *parallel) drain() {
	for _, j := range p.queue {
		if j.onWorker && !j.ready {
			<-j.done
		}
		j.ready = true
		p.spare = append(p.spare, j)
	}
	p.queue = p.queue[:0]
	p.cur = nil
	if p.held {
		p.tokens.Release()
		p.held = false
	}
}

// stop drops the jobs in flight and ends the worker goroutines.
func (p *parallel) stop() {
	p.drain()
	if p.jobs != nil {
		close(p.jobs)
		p.wg.Wait()
		p.jobs = nil
		p.started = 0
	}
}

// idleJobs keeps whole jobs per block size level (1..9) between readers
// and entries, on internal/pool's free lists that a GC does not empty
// (bounded there; ReleaseMemory drops them). Before, a job's buffers went
// back to the byte pools one by one and the compressed-block copy took
// the size class of each block, so a GC in between, or a bigger block,
// meant allocating MiBs again.
var idleJobs [10]pool.Of[job]

// newJob returns an idle job for block size bs, or a new one with all
// its buffers (a job decoded on the consumer does not use seg, but the
// same job may go to a worker later).
func newJob(bs int) *job {
	j := idleJobs[bs/100_000].Get()
	if j.d == nil {
		*j = job{bs: bs, done: make(chan struct{}, 1), d: decoders.Get(),
			seg: make([]byte, 0, maxBlockBytes(int64(bs))),
			tt:  make([]uint32, bs), outBuf: make([]byte, walkCap(bs))}
	}
	return j
}

// putJob keeps j (decoded, not on a worker) for the next reader.
func putJob(j *job) {
	j.data, j.out, j.spans, j.tokens, j.err = nil, nil, nil, nil, nil
	idleJobs[j.bs/100_000].Put(j)
}

// release gives back every job and pooled buffer.
func (p *parallel) release() {
	for _, j := range p.spare {
		putJob(j)
	}
	p.spare = nil
	p.br.release()
	pool.Put(p.wbuf)
	p.wbuf = nil
}

// run decodes one block of j.
func (j *job) run(br *bitReader) {
	if decodeHook != nil {
		decodeHook(1)
		defer decodeHook(-1)
	}
	j.err = nil
	br.resetBytes(j.data)
	if _, err := br.bits(uint(j.start-j.dataOff*8)+48, "block magic"); err != nil {
		j.err = err
		return
	}
	stored, err := br.bits(32, "block CRC")
	if err != nil {
		j.err = err
		return
	}
	j.stored = stored
	tt := j.tt
	var bi blockInfo
	if err := j.d.decodeBlock(br, tt, &bi); err != nil {
		j.err = err
		return
	}
	j.gotEnd = j.dataOff*8 + br.bitPos()
	out := j.outBuf
	j.d.invert(tt[:bi.n])
	j.spans = j.d.w.walk(tt[:bi.n], bi.origPtr, out)
	if bi.rand {
		derandomise(out, j.spans)
	}
	j.out = out
}

// read delivers decoded bytes in order. It returns 0 with z.st changed
// when the sequential decoder takes over, and sets z.err after the last
// byte of a block whose CRC does not match.
func (p *parallel) read(buf []byte) int {
	z := p.z
	for {
		if p.cur == nil {
			j := p.head()
			if j == nil {
				return 0
			}
			p.cur = j
			p.bo.reset(j.out, j.spans)
			p.crc = ^uint32(0)
		}
		n := p.bo.emit(buf)
		p.crc = crcUpdate(p.crc, buf[:n])
		if p.bo.done() {
			j := p.cur
			p.cur = nil
			copy(p.queue, p.queue[1:])
			p.queue = p.queue[:len(p.queue)-1]
			p.spare = append(p.spare, j)
			c := ^p.crc
			if c != j.stored {
				z.err = blockCRCError(j.stored, c)
				p.stop()
				return n
			}
			z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ c
			p.accepted++
			if j.onWorker {
				p.onWorkers++
			}
			if j.endIsEOS {
				p.handOver(j.end, atStreamEnd)
				return n
			}
		}
		if n > 0 || len(buf) == 0 {
			return n
		}
	}
}

// head returns the next block in stream order, decoded and accepted, or
// nil after handing over to the sequential decoder.
func (p *parallel) head() *job {
	for {
		p.dispatch()
		if len(p.queue) == 0 {
			if p.done {
				p.handOver(p.next, anomaly) // not reached: a last job always fails or ends the stream
				return nil
			}
			if p.tokens != nil {
				// nothing in flight and no token: sequential until one is free
				p.handOver(p.next, noToken)
				return nil
			}
			p.local()
			continue
		}
		j := p.queue[0]
		if !j.ready {
			select {
			case <-j.done:
				j.ready = true
			default:
				if !p.done && len(p.queue) < p.depth {
					p.local() // rather than wait, decode the next block here
					continue
				}
				<-j.done
				j.ready = true
			}
		}
		if j.err != nil || j.end < 0 || j.gotEnd != j.end {
			p.handOver(j.start, anomaly)
			return nil
		}
		return j
	}
}

// Why a run hands over to the sequential decoder.
type handKind uint8

const (
	atStreamEnd handKind = iota // the workers end; the next stream may start a run
	noToken                     // nothing in flight: the workers wait for a later run
	anomaly                     // the workers end; sequential for the rest of the input
)

// handOver stops the run and makes the sequential decoder go on at
// stream bit pos, where a block magic or the end-of-stream magic is
// expected.
func (p *parallel) handOver(pos int64, why handKind) {
	z := p.z
	switch why {
	case noToken:
		p.drain()
	case anomaly:
		p.disabled = true
		fallthrough
	default:
		p.stop()
	}
	// The window from the byte holding pos, then what src still holds,
	// become the pending input of a fresh bit reader.
	k := int(pos/8 - p.winOff)
	rest := z.src.pend
	p.win = append(p.win, rest...)
	pool.Put(z.src.pbuf)
	z.src.pbuf, z.src.pend = nil, nil
	if k < len(p.win) {
		z.src.pend = p.win[k:]
		z.src.pbuf = p.wbuf
		p.wbuf = nil
	}
	p.win = nil
	z.br.resetReader(&z.src)
	z.br.off = pos / 8
	if p.eof {
		// what the window did not hold was never there (or failed)
		z.br.eof = len(z.src.pend) == 0
		z.br.err = p.readErr
		if z.br.err == nil && p.readErr == nil {
			z.src.r = eofReader{}
		}
	}
	if pos%8 != 0 {
		z.br.bits(uint(pos%8), "")
	}
	z.st = stBlock
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Candidate search: a magic starting at bit s (0..7) of byte i fixes
// bytes i+1 and i+2 entirely; prefilter holds, for each 16-bit value of
// those bytes, whether some magic at some shift gives it.
var prefilter = func() (t [1 << 16 / 64]uint64) {
	for _, m := range [2]uint64{blockMagic, eosMagic} {
		for s := range 8 {
			v := (m >> (24 + s)) & 0xFFFF
			t[v/64] |= 1 << (v % 64)
		}
	}
	return t
}()

// pf is 1 when the 16-bit value k of the two bytes after a position
// passes the prefilter.
func pf(k uint64) uint64 { return prefilter[k>>6&1023] >> (k & 63) & 1 }

// find returns the first candidate magic at a stream bit >= from within
// the window, whether it is the end-of-stream magic, and whether the
// search could be completed (false: more input is needed; resume is
// then where a search from the same from may go on).
func (p *parallel) find(from, resume int64) (pos int64, eos, ok bool, next int64) {
	pos, eos, ok, next = p.findMagic(max(from, resume))
	if fakeCandidates > 0 {
		// tests: a false candidate every fakeCandidates bits
		f := (from + fakeCandidates - 1) / fakeCandidates * fakeCandidates
		if f+48 <= (p.winOff+int64(len(p.win)))*8 && (!ok || pos < 0 || f < pos) {
			return f, false, true, 0
		}
		if !ok {
			next = from // no resuming past a false candidate not yet in the window
		}
	}
	return pos, eos, ok, next
}

// fakeCandidates, when set by a test, makes find report a false block
// start every so many bits.
var fakeCandidates int64

func (p *parallel) findMagic(from int64) (pos int64, eos, ok bool, resume int64) {
	w := p.win
	i := int(from/8 - p.winOff)
	if i < 0 {
		i = 0
	}
	for ; ; i++ {
		// Skip seven positions at a time while none passes the prefilter.
		for i+9 <= len(w) {
			v := binary.BigEndian.Uint64(w[i+1:]) // bytes i+1..i+8: the pairs of positions i..i+6
			if pf(v>>48)|pf(v>>40&0xFFFF)|pf(v>>32&0xFFFF)|pf(v>>24&0xFFFF)|
				pf(v>>16&0xFFFF)|pf(v>>8&0xFFFF)|pf(v&0xFFFF) != 0 {
				break
			}
			i += 7
		}
		if i+8 > len(w) {
			if !p.eof {
				// bits from byte i on are still to be looked at
				return 0, false, false, max(from, (p.winOff+int64(i))*8)
			}
			if i >= len(w) {
				return -1, false, true, 0
			}
		}
		var v uint64
		if i+8 <= len(w) {
			v = binary.BigEndian.Uint64(w[i:])
		} else {
			var t [8]byte
			copy(t[:], w[i:])
			v = binary.BigEndian.Uint64(t[:])
		}
		k := (v >> 40) & 0xFFFF
		if prefilter[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for s := range 8 {
			m := (v >> (16 - s)) & (1<<48 - 1)
			if m != blockMagic && m != eosMagic {
				continue
			}
			at := (p.winOff+int64(i))*8 + int64(s)
			if at < from {
				continue
			}
			if i+8 > len(w) && at+48 > (p.winOff+int64(len(w)))*8 {
				continue // runs past the end of the input
			}
			return at, m == eosMagic, true, 0
		}
	}
}

// more reads input into the window, dropping what no job and no
// hand-over can need (before the oldest undelivered block).
func (p *parallel) more() {
	keep := p.next / 8
	if len(p.queue) > 0 {
		keep = p.queue[0].start / 8
	}
	if d := int(keep - p.winOff); d > 0 && d <= len(p.win) {
		p.win = p.win[:copy(p.win, p.win[d:])]
		p.winOff = keep
	}
	if len(p.win) == cap(p.win) {
		nb := pool.Get(2 * cap(p.win))
		p.win = append((*nb)[:0], p.win...)
		pool.Put(p.wbuf)
		p.wbuf = nb
	}
	m, err := p.z.src.Read(p.win[len(p.win):cap(p.win)])
	p.win = p.win[:len(p.win)+m]
	if err != nil {
		p.eof = true
		if err != io.EOF {
			p.readErr = err
		}
	}
}

// nextJob makes a job of the block at p.next (reading input until the
// candidate after it is found) and queues it; its data is the window
// itself, valid until the next call of more.
func (p *parallel) nextJob() *job {
	limit := maxBlockBytes(int64(p.bs)) * 8
	start := p.next
	end, eos, ok, resume := p.find(start+1, 0)
	for !ok {
		if int64(len(p.win))*8-(start-p.winOff*8) > limit {
			end, ok = -1, true // longer than any block: the sequential decoder says why
			break
		}
		p.more()
		end, eos, ok, resume = p.find(start+1, resume)
	}
	j := p.job()
	j.start, j.end, j.endIsEOS = start, end, eos
	j.onWorker, j.tokens, j.ready = false, nil, false
	lo := start / 8
	hi := p.winOff + int64(len(p.win))
	if end >= 0 {
		hi = min(hi, (end+7)/8)
	}
	j.data = p.win[lo-p.winOff : hi-p.winOff]
	j.dataOff = lo
	p.queue = append(p.queue, j)
	if end < 0 || eos {
		p.done = true
	} else {
		p.next = end
	}
	return j
}

// local decodes the next block on the consumer's goroutine.
func (p *parallel) local() {
	j := p.nextJob()
	j.run(&p.br)
	j.data = nil
	j.ready = true
}

// dispatch hands blocks to worker goroutines while tokens allow one
// more goroutine to decode and the blocks in flight fit.
func (p *parallel) dispatch() {
	for !p.done && len(p.queue) < p.depth && int(p.inflight.Load()) < p.workers-1 {
		switch {
		case p.held:
			p.held = false
		case p.tokens != nil && !p.tokens.TryAcquire():
			return
		}
		j := p.nextJob()
		// Only a job with no end found (end < 0, handed over whatever
		// it decodes) can hold more than any block.
		j.data = append(j.seg[:0], j.data[:min(len(j.data), cap(j.seg))]...)
		j.onWorker, j.tokens = true, p.tokens
		if n := p.inflight.Add(1); p.started < int(n) {
			p.started++
			p.wg.Add(1)
			go p.worker()
		}
		p.jobs <- j
	}
}

func (p *parallel) job() *job {
	for n := len(p.spare); n > 0; n-- {
		j := p.spare[n-1]
		p.spare = p.spare[:n-1]
		if j.bs == p.bs {
			return j
		}
		putJob(j) // from a stream of another block size
	}
	return newJob(p.bs)
}

package bzip2

import (
	"encoding/binary"
	"io"
	"sync"
	"unsafe"

	"github.com/go-unarc/unarc/internal/pool"
)

// Parallel decoding (Workers > 1).
//
// Blocks are independent once their first bit is known, and each starts
// with the 48-bit block magic at any bit offset. The consumer (the
// goroutine calling Read) reads the input ahead into a window, scans it
// for candidate magics (block or end of stream), and hands each stretch
// from one candidate to the next, copied, to a worker. The worker
// decodes the block completely (symbols, inverse BWT, the walk into the
// block's pre-RLE1 bytes, the block CRC over the expanded output) and
// notes the bit where it ended. The consumer takes results in stream
// order and accepts a block only if it decoded without error, its CRC
// matched, and it ended exactly at the next candidate. Anything else (a
// magic inside compressed data splitting a block, a damaged block, input
// that ends, a block longer than any valid one) makes the consumer
// discard the work in flight and go on sequentially from the start of
// that block, for the rest of the input: data and errors are then those
// of the sequential decoder, by construction. A stream's end also hands
// over to the sequential decoder (it checks the stream CRC and what
// follows), which re-enters parallel mode at the next stream's first
// block.

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

type job struct {
	// input
	seg      *[]byte // the compressed block, from the byte holding its magic
	data     []byte
	dataOff  int64 // stream offset of data[0]
	start    int64 // stream bit of the magic
	end      int64 // stream bit of the next candidate; -1: none found
	endIsEOS bool
	bs       int

	// output
	d      *decoder
	ttp    *[]byte
	lfp    *[]byte
	outp   *[]byte
	out    []byte // pre-RLE1 bytes, derandomised
	stored uint32
	crc    uint32
	gotEnd int64
	err    error
	done   chan struct{}
}

type parallel struct {
	z       *Reader
	workers int
	bs      int
	jobs    chan *job
	wg      sync.WaitGroup
	running bool
	queue   []*job // dispatched, in stream order
	spare   []*job

	// the window of input read ahead
	wbuf    *[]byte
	win     []byte
	winOff  int64 // stream offset of win[0]
	eof     bool
	readErr error
	next    int64 // stream bit of the last dispatched candidate
	done    bool  // no more dispatching in this run

	// the block being delivered
	cur *job
	bo  bytesOut

	disabled bool // an anomaly was met: sequential for the rest of the input
	accepted int  // blocks delivered from workers (for tests)
}

// startParallel is called by the sequential decoder right after it read
// a block magic and its CRC. It returns false (decode sequentially) when
// parallel decoding is off, disabled, or MaxMemory leaves room for fewer
// than two workers.
func (z *Reader) startParallel(crc uint32) bool {
	if z.par != nil && z.par.disabled {
		return false
	}
	level := z.blockSize / 100_000
	w := z.cfg.workers
	if z.cfg.maxMem > 0 {
		w = int(min(int64(w), (z.cfg.maxMem-Memory(level))/WorkerMemory(level)))
	}
	if w < 2 {
		return false
	}
	if z.par == nil {
		z.par = &parallel{z: z}
	}
	p := z.par
	p.workers, p.bs = w, z.blockSize
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

	p.jobs = make(chan *job, w)
	p.running = true
	for range w {
		p.wg.Add(1)
		go p.worker()
	}
	z.st = stPar
	return true
}

func (p *parallel) worker() {
	defer p.wg.Done()
	var br bitReader
	for j := range p.jobs {
		j.run(&br)
		j.done <- struct{}{}
	}
}

// stop ends the run: waits for the workers, drops the jobs in flight.
func (p *parallel) stop() {
	if !p.running {
		return
	}
	close(p.jobs)
	p.wg.Wait()
	for _, j := range p.queue {
		select {
		case <-j.done:
		default:
		}
		p.spare = append(p.spare, j)
	}
	if p.cur != nil {
		p.cur = nil
	}
	p.queue = p.queue[:0]
	p.running = false
}

// release gives back every pooled buffer.
func (p *parallel) release() {
	for _, j := range p.spare {
		pool.Put(j.seg)
		pool.Put(j.ttp)
		pool.Put(j.lfp)
		pool.Put(j.outp)
		decoders.Put(j.d)
	}
	p.spare = nil
	pool.Put(p.wbuf)
	p.wbuf = nil
}

// run decodes one block of j on a worker.
func (j *job) run(br *bitReader) {
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
	if j.d == nil {
		j.d = decoders.Get()
	}
	if j.ttp == nil || cap(*j.ttp) < 4*j.bs {
		pool.Put(j.ttp)
		j.ttp = pool.Get(4 * j.bs)
	}
	tt := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*j.ttp))), j.bs)
	var bi blockInfo
	if err := j.d.decodeBlock(br, tt, &bi); err != nil {
		j.err = err
		return
	}
	j.gotEnd = j.dataOff*8 + br.bitPos()
	if j.outp == nil || cap(*j.outp) < j.bs {
		pool.Put(j.outp)
		j.outp = pool.Get(j.bs)
	}
	if j.lfp == nil || cap(*j.lfp) < 4*j.bs {
		pool.Put(j.lfp)
		j.lfp = pool.Get(4 * j.bs)
	}
	lf := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*j.lfp))), j.bs)
	out := (*j.outp)[:bi.n]
	j.d.invert(tt[:bi.n], lf)
	walk2(tt, lf, bi.origPtr, out)
	if bi.rand {
		var wk walk
		for i := range out {
			out[i] ^= wk.randMask()
		}
	}
	j.out = out
	j.crc = ^rle1CRC(out)
}

// rle1CRC is the CRC register over the RLE1 expansion of s.
func rle1CRC(s []byte) uint32 {
	var buf [4096]byte
	c := ^uint32(0)
	n := 0
	var last byte
	cnt := 0
	for _, b := range s {
		if cnt == 4 {
			k := int(b)
			for k > 0 {
				if n == len(buf) {
					c = crcUpdate(c, buf[:n])
					n = 0
				}
				m := min(k, len(buf)-n)
				q := buf[n : n+m]
				for i := range q {
					q[i] = last
				}
				n += m
				k -= m
			}
			cnt = 0
			continue
		}
		if b != last {
			last, cnt = b, 1
		} else {
			cnt++
		}
		if n == len(buf) {
			c = crcUpdate(c, buf[:n])
			n = 0
		}
		buf[n] = b
		n++
	}
	return crcUpdate(c, buf[:n])
}

// read delivers decoded bytes in order. It returns 0 with z.st changed
// when the sequential decoder takes over.
func (p *parallel) read(buf []byte) int {
	z := p.z
	for {
		if p.cur == nil {
			p.dispatch()
			if len(p.queue) == 0 {
				p.handOver(p.next, true)
				return 0
			}
			j := p.queue[0]
			<-j.done
			if j.err != nil || j.end < 0 || j.gotEnd != j.end || j.crc != j.stored {
				p.handOver(j.start, true)
				return 0
			}
			p.cur = j
			p.bo.reset(j.out)
		}
		n := p.bo.emit(buf)
		if p.bo.done() {
			j := p.cur
			z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ j.crc
			p.accepted++
			p.cur = nil
			p.queue = p.queue[1:]
			p.spare = append(p.spare, j)
			if j.endIsEOS {
				p.handOver(j.end, false)
				return n
			}
		}
		if n > 0 || len(buf) == 0 {
			return n
		}
	}
}

// handOver stops the run and makes the sequential decoder go on at
// stream bit pos, where a block magic or the end-of-stream magic is
// expected. anomaly disables parallel decoding for the rest of the input.
func (p *parallel) handOver(pos int64, anomaly bool) {
	z := p.z
	p.stop()
	if anomaly {
		p.disabled = true
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

// find returns the first candidate magic at a stream bit >= from within
// the window, whether it is the end-of-stream magic, and whether the
// search could be completed (false: more input is needed).
func (p *parallel) find(from int64) (pos int64, eos, ok bool) {
	pos, eos, ok = p.findMagic(from)
	if fakeCandidates > 0 {
		// tests: a false candidate every fakeCandidates bits
		f := (from + fakeCandidates - 1) / fakeCandidates * fakeCandidates
		if f+48 <= (p.winOff+int64(len(p.win)))*8 && (!ok || pos < 0 || f < pos) {
			return f, false, true
		}
	}
	return pos, eos, ok
}

// fakeCandidates, when set by a test, makes find report a false block
// start every so many bits.
var fakeCandidates int64

func (p *parallel) findMagic(from int64) (pos int64, eos, ok bool) {
	w := p.win
	i := int(from/8 - p.winOff)
	if i < 0 {
		i = 0
	}
	for ; ; i++ {
		if i+8 > len(w) {
			if !p.eof {
				return 0, false, false
			}
			if i >= len(w) {
				return -1, false, true
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
			return at, m == eosMagic, true
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

// dispatch finds candidates and hands blocks to the workers until
// Workers blocks are in flight or the run has nothing more to give.
func (p *parallel) dispatch() {
	limit := maxBlockBytes(int64(p.bs)) * 8
	for !p.done && len(p.queue) < p.workers {
		start := p.next
		end, eos, ok := p.find(start + 1)
		for !ok {
			if int64(len(p.win))*8-(start-p.winOff*8) > limit {
				end, ok = -1, true // longer than any block: the sequential decoder says why
				break
			}
			p.more()
			end, eos, ok = p.find(start + 1)
		}
		j := p.job()
		j.start, j.end, j.endIsEOS, j.bs = start, end, eos, p.bs
		lo := start / 8
		hi := p.winOff + int64(len(p.win))
		if end >= 0 {
			hi = min(hi, (end+7)/8)
		}
		n := int(hi - lo)
		if j.seg == nil || cap(*j.seg) < n {
			pool.Put(j.seg)
			j.seg = pool.Get(n)
		}
		j.data = append((*j.seg)[:0], p.win[lo-p.winOff:hi-p.winOff]...)
		j.dataOff = lo
		p.queue = append(p.queue, j)
		p.jobs <- j
		if end < 0 || eos {
			p.done = true
		} else {
			p.next = end
		}
	}
}

func (p *parallel) job() *job {
	if n := len(p.spare); n > 0 {
		j := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return j
	}
	return &job{done: make(chan struct{}, 1)}
}

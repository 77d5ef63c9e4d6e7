package unpack50

import (
	"encoding/binary"
	"io"
	"sync/atomic"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Pipelined decoding (SetWorkers > 1), in the manner of unrar's Unpack5MT.
//
// A RAR 5 compressed block starts with a byte-aligned header that gives
// its size, so the packed stream can be cut into blocks without decoding
// them. The caller's goroutine (stage 2) cuts it into segments (a block
// with Huffman tables, plus the blocks after it that reuse those tables)
// and hands each segment to a worker goroutine (stage 1), which decodes
// its symbols into tokens: literal bytes, new matches with their
// distance, repeated-distance and last-match references, filter records
// with their offset relative to the output position. Stage 2 then applies
// the tokens in stream order to the window exactly as the sequential
// decoder applies symbols: it resolves the repeated distances, places the
// filters, and stops at the same points (window end, entry size budget,
// filter queue), so output, errors and where they appear are those of the
// sequential decoder.
//
// Whatever a worker cannot vouch for goes back to the sequential decoder
// at the exact bit where it stops: a symbol that reads past its segment,
// a block whose symbols end beyond the size its header gives (corrupt
// data), a header the cutter cannot use (bad checksum, the input ends, a
// block larger than a segment buffer). The rest of the entry is then
// decoded sequentially from the bytes the pipeline already read
// (replayed) and the rest of the input.
//
// Memory: at most inFlight segments, each with a 64 KiB input copy, its
// token buffers and its own tables (PipelineMemory), all reused from one
// entry to the next; nothing is allocated per block once warm.

const (
	jobOps  = 16 << 10                                // token words per job pass
	jobLits = 64 << 10                                // literal bytes per job pass
	jobCost = inBufSize + jobOps*8 + jobLits + 16<<10 // input, tokens, tables
)

// Token words: kind in the low 3 bits.
const (
	opLit    = iota // run of op>>3 literal bytes from lits
	opMatch         // length (op>>3)&0x1fff, distance op>>16
	opRep           // length (op>>3)&0x1fff, old distance index op>>16
	opLast          // repeat the last match
	opFilter        // type (op>>3)&3, channels (op>>5)&63, length op>>16; next word: start
)

// segMax is the largest segment (block headers and data) a job takes;
// larger blocks are decoded sequentially. A variable for tests.
var segMax = inBufSize - inPad - 8

// PipelineMemory is the memory a decoder with SetWorkers(workers) uses
// beyond its window.
func PipelineMemory(workers int) int64 {
	if workers <= 1 {
		return 0
	}
	return int64(inFlight(workers)) * jobCost
}

func inFlight(workers int) int { return min(2*workers, 16) }

// SetWorkers sets how many goroutines d may decode with from the next
// Reset on: n > 1 decodes through the pipeline (n workers cutting
// Huffman symbols, the caller's goroutine applying them), unless a
// checkpoint hook is set. Close stops the workers.
func (d *Decoder) SetWorkers(n int) {
	if n > 1 && d.pl != nil && d.pl.workers != n {
		d.pl.stop()
		d.pl = nil
	}
	d.workers = n
}

// Counters for tests: entries started pipelined, segments whose tokens
// were applied, and switches to the sequential decoder (at a header the
// cutter left, and replays after a worker stopped).
var pipelinedEntries, pipelinedJobs, toSequentialAt, replays atomic.Int64

// job is one segment on its way through the pipeline.
type job struct {
	d        Decoder // stage 1: static bit reader over the segment, tables, block state
	inp      *[]byte
	base     int64 // stream offset of the segment's first byte
	n        int   // segment length
	marker   bool  // not a segment: the sequential decoder continues here
	final    bool  // the segment holds the entry's last block
	runStart int   // lits[runStart:] is a literal run with no op yet

	ops  []uint64
	lits []byte

	// Stage 1's outcome, read after ready.
	partial bool  // the token buffers filled up: submit again to go on
	stopBit int64 // >= 0: decoding must go on sequentially from this bit
	err     error // a decoding error after the tokens

	// Stage 2's position in the tokens.
	opi, liti, runLeft int

	ready   chan struct{}
	waiting bool // submitted, ready not yet received
}

type pipeline struct {
	workers int
	jobs    chan *job
	all     []*job
	free    []*job
	q       []*job // in stream order; q[0] is being applied
	scanned bool   // the cutter is done with this entry
	cuts    int    // segments cut in this entry
	applied int64  // tokens applied: progress for fillOut
	replayp *[]byte
	rp      replayReader
}

// pipelines keeps stopped pipelines (their jobs' buffers and tables) for
// the next decoder that pipelines.
var pipelines = pool.Of[pipeline]{New: func() *pipeline { return new(pipeline) }}

func newPipeline(workers int) *pipeline {
	k := inFlight(workers)
	p := pipelines.Get()
	p.workers, p.applied = workers, 0
	p.jobs = make(chan *job, k)
	if cap(p.q) < k {
		p.q = make([]*job, 0, k)
	}
	for len(p.all) < k {
		j := &job{ready: make(chan struct{}, 1)}
		j.ops = make([]uint64, 0, jobOps)
		j.lits = make([]byte, 0, jobLits)
		p.all = append(p.all, j)
	}
	p.free = p.free[:0]
	for _, j := range p.all[:k] {
		if j.inp == nil {
			j.inp = pool.Get(inBufSize)
		}
		if j.d.t == nil {
			j.d.t = tablePool.Get()
		}
		p.free = append(p.free, j)
	}
	for range workers {
		go func(jobs <-chan *job) {
			for j := range jobs {
				j.decode()
				j.ready <- struct{}{}
			}
		}(p.jobs)
	}
	return p
}

// wait blocks until stage 1 is done with j.
func (p *pipeline) wait(j *job) {
	if j.waiting {
		<-j.ready
		j.waiting = false
	}
}

func (p *pipeline) submit(j *job) {
	j.waiting = true
	p.jobs <- j
}

// drain waits for every job in flight and forgets them.
func (p *pipeline) drain() {
	for _, j := range p.q {
		p.wait(j)
		p.free = append(p.free, j)
	}
	p.q = p.q[:0]
	pool.Put(p.replayp)
	p.replayp = nil
	p.rp = replayReader{}
}

// stop ends the workers; the jobs keep their buffers for the next
// pipeline (pipelines).
func (p *pipeline) stop() {
	p.drain()
	close(p.jobs)
	p.jobs = nil
	for _, j := range p.all {
		t := j.d.t
		j.d = Decoder{t: t}
		j.ops, j.lits = j.ops[:0], j.lits[:0]
	}
	pipelines.Put(p)
}

// startTokens begins an entry in pipelined mode.
func (d *Decoder) startTokens() {
	if d.pl == nil {
		d.pl = newPipeline(d.workers)
	}
	p := d.pl
	p.drain()
	pipelinedEntries.Add(1)
	p.scanned, p.cuts = false, 0
	d.tok = true
	for len(p.free) > 0 && !p.scanned {
		d.cut()
	}
}

// cut queues the next segment of the input, or the marker that sends
// the rest of the entry to the sequential decoder.
func (d *Decoder) cut() {
	p := d.pl
	br := &d.br
	hl, size, flags, ok := d.peekHeader(0)
	seg := hl + size
	if !ok || seg > segMax || flags&0x80 == 0 && p.cuts > 0 {
		// A header the sequential decoder must judge, a block too big
		// for a job, or one that needs tables still being decoded.
		d.queueMarker()
		return
	}
	p.cuts++
	final := flags&0x40 != 0
	for !final {
		hl2, size2, flags2, ok := d.peekHeader(seg)
		if !ok || flags2&0x80 != 0 || seg+hl2+size2 > segMax {
			break
		}
		seg += hl2 + size2
		final = flags2&0x40 != 0
	}
	if !br.fillN(seg) {
		d.queueMarker()
		return
	}
	j := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	in := (*j.inp)[:inBufSize]
	copy(in, br.buf[br.pos:br.pos+seg])
	clear(in[seg : seg+inPad])
	j.base = br.base + int64(br.pos)
	j.n = seg
	br.pos += seg
	j.marker, j.final, j.runStart = false, final, 0
	j.ops, j.lits = j.ops[:0], j.lits[:0]
	j.partial, j.stopBit, j.err = false, -1, nil
	j.opi, j.liti, j.runLeft = 0, 0, 0
	jd := &j.d
	jd.br = bitReader{buf: in, end: seg, eof: true, base: j.base}
	jd.extraDist = d.extraDist
	jd.blockEnd, jd.lastBlock = -1, false
	jd.haveTables = false
	if flags&0x80 == 0 {
		// The entry's first block reuses the previous entry's tables.
		jd.haveTables = d.haveTables
		if d.haveTables {
			*jd.t = *d.t
		}
	}
	p.q = append(p.q, j)
	p.submit(j)
	if final {
		p.scanned = true
	}
}

func (d *Decoder) queueMarker() {
	p := d.pl
	j := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	j.marker = true
	p.q = append(p.q, j)
	p.scanned = true
}

// peekHeader parses the block header at byte off of the unread input
// without consuming it; ok is false when it is not all there or not
// valid (the sequential decoder then reads it and reports why).
func (d *Decoder) peekHeader(off int) (hl, size int, flags byte, ok bool) {
	br := &d.br
	if !br.fillN(off + 6) {
		if !br.fillN(off + 3) {
			return 0, 0, 0, false
		}
	}
	b := br.buf[br.pos+off : br.end]
	flags = b[0]
	count := int(flags>>3&3) + 1
	if count == 4 || len(b) < 2+count {
		return 0, 0, 0, false
	}
	var s uint32
	for i := range count {
		s |= uint32(b[2+i]) << (8 * i)
	}
	if byte(0x5a^uint32(flags)^s^s>>8^s>>16) != b[1] {
		return 0, 0, 0, false
	}
	return 2 + count, int(s), flags, true
}

// headJob returns the job whose tokens come next, waiting for it; nil
// when the entry's stream is done, an error ends it, or decoding went
// sequential (d.tok false).
func (d *Decoder) headJob() (*job, error) {
	p := d.pl
	for {
		if len(p.q) == 0 {
			if p.scanned {
				// Cannot happen: the last job sets streamDone.
				return nil, errs.Corrupt("rar5: pipeline ran dry")
			}
			d.cut()
			continue
		}
		j := p.q[0]
		if j.marker {
			d.toSequential()
			return nil, nil
		}
		p.wait(j)
		if j.opi < len(j.ops) {
			return j, nil
		}
		if j.err != nil {
			return nil, j.err
		}
		if j.partial {
			j.ops, j.lits = j.ops[:0], j.lits[:0]
			j.opi, j.liti, j.runLeft = 0, 0, 0
			j.partial, j.runStart = false, 0
			p.submit(j)
			continue
		}
		if j.stopBit >= 0 {
			d.replay(j)
			return nil, nil
		}
		// Done: its tables are the current ones.
		pipelinedJobs.Add(1)
		d.t, j.d.t = j.d.t, d.t
		d.haveTables = j.d.haveTables
		p.q = p.q[:copy(p.q, p.q[1:])]
		p.free = append(p.free, j)
		if j.final {
			d.streamDone = true
			return nil, nil
		}
		for len(p.free) > 0 && !p.scanned {
			d.cut()
		}
	}
}

// toSequential continues the entry with the sequential decoder at the
// next unread block header of d.br (all queued jobs are applied).
func (d *Decoder) toSequential() {
	p := d.pl
	p.drain()
	toSequentialAt.Add(1)
	d.tok = false
	d.blockEnd, d.lastBlock = d.br.bitPos(), false
}

// replay continues the entry with the sequential decoder at j.stopBit:
// the bytes from there that the pipeline holds are read again, then the
// rest of the input.
func (d *Decoder) replay(j *job) {
	p := d.pl
	br := &d.br
	replays.Add(1)
	stop := j.stopBit
	d.t, j.d.t = j.d.t, d.t
	d.haveTables = j.d.haveTables
	d.blockEnd, d.lastBlock = j.d.blockEnd, j.d.lastBlock
	from := int(stop>>3 - j.base)
	n := j.n - from
	for _, k := range p.q[1:] {
		if !k.marker {
			n += k.n
		}
	}
	n += br.end - br.pos
	bp := pool.Get(max(n, 1))
	b := (*bp)[:0]
	b = append(b, (*j.inp)[from:j.n]...)
	for _, k := range p.q[1:] {
		if !k.marker {
			b = append(b, (*k.inp)[:k.n]...)
		}
	}
	b = append(b, br.buf[br.pos:br.end]...)
	src, eof, rerr := br.r, br.eof, br.rerr
	p.drain()
	p.replayp = bp
	p.rp = replayReader{b: b, r: src, eof: eof, err: rerr}
	br.reset(&p.rp)
	br.base = stop >> 3
	br.fill()
	br.get(uint(stop & 7))
	d.tok = false
}

// replayReader reads b, then r (unless r had already ended with err).
type replayReader struct {
	b   []byte
	r   io.Reader
	eof bool
	err error
}

func (r *replayReader) Read(p []byte) (int, error) {
	if len(r.b) > 0 {
		n := copy(p, r.b)
		r.b = r.b[n:]
		return n, nil
	}
	if r.eof {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	return r.r.Read(p)
}

// tokenMatch applies a match token's effect on the repeated distances
// and returns what to copy (length 0: nothing).
func (d *Decoder) tokenMatch(op uint64) (int, uint64) {
	switch op & 7 {
	case opMatch:
		length, dist := int(op>>3&0x1fff), op>>16
		d.oldDist[3], d.oldDist[2], d.oldDist[1], d.oldDist[0] = d.oldDist[2], d.oldDist[1], d.oldDist[0], dist
		d.lastLen = length
		return length, dist
	case opRep:
		n := op >> 16 & 3
		dist := d.oldDist[n]
		for i := n; i > 0; i-- {
			d.oldDist[i] = d.oldDist[i-1]
		}
		d.oldDist[0] = dist
		d.lastLen = int(op >> 3 & 0x1fff)
		return d.lastLen, dist
	}
	// opLast
	return d.lastLen, d.oldDist[0]
}

// tokenFilter queues the filter of the token at j.ops[j.opi].
func (d *Decoder) tokenFilter(j *job) error {
	op := j.ops[j.opi]
	f := filter{start: d.total + int64(uint32(j.ops[j.opi+1])), length: int(op >> 16),
		typ: byte(op >> 3 & 3), channels: int(op >> 5 & 63)}
	j.opi += 2
	if d.queueFilter(f) {
		return errs.Corrupt("rar5: more than %d pending filters", maxFilters)
	}
	return nil
}

// applyTokens is lz for pipelined decoding: it applies tokens while
// d.w < stopW.
func (d *Decoder) applyTokens(stopW int) error {
	p := d.pl
	for d.w < stopW {
		j, err := d.headJob()
		if j == nil {
			if err != nil || d.streamDone {
				return err
			}
			return d.lz(stopW)
		}
		for d.w < stopW && j.opi < len(j.ops) {
			op := j.ops[j.opi]
			p.applied++
			switch op & 7 {
			case opLit:
				if j.runLeft == 0 {
					j.runLeft = int(op >> 3)
				}
				k := min(j.runLeft, stopW-d.w)
				copy(d.win[d.w:d.w+k], j.lits[j.liti:j.liti+k])
				d.w += k
				d.total += int64(k)
				j.liti += k
				if j.runLeft -= k; j.runLeft == 0 {
					j.opi++
				}
			case opFilter:
				if err := d.tokenFilter(j); err != nil {
					return err
				}
				if len(d.filters)-d.fhead >= maxFilters {
					return nil
				}
			default:
				j.opi++
				if length, dist := d.tokenMatch(op); length != 0 {
					d.copyMatch(length, dist)
				}
			}
		}
	}
	return nil
}

// applyCareful is carefulSymbol for pipelined decoding: one token, with
// writes wrapping at the window end.
func (d *Decoder) applyCareful() error {
	j, err := d.headJob()
	if j == nil {
		if err != nil || d.streamDone {
			return err
		}
		return d.carefulSymbol()
	}
	d.pl.applied++
	op := j.ops[j.opi]
	switch op & 7 {
	case opLit:
		if j.runLeft == 0 {
			j.runLeft = int(op >> 3)
		}
		d.win[d.w] = j.lits[j.liti]
		if d.w++; d.w == d.wsize {
			d.w = 0
		}
		d.total++
		j.liti++
		if j.runLeft--; j.runLeft == 0 {
			j.opi++
		}
	case opFilter:
		return d.tokenFilter(j)
	default:
		j.opi++
		if length, dist := d.tokenMatch(op); length != 0 {
			d.copyWrap(length, dist)
		}
	}
	return nil
}

// Stage 1.

// decode runs a job's segment (or the rest of it) into tokens.
func (j *job) decode() {
	j.run()
	j.closeRun()
}

func (j *job) run() {
	d := &j.d
	br := &d.br
	end := j.base + int64(j.n)
	for {
		bp := br.bitPos()
		if bp >= d.blockEnd {
			if d.blockEnd >= 0 {
				if d.lastBlock {
					return
				}
				if (bp+7)>>3 != (d.blockEnd+7)>>3 {
					// The symbols ran past the block's size: corrupt
					// data, judged by the sequential decoder.
					j.stopBit = bp
					return
				}
				if (bp+7)>>3 >= end {
					return
				}
			}
			be, lb := d.blockEnd, d.lastBlock
			err := d.readBlockHeader()
			if br.bitPos() > br.endBits() {
				d.blockEnd, d.lastBlock = be, lb
				j.stopBit = bp
				return
			}
			if err != nil {
				j.err = err
				return
			}
			continue
		}
		if !j.symbols() {
			return
		}
	}
}

// symbols decodes the current block's symbols into tokens; false when
// the job stops before the block's end (token space, stopBit, err).
// Literal runs are closed (their op written) by the next other token
// and by closeRun when the job stops.
func (j *job) symbols() bool {
	d := &j.d
	br := &d.br
	t := d.t
	quick := &t.ld.quick
	ops, lits := j.ops, j.lits
	runStart := j.runStart
	be := int(d.blockEnd>>3 - br.base)
	fastLimit := min(br.end-fastMargin, be)
	bits, n, pos := br.bits, br.n, br.pos
	buf := br.buf
	for {
		// A symbol adds at most three ops (a closed run, a filter's
		// two) and one literal.
		room := min((cap(ops)-len(ops))/3, cap(lits)-len(lits))
		if room == 0 || pos >= fastLimit {
			br.bits, br.n, br.pos = bits, n, pos
			j.ops, j.lits, j.runStart = ops, lits, runStart
			if room == 0 {
				j.partial = true
				return false
			}
			// Near the block or segment end: one symbol at a time,
			// checked; one that reads past the segment is undone.
			bp := br.bitPos()
			if bp >= d.blockEnd {
				return true
			}
			no, nl, rs := len(j.ops), len(j.lits), j.runStart
			err := j.symbol(br.decodeSym(&t.ld))
			if br.bitPos() > br.endBits() {
				j.ops, j.lits, j.runStart = j.ops[:no], j.lits[:nl], rs
				j.stopBit = bp
				return false
			}
			if err != nil {
				j.err = err
				return false
			}
			bits, n, pos = br.bits, br.n, br.pos
			ops, lits, runStart = j.ops, j.lits, j.runStart
			continue
		}
		for ; room > 0 && pos < fastLimit; room-- {
			if n <= 56 {
				bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
				pos += int(63-n) >> 3
				n |= 56
			}
			var sym uint
			if e := quick[bits>>(64-mainQuickBits)&(1<<mainQuickBits-1)]; e != 0 {
				l := uint(e & 15)
				bits <<= l
				n -= l
				sym = uint(e >> 4)
			} else {
				s, l := t.ld.slow(uint32(bits >> 48))
				bits <<= l
				n -= l
				sym = uint(s)
			}
			if sym < 256 {
				lits = append(lits, byte(sym))
				continue
			}
			if len(lits) > runStart {
				ops = append(ops, uint64(len(lits)-runStart)<<3) // kind opLit (0)
				runStart = len(lits)
			}
			if sym >= 262 {
				// A deliberate copy of lz's fast match path, writing a
				// token: the bit buffer stays in locals (bits, n, pos)
				// across the symbol, which a shared function would
				// spill on every match. Keep the two in step.
				slot := sym - 262
				length := uint64(lenBase[slot&63])
				if lb := uint(lenBits[slot&63]); lb > 0 {
					length += bits >> (64 - lb)
					bits <<= lb
					n -= lb
				}
				if n <= 56 {
					bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
					pos += int(63-n) >> 3
					n |= 56
				}
				var ds uint
				if e := t.dd.quick[bits>>(64-distQuickBits)]; e != 0 {
					ds = uint(e >> 4)
					bits <<= e & 15
					n -= uint(e & 15)
				} else {
					var l uint
					ds, l = t.dd.slowBits(bits)
					bits <<= l
					n -= l
				}
				dist := distBase[ds&127]
				if db := uint(distBits[ds&127]); db >= 4 {
					if db > 4 {
						if n <= 56 {
							bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
							pos += int(63-n) >> 3
							n |= 56
						}
						dist += (bits >> (64 - (db - 4))) << 4
						bits <<= db - 4
						n -= db - 4
					}
					if n <= 56 {
						bits |= binary.BigEndian.Uint64(buf[pos:]) >> n
						pos += int(63-n) >> 3
						n |= 56
					}
					if e := t.ldd.quick[bits>>(64-lowQuickBits)]; e != 0 {
						dist += uint64(e >> 4)
						bits <<= e & 15
						n -= uint(e & 15)
					} else {
						low, l := t.ldd.slowBits(bits)
						bits <<= l
						n -= l
						dist += uint64(low)
					}
				} else if db > 0 {
					dist += bits >> (64 - db)
					bits <<= db
					n -= db
				}
				length += uint64(distBonus(dist))
				ops = append(ops, opMatch|length<<3|dist<<16)
				continue
			}
			br.bits, br.n, br.pos = bits, n, pos
			j.ops, j.lits, j.runStart = ops, lits, runStart
			if err := j.symbol(sym); err != nil {
				j.err = err
				return false
			}
			bits, n, pos = br.bits, br.n, br.pos
			ops, lits, runStart = j.ops, j.lits, j.runStart
		}
	}
}

// closeRun writes the op of the literal run in progress.
func (j *job) closeRun() {
	if len(j.lits) > j.runStart {
		j.ops = append(j.ops, uint64(len(j.lits)-j.runStart)<<3) // kind opLit (0)
		j.runStart = len(j.lits)
	}
}

// symbol turns main symbol sym, and the bits after it, into tokens
// (the careful path, through br).
func (j *job) symbol(sym uint) error {
	d := &j.d
	br := &d.br
	if sym < 256 {
		j.lits = append(j.lits, byte(sym))
		return nil
	}
	j.closeRun()
	switch {
	case sym >= 262:
		slot := sym - 262
		length := uint64(lenBase[slot])
		if lb := uint(lenBits[slot]); lb > 0 {
			length += uint64(br.get(lb))
		}
		ds := br.decodeSym(&d.t.dd)
		dist := distBase[ds]
		if db := uint(distBits[ds]); db >= 4 {
			if db > 4 {
				br.refill()
				dist += (br.bits >> (64 - (db - 4))) << 4
				br.skip(db - 4)
			}
			dist += uint64(br.decodeSym(&d.t.ldd))
		} else if db > 0 {
			dist += uint64(br.get(db))
		}
		length += uint64(distBonus(dist))
		j.ops = append(j.ops, opMatch|length<<3|dist<<16)
	case sym == 256:
		start := br.readFilterData()
		length := br.readFilterData()
		if length > maxFilterSize {
			length = 0 // unrar ignores such a filter
		}
		typ := br.get(3)
		ch := uint32(0)
		if typ == filterDelta {
			ch = br.get(5) + 1
		}
		if typ > filterARM {
			return br.corrupt("rar5: unknown filter type %d", typ)
		}
		j.ops = append(j.ops, opFilter|uint64(typ)<<3|uint64(ch)<<5|uint64(length)<<16, uint64(start))
	case sym == 257:
		j.ops = append(j.ops, opLast)
	default:
		slot := br.decodeSym(&d.t.rd)
		length := uint64(lenBase[slot])
		if lb := uint(lenBits[slot]); lb > 0 {
			length += uint64(br.get(lb))
		}
		j.ops = append(j.ops, opRep|length<<3|uint64(sym-258)<<16)
	}
	return nil
}

package lzma

import (
	"bytes"
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// Reader2MT decodes an LZMA2 stream on several goroutines where the stream
// allows it: a chunk that resets the dictionary (control byte 0x01 or
// 0xE0 and above) starts a block that depends on nothing before it, as
// 7-Zip's multi-threaded LZMA2 encoder and our block mode (writer2_mt.go)
// write them. The chunk headers carry packed and unpacked sizes, so the
// stream is split into blocks without decoding; up to Workers blocks are
// decoded at once, each into a buffer of its declared size, and handed
// on in order. The output is byte-identical to Reader2's.
//
// Anything that does not look like such a stream — a block larger than
// 7-Zip's block size for the dictionary (a single-threaded stream is one
// block), a malformed or truncated header, sizes that disagree with the
// declared total — hands the rest of the stream, from the start of the
// block in question, to one Reader2 after the blocks before it were
// delivered: errors come out at the same place and with the same text as
// from Reader2 alone. Memory: at most Workers blocks in flight, each its
// packed bytes, its output and its decoder's window (min(dict, block)).
//
// The first block is buffered only up to seqProbe bytes: a longer one
// goes to Reader2 at once, reading through a blockEdge that stops it at
// the next dictionary reset, from where the rest is split into blocks as
// above. A single-block stream (7-Zip -mmt1, a solid 7z) so costs no
// buffering; a multi-block one decodes its first block alone.
type Reader2MT struct {
	r        io.Reader
	dict     int64
	size     int64 // -1 unknown
	opts     []Option
	workers  int
	blockCap int   // largest block decoded in parallel
	produced int64 // declared bytes of the blocks scanned

	queue   []*mtBlock   // scanned blocks, in order (the first is being delivered)
	off     int          // bytes of queue[0] handed on
	next    int          // control byte read ahead (-1 none)
	scanned bool         // no more blocks: end of stream, or seq takes over
	end     bool         // the stream ended cleanly after the queue
	prefix  *[]byte      // raw bytes from the block where seq takes over
	seq     *Reader2     // sequential decoder of the rest, once started
	rest    *drainReader // seq's copy of the prefix
	edge    *blockEdge   // seq's input: pauses it at a dictionary reset
	err     error

	buffered int // most raw bytes held for the first block (for tests)
	blocks   int // blocks decoded on workers (for tests)
}

// seqProbe is how much of the first block Reader2MT buffers before it
// hands the block to one Reader2: a block that has not ended by then is
// long (a single-block stream is the whole stream), and buffering it
// would only delay the start and cost memory. (A variable for tests.)
var seqProbe = 1 << 20

type mtBlock struct {
	in    *[]byte // the block's raw chunks, headers included
	out   *[]byte // its decoded bytes (n valid)
	start int64   // offset of its first byte in the stream
	size  int     // declared unpacked size
	n     int
	err   error
	done  chan struct{}
}

// MTBlockSize is the largest block Reader2MT decodes on a worker for a
// dictionary of dict bytes: 7-Zip's LZMA2 block size (autoBlockSize).
func MTBlockSize(dict int64) int { return int(min(autoBlockSize(dict), 1<<31-1)) }

// MTWorkers is how many blocks of a stream with dictionary dict fit in
// maxMem bytes at once (each: packed input, output and window), at most
// workers; below 2, decode with Reader2.
func MTWorkers(dict int64, workers int, maxMem int64) int {
	b := int64(MTBlockSize(dict))
	per := 2*b + min(dict, b) + 1<<16
	return int(min(int64(workers), maxMem/per))
}

// NewReader2MT returns a decoder of an LZMA2 stream (as NewReader2) that
// uses up to workers goroutines. opts apply to every block's decoder.
func NewReader2MT(r io.Reader, dictSize, size int64, workers int, opts ...Option) (*Reader2MT, error) {
	if size < 0 {
		size = -1
	}
	// The options and dictionary are checked as Reader2 would, at once.
	var probe config
	if err := probe.apply(opts); err != nil {
		return nil, err
	}
	if _, err := windowSize(dictSize, size, probe.maxDict); err != nil {
		return nil, err
	}
	z := &Reader2MT{r: r, dict: dictSize, size: size, opts: opts, workers: max(workers, 1),
		blockCap: MTBlockSize(dictSize), next: -1}
	return z, nil
}

// readByte reads one byte of the stream into *buf.
func (z *Reader2MT) readByte(buf *[]byte) (byte, bool) {
	var b [1]byte
	if _, err := io.ReadFull(z.r, b[:]); err != nil {
		return 0, false
	}
	*buf = append(*buf, b[0])
	return b[0], true
}

// takeOver ends scanning: Reader2 decodes the rest from raw (the bytes
// read since the current block's start) and what follows in r.
func (z *Reader2MT) takeOver(raw *[]byte) {
	z.prefix, z.scanned = raw, true
}

// scan reads the next block and starts its decoding, or ends scanning.
func (z *Reader2MT) scan() {
	raw := pool.Get(64 << 10)
	*raw = (*raw)[:0]
	var c byte
	if z.next >= 0 {
		c = byte(z.next)
		*raw = append(*raw, c)
		z.next = -1
	} else {
		var ok bool
		if c, ok = z.readByte(raw); !ok {
			if z.size >= 0 && z.produced == z.size {
				pool.Put(raw)
				z.scanned, z.end = true, true // the end byte is optional
				return
			}
			z.takeOver(raw)
			return
		}
	}
	if c == ctrlEnd && (z.size < 0 || z.produced == z.size) {
		pool.Put(raw)
		z.scanned, z.end = true, true
		return
	}
	if c != ctrlCopyDict && c < ctrlDict {
		z.takeOver(raw) // not a block start: Reader2 says what is wrong
		return
	}
	unpacked := 0
	for {
		n := headerRest(c)
		if n == 0 {
			z.takeOver(raw)
			return
		}
		h := len(*raw)
		for range n {
			if _, ok := z.readByte(raw); !ok {
				z.takeOver(raw)
				return
			}
		}
		hb := (*raw)[h:]
		u := int(hb[0])<<8 | int(hb[1]) + 1
		packed := u
		if c >= ctrlLZMA {
			u += int(c&0x1F) << 16
			packed = int(hb[2])<<8 | int(hb[3]) + 1
		}
		unpacked += u
		if unpacked > z.blockCap || z.size >= 0 && z.produced+int64(unpacked) > z.size {
			z.takeOver(raw)
			return
		}
		if z.produced == 0 && len(*raw)+packed > seqProbe {
			z.takeOver(raw) // a long first block: Reader2 decodes it as it reads
			return
		}
		// The packed bytes: read into the buffer (grown by what is
		// really there, never by the header alone).
		for packed > 0 {
			if cap(*raw)-len(*raw) < packed {
				nb := pool.Get(max(2*cap(*raw), len(*raw)+packed))
				*nb = append((*nb)[:0], *raw...)
				pool.Put(raw)
				raw = nb
			}
			m, err := io.ReadFull(z.r, (*raw)[len(*raw):len(*raw)+packed])
			*raw = (*raw)[:len(*raw)+m]
			if z.produced == 0 {
				z.buffered = max(z.buffered, len(*raw))
			}
			if err != nil {
				z.takeOver(raw)
				return
			}
			packed = 0
		}
		// The next control byte: another chunk of this block, or the
		// start of the next block (or the end).
		var b [1]byte
		if _, err := io.ReadFull(z.r, b[:]); err != nil {
			break // the end of the input: the next scan decides
		}
		c = b[0]
		if c == ctrlEnd || c == ctrlCopyDict || c >= ctrlDict {
			z.next = int(c)
			break
		}
		*raw = append(*raw, c)
	}
	blk := &mtBlock{in: raw, start: z.produced, size: unpacked, done: make(chan struct{})}
	z.produced += int64(unpacked)
	z.queue = append(z.queue, blk)
	z.blocks++
	go blk.decode(z.dict, z.opts)
}

// decode decodes the block on its own goroutine.
func (b *mtBlock) decode(dict int64, opts []Option) {
	defer close(b.done)
	z := blockReaders.Get() // its tables are reused block after block
	defer blockReaders.Put(z)
	if err := z.Reset(bytes.NewReader(*b.in), dict, int64(b.size), opts...); err != nil {
		z.Close()
		b.err = err
		return
	}
	defer z.Close()
	// Counted from the stream's start, as one Reader2 of the whole
	// stream counts: its checks and messages say the same.
	z.total, z.size = b.start, b.start+int64(b.size)
	b.out = pool.Get(b.size)
	out := (*b.out)[:b.size]
	b.n, b.err = io.ReadFull(z, out)
	if b.err == io.ErrUnexpectedEOF || b.err == io.EOF {
		b.err = z.err // what Reader2 stopped with
	}
	if b.err == nil {
		var one [1]byte
		if _, err := z.Read(one[:]); err != io.EOF {
			b.err = err // cannot be more data: the size was declared
		}
	}
}

// blockReaders keeps the block decoders of Reader2MT's workers.
var blockReaders pool.Of[Reader2]

func (b *mtBlock) release() {
	<-b.done
	pool.Put(b.in)
	if b.out != nil {
		pool.Put(b.out)
	}
	b.in, b.out = nil, nil
}

// fill scans blocks until workers are in flight or scanning ended.
func (z *Reader2MT) fill() {
	for !z.scanned && len(z.queue) < z.workers {
		z.scan()
	}
}

// current returns the block being delivered, decoded, or nil when the
// queue is empty (then seq, z.end or z.err says what comes next).
func (z *Reader2MT) current() *mtBlock {
	for {
		if len(z.queue) > 0 {
			b := z.queue[0]
			<-b.done
			if z.off < b.n || b.err != nil {
				return b
			}
			b.release()
			z.queue = z.queue[1:]
			z.off = 0
			continue
		}
		z.fill()
		if len(z.queue) > 0 {
			continue
		}
		if z.prefix != nil && z.seq == nil {
			z.startSeq()
		}
		return nil
	}
}

// startSeq hands the rest of the stream to one Reader2, positioned as a
// Reader2 of the whole stream would be there.
func (z *Reader2MT) startSeq() {
	s := new(Reader2)
	z.rest = &drainReader{b: z.prefix}
	z.prefix = nil
	z.edge = &blockEdge{r: io.MultiReader(z.rest, z.r), first: true}
	if err := s.Reset(z.edge, z.dict, z.size, z.opts...); err != nil {
		z.err = err
		return
	}
	done := z.produced
	s.total = done // sizes and offsets in its checks and messages count from the stream's start
	s.edge = z.edge
	z.seq = s
}

// paused reports whether seq stopped at a dictionary reset (its io.EOF is
// then not the end of the stream), and if so goes back to splitting the
// stream into blocks from there.
func (z *Reader2MT) paused() bool {
	if z.edge == nil || !z.edge.paused {
		return false
	}
	z.next = int(z.edge.ctrl)
	z.produced = z.seq.total
	z.seq.Close()
	z.seq, z.edge = nil, nil
	if z.rest != nil {
		z.rest.release()
		z.rest = nil
	}
	z.scanned = false
	return true
}

// Read decodes into p.
func (z *Reader2MT) Read(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	b := z.current()
	if b == nil {
		if z.seq != nil {
			n, err := z.seq.Read(p)
			if err == io.EOF && z.paused() {
				return z.Read(p)
			}
			return n, err
		}
		if z.err == nil && z.end {
			z.err = io.EOF
		}
		return 0, z.err
	}
	if z.off < b.n {
		n := copy(p, (*b.out)[z.off:b.n])
		z.off += n
		return n, nil
	}
	z.err = b.err
	return 0, z.err
}

// WriteTo writes the rest of the stream to w straight from the blocks'
// buffers.
func (z *Reader2MT) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for z.err == nil {
		b := z.current()
		if b == nil {
			if z.seq != nil {
				n, err := z.seq.WriteTo(w)
				total += n
				if err == nil && z.paused() {
					continue
				}
				if err == nil {
					z.err = io.EOF
				} else {
					z.err = err
				}
				return total, err
			}
			if z.end {
				z.err = io.EOF
				return total, nil
			}
			break
		}
		if z.off < b.n {
			n, err := w.Write((*b.out)[z.off:b.n])
			z.off += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		z.err = b.err
	}
	if z.err == io.EOF {
		return total, nil
	}
	return total, z.err
}

// Close waits for the blocks in flight and returns every buffer.
func (z *Reader2MT) Close() error {
	for _, b := range z.queue {
		b.release()
	}
	z.queue = nil
	if z.prefix != nil {
		pool.Put(z.prefix)
		z.prefix = nil
	}
	if z.seq != nil {
		z.seq.Close()
		z.seq = nil
	}
	if z.rest != nil {
		z.rest.release()
	}
	if z.err == nil {
		z.err = ErrClosed
	}
	return nil
}

// drainReader reads a pooled buffer once and gives it back to the pool
// as soon as it is read to its end (the prefix a solid stream was
// scanned with need not stay for the rest of the stream).
type drainReader struct {
	b   *[]byte
	off int
}

func (d *drainReader) Read(p []byte) (int, error) {
	if d.b == nil {
		return 0, io.EOF
	}
	n := copy(p, (*d.b)[d.off:])
	d.off += n
	if d.off == len(*d.b) {
		d.release()
	}
	return n, nil
}

func (d *drainReader) release() {
	pool.Put(d.b)
	d.b = nil
}

// blockEdge passes an LZMA2 stream to Reader2 chunk by chunk, never
// reading past the chunk it is in, and stops (io.EOF, paused) before the
// first chunk after its first that resets the dictionary: that chunk
// starts an independent block, left to Reader2MT. Framing it does not
// understand (the end byte, a bad control byte, a short header) it passes
// on untouched, for Reader2 to report.
type blockEdge struct {
	r      io.Reader
	first  bool // the next control byte is seq's first: never a pause
	blind  bool // pass the rest as it is
	paused bool
	ctrl   byte    // the control byte paused at
	left   int     // bytes of the current chunk's data still to pass
	pend   [6]byte // control byte and header read, pend[pi:pn] not yet passed
	pi, pn int
}

func (e *blockEdge) Read(p []byte) (int, error) {
	for {
		switch {
		case e.pi < e.pn:
			n := copy(p, e.pend[e.pi:e.pn])
			e.pi += n
			return n, nil
		case e.paused:
			return 0, io.EOF
		case e.blind:
			return e.r.Read(p)
		case e.left > 0:
			n, err := e.r.Read(p[:min(len(p), e.left)])
			e.left -= n
			return n, err
		}
		if len(p) == 0 {
			return 0, nil
		}
		if _, err := io.ReadFull(e.r, e.pend[:1]); err != nil {
			return 0, err
		}
		c := e.pend[0]
		if !e.first && (c == ctrlCopyDict || c >= ctrlDict) {
			e.paused, e.ctrl = true, c
			return 0, io.EOF
		}
		e.first = false
		h := 0
		switch {
		case c >= ctrlProps:
			h = 5
		case c >= ctrlLZMA:
			h = 4
		case c == ctrlCopy || c == ctrlCopyDict:
			h = 2
		default:
			e.blind = true // the end byte or a bad one
		}
		m, err := io.ReadFull(e.r, e.pend[1:1+h])
		e.pi, e.pn = 0, 1+m
		switch {
		case err != nil:
			e.blind = true // a short header: what follows says why
		case c >= ctrlLZMA:
			e.left = int(e.pend[3])<<8 | int(e.pend[4]) + 1
		case h == 2:
			e.left = int(e.pend[1])<<8 | int(e.pend[2]) + 1
		}
	}
}

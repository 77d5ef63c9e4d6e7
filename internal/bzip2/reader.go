package bzip2

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/go-unarc/unarc/internal/codecreader"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Stream and block magics.
const (
	blockMagic = 0x314159265359
	eosMagic   = 0x177245385090
)

// ErrClosed: Read after Close without a Reset.
var ErrClosed = errors.New("bzip2: reader closed")

type state uint8

const (
	stHeader state = iota // next: "BZh" and the level
	stBlock               // next: a block magic or the end-of-stream magic
	stOutput              // emitting a block
	stPar                 // parallel decoding
	stDone
)

// Reader decodes a bzip2 stream (or concatenated streams). Create it with
// NewReader; reuse it with Reset. Close returns its buffers to the pools.
type Reader struct {
	cfg config
	br  bitReader
	st  state
	err error // sticky; io.EOF at the end

	streams   int
	blockSize int // of the current stream
	streamCRC uint32
	total     int64 // output handed out (checkpoint.go)

	d    *decoder
	ttp  *[]byte  // pooled backing of tt
	tt   []uint32 // the block table, blockSize long
	outp *[]byte
	two  bool // this block is walked into outp first; bo expands it
	bo   bytesOut

	// the block being emitted
	bi   blockInfo
	out  walk
	crc  uint32
	left int // bytes of the BWT block not yet walked

	src     src
	par     *parallel
	scratch *[]byte // WriteTo buffer
}

// walk is the state of the output walk through an inverted block: the
// next index, and the RLE1 run state.
type walk struct {
	tPos  uint32
	last  byte
	cnt   int // equal bytes seen in a row (0..4)
	rep   int // copies of last still to emit
	rnTo  int // randomised blocks: countdown
	rnPos int // randomised blocks: next table index
}

// NewReader returns a reader decoding the bzip2 data in r: a new Reader
// that Reset sets up.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	return codecreader.New[Reader](r, opts...)
}

// Reset makes z decode new bzip2 data from r, keeping its buffers.
// Options are reset to the defaults, then opts apply.
func (z *Reader) Reset(r io.Reader, opts ...Option) error {
	if z.par != nil {
		z.par.stop()
	}
	if err := z.cfg.apply(opts); err != nil {
		z.err = err
		return err
	}
	z.src.reset(r)
	z.br.resetReader(&z.src)
	if z.par != nil {
		z.par.disabled = false
	}
	z.st, z.err, z.streams = stHeader, nil, 0
	z.left, z.out, z.total = 0, walk{}, 0
	return nil
}

// Close returns the buffers to the pools. Reads fail afterwards until
// Reset.
func (z *Reader) Close() error {
	if z.par != nil {
		z.par.stop()
		z.par.release()
		z.par = nil
	}
	z.br.release()
	z.src.reset(nil)
	pool.Put(z.outp)
	z.outp = nil
	pool.Put(z.ttp)
	z.ttp, z.tt = nil, nil
	decoders.Put(z.d)
	z.d = nil
	pool.Put(z.scratch)
	z.scratch = nil
	z.err = ErrClosed
	return nil
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.err == nil {
		if z.st == stPar {
			if len(p) == 0 {
				return 0, nil
			}
			if n := z.par.read(p); n > 0 {
				z.total += int64(n)
				return n, nil
			}
			continue
		}
		if z.st != stOutput {
			z.err = z.next()
			continue
		}
		if len(p) == 0 {
			return 0, nil
		}
		var n int
		switch {
		case z.two:
			n = z.bo.emit(p)
		case z.bi.rand:
			n = z.emitRand(p)
		default:
			n = z.emit(p)
		}
		z.crc = crcUpdate(z.crc, p[:n])
		if z.two && z.bo.done() || !z.two && z.left == 0 && z.out.rep == 0 {
			z.err = z.endBlock()
		}
		if n > 0 {
			z.total += int64(n)
			return n, nil
		}
	}
	return 0, z.err
}

// WriteTo writes the decoded data to w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if z.scratch == nil {
		z.scratch = pool.Get(inBufSize)
	}
	return pool.CopyBuffer(w, z, *z.scratch)
}

// next parses what comes between blocks: a stream header, a block
// header (then decodes the block), the end of a stream.
func (z *Reader) next() error {
	switch z.st {
	case stHeader:
		return z.header()
	case stBlock:
		m, err := z.br.bits(24, "block magic")
		if err != nil {
			return err
		}
		m2, err := z.br.bits(24, "block magic")
		if err != nil {
			return err
		}
		crc, err := z.br.bits(32, "block CRC")
		if err != nil {
			return err
		}
		switch uint64(m)<<24 | uint64(m2) {
		case blockMagic:
			if z.cfg.workers > 1 && z.startParallel(crc) {
				return nil
			}
			return z.block(crc)
		case eosMagic:
			return z.endStream(crc)
		}
		return errs.Corrupt("bzip2: bad block magic")
	}
	return io.EOF
}

// header reads "BZh" and the block size level of a stream.
func (z *Reader) header() error {
	if z.streams > 0 && z.br.atEOF() {
		return io.EOF
	}
	v, err := z.br.bits(32, "stream header")
	if err != nil {
		if z.streams > 0 {
			return errs.Corrupt("bzip2: trailing data after the stream")
		}
		return err
	}
	if v>>8 != 'B'<<16|'Z'<<8|'h' {
		if z.streams == 0 {
			return errs.ErrFormat
		}
		return errs.Corrupt("bzip2: trailing data after the stream")
	}
	level := int(v&0xFF) - '0'
	if level < 1 || level > 9 {
		return errs.Corrupt("bzip2: block size level %q", rune(v&0xFF))
	}
	if z.cfg.maxMem > 0 && Memory(level) > z.cfg.maxMem {
		return errs.Limit("bzip2: block size %d00k needs %d bytes, above MaxMemory (%d)", level, Memory(level), z.cfg.maxMem)
	}
	z.streams++
	z.blockSize = level * 100_000
	z.streamCRC = 0
	z.st = stBlock
	return nil
}

// endStream checks the combined CRC and moves to what follows.
func (z *Reader) endStream(stored uint32) error {
	if stored != z.streamCRC {
		return fmt.Errorf("%w: bzip2 stream CRC %08x, computed %08x", errs.ErrChecksum, stored, z.streamCRC)
	}
	z.br.alignByte()
	z.st = stHeader
	return nil
}

// table returns the block table for the current block size, from the pool.
func (z *Reader) table() []uint32 {
	if cap(z.tt) < z.blockSize {
		pool.Put(z.ttp)
		z.ttp = pool.Get(z.blockSize * 4)
		z.tt = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(*z.ttp))), z.blockSize)
	}
	return z.tt[:z.blockSize]
}

// block decodes one block (its magic and CRC read) and starts its output.
func (z *Reader) block(storedCRC uint32) error {
	if decodeHook != nil {
		decodeHook(1)
		defer decodeHook(-1)
	}
	if z.d == nil {
		z.d = decoders.Get()
	}
	tt := z.table()
	z.bi = blockInfo{storeCRC: storedCRC}
	if err := z.d.decodeBlock(&z.br, tt, &z.bi); err != nil {
		return err
	}
	z.crc = ^uint32(0)
	z.st = stOutput
	level := z.blockSize / 100_000
	z.two = z.cfg.maxMem == 0 || FastMemory(level) <= z.cfg.maxMem
	if !z.two {
		z.d.invert(tt[:z.bi.n])
		z.out = walk{tPos: z.tt[z.bi.origPtr] >> 8}
		z.left = z.bi.n
		return nil
	}
	if c := walkCap(z.blockSize); z.outp == nil || cap(*z.outp) < c {
		pool.Put(z.outp)
		z.outp = pool.Get(c)
	}
	out := (*z.outp)[:walkCap(z.blockSize)]
	z.d.invert(tt[:z.bi.n])
	spans := z.d.w.walk(tt[:z.bi.n], z.bi.origPtr, out)
	if z.bi.rand {
		derandomise(out, spans)
	}
	z.bo.reset(out, spans)
	return nil
}

// endBlock checks the block CRC and adds it to the stream CRC.
func (z *Reader) endBlock() error {
	c := ^z.crc
	if c != z.bi.storeCRC {
		return blockCRCError(z.bi.storeCRC, c)
	}
	z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ c
	z.st = stBlock
	return nil
}

func blockCRCError(stored, computed uint32) error {
	return fmt.Errorf("%w: bzip2 block CRC %08x, computed %08x", errs.ErrChecksum, stored, computed)
}

// emit walks the inverted block into p, undoing RLE1 on the way. The
// walk is one dependent load per byte from tt; everything else is kept
// in registers.
func (z *Reader) emit(p []byte) int {
	tt := z.tt[:z.bi.n]
	tPos, last, cnt, rep := z.out.tPos, z.out.last, z.out.cnt, z.out.rep
	left := z.left
	n := 0
	for n < len(p) {
		if rep > 0 {
			k := min(rep, len(p)-n)
			q := p[n : n+k]
			for i := range q {
				q[i] = last
			}
			n += k
			rep -= k
			continue
		}
		if left == 0 {
			break
		}
		for n < len(p) && left > 0 {
			e := tt[tPos]
			tPos = e >> 8
			b := byte(e)
			left--
			if cnt == 4 {
				rep = int(b)
				cnt = 0
				break
			}
			if b != last {
				last = b
				cnt = 1
			} else {
				cnt++
			}
			p[n] = b
			n++
		}
	}
	z.out.tPos, z.out.last, z.out.cnt, z.out.rep = tPos, last, cnt, rep
	z.left = left
	return n
}

// emitRand is emit for a randomised block.
func (z *Reader) emitRand(p []byte) int {
	tt := z.tt[:z.bi.n]
	o := z.out
	n := 0
	for n < len(p) {
		if o.rep > 0 {
			k := min(o.rep, len(p)-n)
			q := p[n : n+k]
			for i := range q {
				q[i] = o.last
			}
			n += k
			o.rep -= k
			continue
		}
		if z.left == 0 {
			break
		}
		e := tt[o.tPos]
		o.tPos = e >> 8
		b := byte(e) ^ o.randMask()
		z.left--
		if o.cnt == 4 {
			o.rep = int(b)
			o.cnt = 0
			continue
		}
		if b != o.last {
			o.last = b
			o.cnt = 1
		} else {
			o.cnt++
		}
		p[n] = b
		n++
	}
	z.out = o
	return n
}

// randMask advances the randomisation countdown by one byte and returns
// the mask (0 or 1) for that byte.
func (o *walk) randMask() byte {
	if o.rnTo == 0 {
		o.rnTo = int(randNums[o.rnPos])
		o.rnPos = (o.rnPos + 1) & 511
	}
	o.rnTo--
	if o.rnTo == 1 {
		return 1
	}
	return 0
}

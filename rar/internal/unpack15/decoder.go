// Package unpack15 decodes RAR 1.5 compression (file header UNP_VER 15),
// the algorithm of RAR 1.5 to 1.x archives: LZ77 whose literals, lengths
// and distances go through adaptive move-to-front tables with fixed
// prefix-code families (unrar's ShortLZ, LongLZ, HuffDecode and the flag
// bytes that choose between them). The stream has no end marker: it ends
// at the entry's declared size.
//
// Bit-stream facts follow unrar's unpack15.cpp.
//
// # Security
//
// The window is min(dictionary, data still to come) rounded up to a power
// of two, at most 4 MiB; nothing else scales with the input.
package unpack15

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/rar/internal/rarbits"
)

const (
	maxWindow = 4 << 20
	minWindow = rarbits.MinWindow
	// margin is window room for one symbol's output (the longest copy is
	// under 300 bytes in every version).
	margin = rarbits.Margin
)

// state is everything RAR 1.5 adapts as it goes; a solid entry continues
// it, a new stream starts from initState.
type state struct {
	chSet, chSetA, chSetB, chSetC [256]uint16
	nToPl, nToPlB, nToPlC         [256]uint8

	avrPlc, avrPlcB, avrLn1, avrLn2, avrLn3 uint32
	numHuf, buf60, maxDist3, nhfb, nlzb     uint32

	oldDist    [4]uint32
	oldDistPtr uint32
	lastDist   uint32
	lastLength uint32

	// Reset for every entry (unrar UnpInitData15 does so even when solid).
	flagsCnt int
	flagBuf  uint32
	stMode   bool
	lCount   uint32
}

// Decoder decodes one RAR 1.5 stream, entry by entry. The zero value is
// not usable; call NewDecoder, then Reset for each entry.
type Decoder struct {
	br bitReader

	winp *[]byte
	win  []byte
	mask int64
	dict int64

	pos, wr    int64
	start, end int64
	size       int64

	out     []byte
	err     error
	done    bool
	started bool
	first   bool // read the first flag byte before decoding

	s state
}

// NewDecoder returns a Decoder ready for Reset.
func NewDecoder() *Decoder { return new(Decoder) }

// Reset prepares d to decode one entry of unpackedSize bytes from src.
// With solid set the entry continues the previous one's window and
// adaptive tables; an unfinished previous entry is decoded to its end
// first.
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	if solid && d.started && d.err == nil {
		for d.err == nil {
			d.out = nil
			d.step()
		}
		d.out = nil
	}
	if solid && d.started && d.err != io.EOF {
		return errs.Corrupt("rar v15: solid entry follows a broken one")
	}
	if unpackedSize < 0 {
		return errs.Corrupt("rar v15: unknown unpacked size")
	}
	if dictSize <= 0 || dictSize > maxWindow {
		dictSize = maxWindow
	}
	d.br.Reset(src)
	d.out, d.err, d.done = nil, nil, false
	d.size = unpackedSize
	if !solid || !d.started {
		d.dict = dictSize
		d.pos = 0
		d.s.init()
	} else if dictSize > d.dict {
		d.dict = dictSize
	}
	d.s.flagsCnt, d.s.flagBuf, d.s.stMode, d.s.lCount = 0, 0, false, 0
	d.first = true
	d.started = true
	d.start, d.wr = d.pos, d.pos
	d.end = d.pos + unpackedSize
	d.sizeWindow(solid)
	return nil
}

func (s *state) init() {
	for i := range 256 {
		s.chSet[i] = uint16(i) << 8
		s.chSetB[i] = uint16(i) << 8
		s.chSetA[i] = uint16(i)
		s.chSetC[i] = uint16(-i&0xff) << 8
	}
	s.nToPl = [256]uint8{}
	s.nToPlB = [256]uint8{}
	s.nToPlC = [256]uint8{}
	corrHuff(&s.chSetB, &s.nToPlB)
	s.avrPlcB, s.avrLn1, s.avrLn2, s.avrLn3, s.numHuf, s.buf60 = 0, 0, 0, 0, 0, 0
	s.avrPlc = 0x3500
	s.maxDist3 = 0x2001
	s.nhfb, s.nlzb = 0x80, 0x80
	s.oldDist = [4]uint32{}
	s.oldDistPtr, s.lastDist, s.lastLength = 0, 0, 0
}

func (d *Decoder) sizeWindow(solid bool) {
	d.winp, d.win = rarbits.SizeWindow(d.winp, d.win, d.pos, d.dict, d.size, solid)
	d.mask = int64(len(d.win)) - 1
}

// Read implements io.Reader.
func (d *Decoder) Read(p []byte) (int, error) {
	return rarbits.ReadOut(p, &d.out, &d.err, d.step)
}

// WriteTo implements io.WriterTo, writing straight from the window.
func (d *Decoder) WriteTo(w io.Writer) (int64, error) {
	return rarbits.WriteOut(w, &d.out, &d.err, d.step)
}

// Close returns the window and input buffer to the pool.
func (d *Decoder) Close() error {
	if d.winp != nil {
		pool.Put(d.winp)
		d.winp, d.win = nil, nil
	}
	d.br.Release()
	d.started = false
	d.out = nil
	if d.err == nil {
		d.err = errs.Corrupt("rar v15: decoder closed")
	}
	return nil
}

func (d *Decoder) step() {
	if d.wr < d.pos {
		i := int(d.wr & d.mask)
		n := int(min(d.pos-d.wr, int64(len(d.win)-i)))
		b := d.win[i : i+n]
		if rem := d.end - d.wr; rem < int64(n) {
			b = b[:max(rem, 0)]
		}
		d.out = b
		d.wr += int64(n)
		return
	}
	if d.done || d.pos >= d.end {
		d.err = io.EOF
		return
	}
	if err := d.decode(min(d.wr+int64(len(d.win))-margin, d.end)); err != nil {
		d.err = err
	}
}

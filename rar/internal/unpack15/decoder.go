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

	"github.com/go-unarc/unarc/rar/internal/rarbits"
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

	first bool // read the first flag byte before decoding

	s state

	// Stream (window, positions, Read, WriteTo) comes last: in front of
	// br it cost about 4% CPU time in BenchmarkDecode (same-run A/B).
	rarbits.Stream
}

// NewDecoder returns a Decoder ready for Reset.
func NewDecoder() *Decoder {
	d := new(Decoder)
	d.Init(d, "rar v15")
	return d
}

// Reset prepares d to decode one entry of unpackedSize bytes from src.
// (It starts as unpack20's does, with rarbits.Stream.Enter.)
// With solid set the entry continues the previous one's window and
// adaptive tables; an unfinished previous entry is decoded to its end
// first.
func (d *Decoder) Reset(src io.Reader, dictSize, unpackedSize int64, solid bool) error {
	if err := d.Enter(&d.br, src, dictSize, unpackedSize, solid, d.s.init); err != nil {
		return err
	}
	d.s.flagsCnt, d.s.flagBuf, d.s.stMode, d.s.lCount = 0, 0, false, 0
	d.first = true
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

// Close returns the window and input buffer to the pool.
func (d *Decoder) Close() error {
	d.Release()
	d.br.Release()
	return nil
}

// Step is for rarbits.Stream: it hands out decoded output, or decodes
// more, or ends the entry.
func (d *Decoder) Step() { d.StepLZ(d.CanCheckpoint, d.decode) }

package lzma

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// LZMA2 chunk framing (Lzma2Dec.c; xz file format, "LZMA2"). Each chunk
// starts with a control byte:
//
//	0x00             end of stream
//	0x01             uncompressed chunk, dictionary reset
//	0x02             uncompressed chunk
//	0x03-0x7F        invalid
//	1 rr uuuuu       LZMA chunk; u = bits 16-20 of (unpacked size - 1),
//	                 rr: 0 nothing reset, 1 state reset, 2 state reset and
//	                 new properties, 3 all that and dictionary reset
//
// Uncompressed chunks continue with (size-1) as uint16 big endian; LZMA
// chunks with the low 16 bits of (unpacked size-1), (packed size-1) as
// uint16 big endian and, for rr >= 2, the properties byte (PB*5+LP)*9+LC.
// Every LZMA chunk starts a new range coder; matches do not cross chunks.
const (
	ctrlEnd      = 0x00
	ctrlCopyDict = 0x01
	ctrlCopy     = 0x02
	ctrlLZMA     = 0x80
	ctrlState    = 0xA0 // and above: state reset
	ctrlProps    = 0xC0 // and above: new properties
	ctrlDict     = 0xE0 // and above: dictionary reset
)

// headerRest is how many header bytes follow control byte c: the
// unpacked size (2), for an LZMA chunk the packed size (2 more) and with
// new properties their byte (1 more). It is 0 when c starts no chunk
// (the end byte or an invalid one). Reader2 and Reader2MT's scan share it.
func headerRest(c byte) int {
	switch {
	case c >= ctrlProps:
		return 5
	case c >= ctrlLZMA:
		return 4
	case c == ctrlCopy || c == ctrlCopyDict:
		return 2
	}
	return 0
}

type chunkKind uint8

const (
	chunkNone chunkKind = iota // next comes a control byte
	chunkCopy
	chunkLZMA
)

// Reader2 decodes an LZMA2 stream. Create it with NewReader2; reuse it with
// Reset. Close returns its memory to the pools.
type Reader2 struct {
	core // input, window, state; Read, WriteTo, Close, Size

	need     uint8 // lowest control byte allowed for the next LZMA chunk
	kind     chunkKind
	unpacked int // bytes of the current chunk still to produce
	packed   int // bytes of the current LZMA chunk still to read

	edge *blockEdge // Reader2MT's input: its pause ends this stream early
}

// NewReader2 returns a decoder for an LZMA2 stream with dictionary size
// dictSize (from the 7z property byte via DictSizeLZMA2) and uncompressed
// size size (-1: unknown; the stream must then end with its end byte).
func NewReader2(r io.Reader, dictSize int64, size int64, opts ...Option) (*Reader2, error) {
	z := new(Reader2)
	if err := z.Reset(r, dictSize, size, opts...); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset makes z decode a new LZMA2 stream from r, keeping its buffers when
// they are large enough. Options are reset to the defaults, then opts
// apply; a window above MaxDict fails with errs.ErrLimit before allocating.
func (z *Reader2) Reset(r io.Reader, dictSize int64, size int64, opts ...Option) error {
	if err := z.cfg.apply(opts); err != nil {
		z.err = err
		return err
	}
	z.err = z.reset(r, dictSize, size)
	return z.err
}

func (z *Reader2) reset(r io.Reader, dictSize int64, size int64) error {
	if size < 0 {
		size = -1
	}
	if dictSize < 0 || dictSize > 1<<32-1 {
		return errs.Corrupt("lzma2: dictionary size %d out of range", dictSize)
	}
	n, err := windowSize(dictSize, size, z.cfg.maxDict)
	if err != nil {
		return err
	}
	z.begin(z, r, n, size)
	z.need, z.kind, z.unpacked, z.packed = ctrlDict, chunkNone, 0, 0
	z.edge = nil
	return nil
}

// step decodes the next part of the stream into the window.
func (z *Reader2) step() {
	if z.kind == chunkNone {
		if z.err = z.header(); z.err != nil {
			return
		}
		if z.kind == chunkNone {
			return
		}
	}
	w := &z.w
	w.room()
	limit := min(len(w.buf), w.pos+z.cfg.stepLen(), w.pos+z.unpacked)
	start := w.pos
	var err error
	if z.kind == chunkCopy {
		err = z.copyChunk(limit)
	} else {
		err = z.lzmaChunk(limit)
	}
	n := w.pos - start
	z.total += int64(n)
	z.unpacked -= n
	if err != nil {
		z.err = err
		return
	}
	if z.unpacked > 0 {
		return
	}
	if z.kind == chunkLZMA {
		switch {
		case z.d.remLen > 0:
			z.err = errs.Corrupt("lzma2: match crosses the end of a chunk")
		case z.packed != 0:
			z.err = errs.Corrupt("lzma2: %d bytes left over in a chunk", z.packed)
		case z.d.code != 0:
			z.err = errs.Corrupt("lzma2: range coder not finished at the end of a chunk")
		}
	}
	z.kind = chunkNone
}

// copyChunk copies uncompressed chunk data into the window up to limit.
func (z *Reader2) copyChunk(limit int) error {
	in, w := &z.in, &z.w
	for w.pos < limit {
		if in.Avail() == 0 && !in.Fill(1) {
			return in.endErr(errs.Truncated("lzma2 uncompressed chunk"))
		}
		n := copy(w.buf[w.pos:limit], in.Buf[in.IP:in.End])
		w.pos += n
		in.IP += n
	}
	return nil
}

// lzmaChunk decodes LZMA chunk data into the window up to limit.
func (z *Reader2) lzmaChunk(limit int) error {
	in, w := &z.in, &z.w
	for w.pos < limit {
		segEnd := in.IP + z.packed
		final := true // the segment ends where the chunk does
		if segEnd > in.End {
			segEnd = in.End
			final = in.EOF || in.Err != nil
		}
		inLimit := segEnd - maxSymbolBytes
		if final {
			inLimit = segEnd
		}
		if in.IP > inLimit {
			in.Fill(maxSymbolBytes + 1)
			continue
		}
		ip0 := in.IP
		ip, symStart, st := z.d.decode(w, limit, in.Buf, in.IP, inLimit)
		if ip > segEnd {
			w.pos = symStart
			if segEnd == ip0+z.packed {
				return errs.Corrupt("lzma2: chunk data overrun")
			}
			return in.endErr(errs.Truncated("lzma2 chunk"))
		}
		in.IP = ip
		z.packed -= ip - ip0
		switch st {
		case stEnd:
			return errs.Corrupt("lzma2: end marker inside a chunk")
		case stBadDist:
			return errs.Corrupt("lzma2: match distance beyond the data at offset %d", z.total+int64(w.pos))
		}
	}
	return nil
}

// header reads a chunk header and applies its resets. At the end of the
// stream it returns io.EOF.
func (z *Reader2) header() error {
	in := &z.in
	c, ok := in.readByte()
	if !ok {
		if z.size >= 0 && z.total == z.size && in.Err == nil {
			return io.EOF // the end byte is optional when the size is known
		}
		if z.edge != nil && z.edge.paused && in.Err == nil {
			return io.EOF // Reader2MT takes over at a dictionary reset
		}
		return in.endErr(errs.Truncated("lzma2 chunk header"))
	}
	if c == ctrlEnd {
		if z.size >= 0 && z.total != z.size {
			return errs.Corrupt("lzma2: stream ends after %d of %d bytes", z.total, z.size)
		}
		return io.EOF
	}
	if z.size >= 0 && z.total == z.size {
		return ErrPastSize
	}
	var h [5]byte
	n := headerRest(c)
	if n == 0 {
		return errs.Corrupt("lzma2: bad control byte %#x", c)
	}
	for i := range n {
		if h[i], ok = in.readByte(); !ok {
			return in.endErr(errs.Truncated("lzma2 chunk header"))
		}
	}
	unpacked := int(h[0])<<8 | int(h[1]) + 1
	if c >= ctrlLZMA {
		unpacked += int(c&0x1F) << 16
	}
	if z.size >= 0 && z.total+int64(unpacked) > z.size {
		return ErrPastSize
	}
	if c < ctrlLZMA {
		if c == ctrlCopyDict {
			z.w.dictReset()
			z.need = ctrlProps
		} else if z.need == ctrlDict {
			return errs.Corrupt("lzma2: first chunk does not reset the dictionary")
		}
		z.kind, z.unpacked = chunkCopy, unpacked
		return nil
	}
	if c < z.need {
		return errs.Corrupt("lzma2: chunk %#x lacks a needed reset", c)
	}
	z.need = ctrlLZMA
	if c >= ctrlDict {
		z.w.dictReset()
	}
	if c >= ctrlProps {
		p, err := decodePropsByte(h[4])
		if err != nil {
			return err
		}
		if p.LC+p.LP > 4 {
			return errs.Corrupt("lzma2: lc=%d + lp=%d exceeds 4", p.LC, p.LP)
		}
		z.d.lc, z.d.lp, z.d.pb = uint32(p.LC), uint32(p.LP), uint32(p.PB)
	}
	if c >= ctrlState {
		z.d.resetState()
	}
	packed := int(h[2])<<8 | int(h[3]) + 1
	if packed < 5 {
		return errs.Corrupt("lzma2: chunk of %d packed bytes", packed)
	}
	// The range coder init bytes are part of the chunk.
	if in.Avail() < 5 {
		in.Fill(5)
	}
	if in.Avail() < 5 {
		return in.endErr(errs.Truncated("lzma2 chunk"))
	}
	if err := initRange(&z.d, in); err != nil {
		return err
	}
	z.kind, z.unpacked, z.packed = chunkLZMA, unpacked, packed-5
	return nil
}

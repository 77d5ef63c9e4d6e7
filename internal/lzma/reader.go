package lzma

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// stepMax bounds the output decoded per step, so Read and WriteTo hand
// over data while it is still in cache.
const stepMax = 256 << 10

// Reader decodes an LZMA stream (the "LZMA1" format). Create it with
// NewReader, NewReaderLZMAHeader or NewReaderZip; reuse it for another
// stream with the matching Reset method. Close returns its memory to the
// pools.
type Reader struct {
	core         // input, window, state; Read, WriteTo, Close, Size
	started bool // range decoder initialized
}

// NewReader returns a decoder for a raw LZMA stream with properties p and
// uncompressed size size (-1: unknown, the stream must then end with an
// end marker).
func NewReader(r io.Reader, p Props, size int64, opts ...Option) (*Reader, error) {
	z := new(Reader)
	if err := z.Reset(r, p, size, opts...); err != nil {
		return nil, err
	}
	return z, nil
}

// NewReaderLZMAHeader returns a decoder for the .lzma (LZMA_Alone) format:
// 5 bytes of properties, the uncompressed size as uint64 little endian
// (all ones: unknown), then the stream.
func NewReaderLZMAHeader(r io.Reader, opts ...Option) (*Reader, error) {
	z := new(Reader)
	if err := z.ResetLZMAHeader(r, opts...); err != nil {
		return nil, err
	}
	return z, nil
}

// NewReaderZip returns a decoder for ZIP method 14 data (APPNOTE 5.8.8):
// a 2-byte LZMA SDK version, the properties size as uint16 little endian
// (5), the properties, then the stream. size is the entry's uncompressed
// size (-1: unknown). Entries with general purpose flag bit 1 end with an
// end marker; with the default MarkerAuto one is accepted after the size,
// so the caller may pass the size either way.
func NewReaderZip(r io.Reader, size int64, opts ...Option) (*Reader, error) {
	z := new(Reader)
	if err := z.ResetZip(r, size, opts...); err != nil {
		return nil, err
	}
	return z, nil
}

// ResetLZMAHeader is Reset for the .lzma header form.
func (z *Reader) ResetLZMAHeader(r io.Reader, opts ...Option) error {
	var h [13]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		z.err = errs.EOF(err, "lzma header")
		return z.err
	}
	p, err := DecodeProps(h[:5])
	if err != nil {
		z.err = err
		return err
	}
	size := int64(binary.LittleEndian.Uint64(h[5:]))
	if size < 0 {
		size = -1 // all ones: unknown; anything else that large is too
	}
	return z.Reset(r, p, size, opts...)
}

// ResetZip is Reset for the ZIP method 14 form.
func (z *Reader) ResetZip(r io.Reader, size int64, opts ...Option) error {
	var h [9]byte
	if _, err := io.ReadFull(r, h[:4]); err != nil {
		z.err = errs.EOF(err, "zip lzma header")
		return z.err
	}
	if n := binary.LittleEndian.Uint16(h[2:4]); n != 5 {
		z.err = errs.Corrupt("zip lzma: properties size %d, want 5", n)
		return z.err
	}
	if _, err := io.ReadFull(r, h[4:9]); err != nil {
		z.err = errs.EOF(err, "zip lzma properties")
		return z.err
	}
	p, err := DecodeProps(h[4:9])
	if err != nil {
		z.err = err
		return err
	}
	return z.Reset(r, p, size, opts...)
}

// Reset makes z decode a new raw LZMA stream from r, keeping its buffers
// when they are large enough. Options are reset to the defaults, then opts
// apply. A dictionary that exceeds MaxDict fails here, matching
// errs.ErrLimit, before anything is allocated.
func (z *Reader) Reset(r io.Reader, p Props, size int64, opts ...Option) error {
	if err := z.cfg.apply(opts); err != nil {
		z.err = err
		return err
	}
	z.err = z.reset(r, p, size)
	return z.err
}

func (z *Reader) reset(r io.Reader, p Props, size int64) error {
	if err := p.verify(); err != nil {
		return err
	}
	if size < 0 {
		size = -1
		if z.cfg.marker == MarkerForbidden {
			return errs.Corrupt("lzma: unknown size and no end marker")
		}
	}
	n, err := windowSize(int64(p.DictSize), size, z.cfg.maxDict)
	if err != nil {
		return err
	}
	z.begin(z, r, n, size)
	z.d.lc, z.d.lp, z.d.pb = uint32(p.LC), uint32(p.LP), uint32(p.PB)
	z.d.resetState()
	z.started = false
	return nil
}

// initRange starts the range decoder on the next 5 input bytes
// (specification, "Init" of the range decoder): a zero byte, then the
// first code value.
func initRange(d *decoder, in *input) error {
	if in.Avail() < 5 {
		in.Fill(5)
		if in.Avail() < 5 {
			return in.endErr(errs.Truncated("lzma range coder init"))
		}
	}
	b := in.Buf[in.IP : in.IP+5]
	in.IP += 5
	if b[0] != 0 {
		return errs.Corrupt("lzma: first range coder byte is %#x, want 0", b[0])
	}
	d.rng = 0xFFFFFFFF
	d.code = binary.BigEndian.Uint32(b[1:])
	if d.code == d.rng {
		return errs.Corrupt("lzma: bad range coder init")
	}
	return nil
}

// run decodes into the window up to limit, refilling input as needed, and
// returns the last status. A symbol that reads past the end of input is
// undone and reported as truncation.
func (z *Reader) run(limit int) (status, error) {
	in, w := &z.in, &z.w
	for w.pos < limit {
		final := in.EOF || in.Err != nil
		inLimit := in.End - maxSymbolBytes
		if final {
			inLimit = in.End
		}
		if in.IP > inLimit {
			in.Fill(maxSymbolBytes + 1)
			continue
		}
		ip, symStart, st := z.d.decode(w, limit, in.Buf, in.IP, inLimit)
		in.IP = ip
		if ip > in.End {
			w.pos = symStart
			return st, in.endErr(errs.Truncated("lzma stream"))
		}
		if st != stOK {
			return st, nil
		}
	}
	return stOK, nil
}

// step decodes the next part of the stream into the window, setting z.err
// at the end (io.EOF) or on failure.
func (z *Reader) step() {
	if !z.started {
		if err := initRange(&z.d, &z.in); err != nil {
			z.err = err
			return
		}
		z.started = true
	}
	w := &z.w
	w.room()
	limit := min(len(w.buf), w.pos+z.cfg.stepLen())
	if z.size >= 0 {
		if rem := z.size - z.total; int64(limit-w.pos) > rem {
			limit = w.pos + int(rem)
		}
	}
	start := w.pos
	st, err := z.run(limit)
	z.total += int64(w.pos - start)
	switch {
	case err != nil:
		z.err = err
	case st == stBadDist:
		z.err = errs.Corrupt("lzma: match distance beyond the data at offset %d", z.total)
	case st == stEnd:
		z.err = z.endMarker()
	case z.total == z.size:
		z.err = z.sizeReached()
	}
}

// endMarker checks the stream end at an end marker.
func (z *Reader) endMarker() error {
	switch {
	case z.cfg.marker == MarkerForbidden:
		return errs.Corrupt("lzma: end marker not allowed")
	case z.size >= 0 && z.total != z.size:
		return errs.Corrupt("lzma: end marker after %d of %d bytes", z.total, z.size)
	case z.d.code != 0:
		return errs.Corrupt("lzma: range coder not finished at the end marker")
	}
	return io.EOF
}

// sizeReached checks the stream end at the declared size: the range coder
// must be finished (code 0) unless an end marker follows, which a finished
// coder cannot hold (its first bit would decode as 0).
func (z *Reader) sizeReached() error {
	if z.d.remLen > 0 {
		return ErrPastSize
	}
	if z.d.code == 0 {
		if z.cfg.marker == MarkerRequired {
			return errs.Corrupt("lzma: no end marker")
		}
		return io.EOF
	}
	if z.cfg.marker == MarkerForbidden {
		return ErrPastSize
	}
	// Decode one more symbol, which must be the end marker. It needs one
	// byte of room in the window; when the window is full and not yet
	// delivered (a stream whose size fills it exactly), making room now
	// would discard the undelivered bytes, so the check waits for the
	// next step, which runs once everything has been delivered.
	w := &z.w
	if w.pos >= len(w.buf) && w.rd < w.pos {
		return nil
	}
	w.room()
	pos := w.pos
	st, err := z.run(pos + 1)
	w.pos = pos
	switch {
	case err != nil:
		return err
	case st == stEnd:
		if z.d.code != 0 {
			return errs.Corrupt("lzma: range coder not finished at the end marker")
		}
		return io.EOF
	}
	return ErrPastSize
}

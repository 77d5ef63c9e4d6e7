package xz

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/inbuf"
)

// inBufSize is the input buffer; it holds any block header (at most 1024
// bytes) and the stream header or footer whole.
const inBufSize = 64 << 10

// input buffers the compressed stream: Buf[IP:End] is read and unused,
// Base+IP the input offset of the next byte (checkpoints). The refill is
// inbuf's, shared with lzma (which keeps slack after the data for its
// range decoder; this one has none and serves whole headers and blocks).
type input struct{ inbuf.Buffer }

func (in *input) reset(r io.Reader) { in.Reset(r, inBufSize, 0) }

func (in *input) release() { in.Release() }

func (in *input) need(n int) bool { return in.Need(n) }

// more reads at least one more byte when the buffer is empty; false at the
// end of input or on an error.
func (in *input) more() bool { return in.need(1) }

// endErr is the error for input that ended early: the read error if there
// was one, else a truncation naming what.
func (in *input) endErr(what string) error {
	if in.Err != nil {
		return in.Err
	}
	return errs.Truncated(what)
}

// framer hands the bytes of one LZMA2 stream to the LZMA2 decoder and ends
// right after its end byte: the decoder buffers ahead, and without the
// framing it would swallow the block padding and check that follow. It
// follows the chunk headers (control byte, sizes) only to know where each
// chunk ends; the decoder checks them.
type framer struct {
	in    *input
	rem   int  // bytes of the current chunk (header and data) still to pass
	done  bool // the last unit (end byte, or a control byte that is not one) is being passed
	total int64
}

func (f *framer) reset(in *input) { *f = framer{in: in} }

func (f *framer) Read(p []byte) (int, error) {
	in := f.in
	if f.rem == 0 {
		if f.done {
			return 0, io.EOF
		}
		if !in.more() {
			return 0, f.eofErr()
		}
		c := in.Buf[in.IP]
		switch {
		case c == 0x00:
			f.rem, f.done = 1, true
		case c == 0x01 || c == 0x02:
			if in.need(3) {
				f.rem = 3 + (int(in.Buf[in.IP+1])<<8 | int(in.Buf[in.IP+2])) + 1
			} else {
				f.rem, f.done = in.Avail(), true
			}
		case c >= 0x80:
			h := 5
			if c >= 0xC0 {
				h = 6
			}
			if in.need(h) {
				f.rem = h + (int(in.Buf[in.IP+3])<<8 | int(in.Buf[in.IP+4])) + 1
			} else {
				f.rem, f.done = in.Avail(), true
			}
		default: // an invalid control byte: the decoder reports it
			f.rem, f.done = 1, true
		}
	}
	if in.Avail() == 0 && !in.more() {
		return 0, f.eofErr()
	}
	n := min(len(p), f.rem, in.Avail())
	copy(p, in.Buf[in.IP:in.IP+n])
	in.IP += n
	f.rem -= n
	f.total += int64(n)
	return n, nil
}

// eofErr: the input ended inside the LZMA2 stream. io.EOF lets the decoder
// report the truncation; a read error passes through.
func (f *framer) eofErr() error {
	if f.in.Err != nil {
		return f.in.Err
	}
	return io.EOF
}

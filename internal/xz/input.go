package xz

import (
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// inBufSize is the input buffer; it holds any block header (at most 1024
// bytes) and the stream header or footer whole.
const inBufSize = 64 << 10

// input buffers the compressed stream: buf[ip:end] is read and unused.
// Deliberately not lzma's input: that one keeps inSlack zero bytes after
// the data for its range decoder's unchecked reads and fills by want,
// this one serves whole headers and blocks (need); they share only the
// field list and the pooled buffer.
type input struct {
	r   io.Reader
	p   *[]byte
	buf []byte
	ip  int
	end int
	// base is how many bytes of r came before buf[0]: base+ip is the
	// input offset of the next byte (checkpoints).
	base int64
	eof  bool  // r reported io.EOF
	err  error // a read error other than io.EOF
}

func (in *input) reset(r io.Reader) {
	if in.p == nil {
		in.p = pool.Get(inBufSize)
	}
	in.buf = (*in.p)[:inBufSize]
	in.r, in.ip, in.end, in.eof, in.err, in.base = r, 0, 0, false, nil, 0
}

func (in *input) release() {
	pool.Put(in.p)
	*in = input{}
}

func (in *input) avail() int { return in.end - in.ip }

// need reads until at least n (<= inBufSize) bytes are buffered or the
// input ends; it reports whether they are.
func (in *input) need(n int) bool {
	if in.end-in.ip >= n {
		return true
	}
	if in.eof || in.err != nil {
		return false
	}
	if in.ip > 0 {
		in.base += int64(in.ip)
		in.end = copy(in.buf, in.buf[in.ip:in.end])
		in.ip = 0
	}
	for empty := 0; in.end < n; {
		k, err := in.r.Read(in.buf[in.end:])
		in.end += k
		if err == io.EOF {
			in.eof = true
			break
		}
		if err != nil {
			in.err = err
			break
		}
		if k == 0 {
			if empty++; empty == 100 {
				in.err = io.ErrNoProgress
				break
			}
		}
	}
	return in.end-in.ip >= n
}

// more reads at least one more byte when the buffer is empty; false at the
// end of input or on an error.
func (in *input) more() bool { return in.need(1) }

// endErr is the error for input that ended early: the read error if there
// was one, else a truncation naming what.
func (in *input) endErr(what string) error {
	if in.err != nil {
		return in.err
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
		c := in.buf[in.ip]
		switch {
		case c == 0x00:
			f.rem, f.done = 1, true
		case c == 0x01 || c == 0x02:
			if in.need(3) {
				f.rem = 3 + (int(in.buf[in.ip+1])<<8 | int(in.buf[in.ip+2])) + 1
			} else {
				f.rem, f.done = in.avail(), true
			}
		case c >= 0x80:
			h := 5
			if c >= 0xC0 {
				h = 6
			}
			if in.need(h) {
				f.rem = h + (int(in.buf[in.ip+3])<<8 | int(in.buf[in.ip+4])) + 1
			} else {
				f.rem, f.done = in.avail(), true
			}
		default: // an invalid control byte: the decoder reports it
			f.rem, f.done = 1, true
		}
	}
	if in.avail() == 0 && !in.more() {
		return 0, f.eofErr()
	}
	n := min(len(p), f.rem, in.avail())
	copy(p, in.buf[in.ip:in.ip+n])
	in.ip += n
	f.rem -= n
	f.total += int64(n)
	return n, nil
}

// eofErr: the input ended inside the LZMA2 stream. io.EOF lets the decoder
// report the truncation; a read error passes through.
func (f *framer) eofErr() error {
	if f.in.err != nil {
		return f.in.err
	}
	return io.EOF
}

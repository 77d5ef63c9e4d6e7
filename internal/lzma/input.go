package lzma

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// inBufSize is how much compressed input a decoder buffers.
const inBufSize = 64 << 10

// input buffers compressed bytes: data is buf[ip:end], followed by inSlack
// zero bytes, so the decode loop may read a little past the end without a
// check (what it read there is then reported as truncation or corruption).
type input struct {
	r    io.Reader
	p    *[]byte
	buf  []byte
	ip   int
	end  int
	eof  bool  // r reported io.EOF: buf[ip:end] is all that is left
	err  error // a read error other than io.EOF
	read int64 // bytes read from r since reset
}

func (in *input) reset(r io.Reader) {
	if in.p == nil {
		in.p = pool.Get(inBufSize + inSlack)
	}
	in.buf = (*in.p)[:inBufSize+inSlack]
	in.r, in.ip, in.end, in.eof, in.err, in.read = r, 0, 0, false, nil, 0
	clear(in.buf[:inSlack])
}

func (in *input) release() {
	pool.Put(in.p)
	*in = input{}
}

// fill moves the unread bytes to the front and reads until at least want
// bytes are buffered (want <= inBufSize), the input ends or fails. It
// returns whether the buffer grew.
func (in *input) fill(want int) bool {
	if in.eof || in.err != nil {
		return false
	}
	if in.ip > 0 {
		in.end = copy(in.buf, in.buf[in.ip:in.end])
		in.ip = 0
	}
	start := in.end
	for empty := 0; in.end < want; {
		n, err := in.r.Read(in.buf[in.end:inBufSize])
		in.end += n
		in.read += int64(n)
		if err == io.EOF {
			in.eof = true
			break
		}
		if err != nil {
			in.err = err
			break
		}
		if n == 0 {
			// A reader that keeps returning nothing would spin us forever.
			if empty++; empty == 100 {
				in.err = io.ErrNoProgress
				break
			}
		}
	}
	clear(in.buf[in.end : in.end+inSlack])
	return in.end > start
}

// avail is the number of buffered bytes.
func (in *input) avail() int { return in.end - in.ip }

// readByte returns the next byte, filling as needed; ok is false at the end
// of input.
func (in *input) readByte() (byte, bool) {
	if in.ip >= in.end && !in.fill(1) {
		return 0, false
	}
	b := in.buf[in.ip]
	in.ip++
	return b, true
}

// endErr is the error for input that ended early: the read error, if any.
func (in *input) endErr(truncated error) error {
	if in.err != nil {
		return in.err
	}
	return truncated
}

package lzma

import (
	"io"

	"github.com/go-unarc/unarc/internal/inbuf"
)

// inBufSize is how much compressed input a decoder buffers.
const inBufSize = 64 << 10

// input buffers compressed bytes: data is Buf[IP:End], followed by
// inSlack zero bytes, so the decode loop may read a little past the end
// without a check (what it read there is then reported as truncation or
// corruption). The refill is inbuf's, shared with xz.
type input struct{ inbuf.Buffer }

func (in *input) reset(r io.Reader) { in.Reset(r, inBufSize, inSlack) }

func (in *input) release() { in.Release() }

// readByte returns the next byte, filling as needed; ok is false at the end
// of input.
func (in *input) readByte() (byte, bool) {
	if in.IP >= in.End && !in.Fill(1) {
		return 0, false
	}
	b := in.Buf[in.IP]
	in.IP++
	return b, true
}

// endErr is the error for input that ended early: the read error, if any.
func (in *input) endErr(truncated error) error {
	if in.Err != nil {
		return in.Err
	}
	return truncated
}

// Package inbuf is the pooled input buffer that the LZMA and xz decoders
// read compressed bytes through: one refill loop (with its guard against
// readers that return nothing) and one offset count for checkpoints.
package inbuf

import (
	"io"

	"github.com/go-unarc/unarc/internal/pool"
)

// Buffer holds bytes read from R: Buf[IP:End] is read and unused. When
// made with a slack, slack zero bytes follow End (Buf has room for
// them), so a decode loop may read a little past the data without a
// check; what it read there is then reported as truncation or
// corruption.
type Buffer struct {
	R   io.Reader
	Buf []byte
	IP  int
	End int
	// Base is how many bytes of R came before Buf[0]: Base+IP is the
	// input offset of the next byte, Base+End how much R has delivered.
	Base int64
	EOF  bool  // R reported io.EOF: Buf[IP:End] is all that is left
	Err  error // a read error other than io.EOF

	p     *[]byte
	size  int // data capacity; Buf is size+slack long
	slack int
}

// Reset starts reading r into a buffer of size bytes followed by slack
// zero bytes, taken from the pool on first use and kept until Release.
// Every Reset of a Buffer passes the same size and slack.
func (b *Buffer) Reset(r io.Reader, size, slack int) {
	if b.p == nil {
		b.p = pool.Get(size + slack)
	}
	*b = Buffer{R: r, Buf: (*b.p)[:size+slack], p: b.p, size: size, slack: slack}
	clear(b.Buf[:slack])
}

// Release returns the buffer to the pool and clears b.
func (b *Buffer) Release() {
	pool.Put(b.p)
	*b = Buffer{}
}

// Avail is the number of buffered unread bytes.
func (b *Buffer) Avail() int { return b.End - b.IP }

// Fill moves the unread bytes to the front and reads until at least want
// bytes (<= the size) are buffered, the input ends or a read fails. It
// reports whether the buffer grew.
func (b *Buffer) Fill(want int) bool {
	if b.EOF || b.Err != nil {
		return false
	}
	if b.IP > 0 {
		b.Base += int64(b.IP)
		b.End = copy(b.Buf, b.Buf[b.IP:b.End])
		b.IP = 0
	}
	start := b.End
	for empty := 0; b.End < want; {
		n, err := b.R.Read(b.Buf[b.End:b.size])
		b.End += n
		if err == io.EOF {
			b.EOF = true
			break
		}
		if err != nil {
			b.Err = err
			break
		}
		if n == 0 {
			// A reader that keeps returning nothing would spin us forever.
			if empty++; empty == 100 {
				b.Err = io.ErrNoProgress
				break
			}
		}
	}
	clear(b.Buf[b.End : b.End+b.slack])
	return b.End > start
}

// Need reads until at least n (<= the size) bytes are buffered or the
// input ends; it reports whether they are.
func (b *Buffer) Need(n int) bool {
	if b.End-b.IP >= n {
		return true
	}
	b.Fill(n)
	return b.End-b.IP >= n
}

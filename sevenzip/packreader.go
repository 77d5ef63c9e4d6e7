package sevenzip

import (
	"bufio"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

const packBufSize = 64 << 10

// packReader reads one pack stream from the archive through a pooled
// buffer. It is an io.ByteReader so range decoders use it directly.
type packReader struct {
	ra    io.ReaderAt
	off   int64 // next file offset to read
	start int64 // where the stream starts
	end   int64
	bufp  *[]byte
	buf   []byte
	r, w  int
	err   error
}

// getBuf and putBuf take pack buffers from internal/pool, whose free list
// for buffers of 64 KiB and up survives garbage collection, so
// steady-state extraction allocates none.
func getBuf() *[]byte { return pool.Get(packBufSize) }

func putBuf(b *[]byte) { pool.Put(b) }

// reset makes p read size bytes at off of ra through a pooled buffer.
func (p *packReader) reset(ra io.ReaderAt, off, size int64) {
	*p = packReader{ra: ra, off: off, start: off, end: off + size}
	p.bufp = getBuf()
	p.buf = (*p.bufp)[:packBufSize]
}

func (p *packReader) fill() bool {
	if p.err != nil {
		return false
	}
	if p.buf == nil {
		p.err = io.ErrClosedPipe
		return false
	}
	n := int64(len(p.buf))
	if rem := p.end - p.off; rem < n {
		n = rem
	}
	if n <= 0 {
		p.err = io.EOF
		return false
	}
	m, err := p.ra.ReadAt(p.buf[:n], p.off)
	p.off += int64(m)
	p.r, p.w = 0, m
	if m < int(n) {
		if err == nil || err == io.EOF {
			err = errs.Truncated("7z pack stream beyond the end of the archive")
		}
		p.err = err
	}
	return m > 0
}

func (p *packReader) Read(b []byte) (int, error) {
	if p.r == p.w {
		// Large reads bypass the buffer.
		if len(b) >= len(p.buf) && p.err == nil && p.buf != nil {
			n := int64(len(b))
			if rem := p.end - p.off; rem < n {
				n = rem
			}
			if n <= 0 {
				p.err = io.EOF
				return 0, io.EOF
			}
			m, err := p.ra.ReadAt(b[:n], p.off)
			p.off += int64(m)
			if m < int(n) {
				if err == nil || err == io.EOF {
					err = errs.Truncated("7z pack stream beyond the end of the archive")
				}
				p.err = err
			}
			if m > 0 {
				return m, nil
			}
			return 0, p.err
		}
		if !p.fill() {
			return 0, p.err
		}
	}
	n := copy(b, p.buf[p.r:p.w])
	p.r += n
	return n, nil
}

func (p *packReader) ReadByte() (byte, error) {
	if p.r == p.w && !p.fill() {
		return 0, p.err
	}
	c := p.buf[p.r]
	p.r++
	return c, nil
}

func (p *packReader) Close() error {
	if p.bufp != nil {
		putBuf(p.bufp)
		p.bufp, p.buf = nil, nil
		p.r, p.w = 0, 0
	}
	return nil
}

// Peek returns the next n bytes without consuming them, refilling the
// buffer as bufio.Reader does; with fewer than n bytes left it returns
// what there is and the error that stopped it (bufio.ErrBufferFull for
// n beyond the buffer, which the deflate decoder's refill relies on). With Discard and Buffered it lets the PPMd range
// decoder read the buffer in place instead of one ReadByte call per byte.
func (p *packReader) Peek(n int) ([]byte, error) {
	if n < 0 {
		return nil, bufio.ErrNegativeCount
	}
	if p.w-p.r < n && p.buf != nil && p.err == nil {
		// Move the unread bytes to the front and fill the rest.
		p.w = copy(p.buf, p.buf[p.r:p.w])
		p.r = 0
		for p.w < n && p.w < len(p.buf) && p.err == nil {
			want := int64(len(p.buf) - p.w)
			if rem := p.end - p.off; rem < want {
				want = rem
			}
			if want <= 0 {
				p.err = io.EOF
				break
			}
			m, err := p.ra.ReadAt(p.buf[p.w:p.w+int(want)], p.off)
			p.off += int64(m)
			p.w += m
			if m < int(want) {
				if err == nil || err == io.EOF {
					err = errs.Truncated("7z pack stream beyond the end of the archive")
				}
				p.err = err
			}
		}
	}
	if avail := p.w - p.r; avail < n {
		err := p.err
		if n > len(p.buf) {
			err = bufio.ErrBufferFull
		} else if err == nil {
			err = io.EOF
		}
		return p.buf[p.r:p.w], err
	}
	return p.buf[p.r : p.r+n], nil
}

// Discard skips the next n buffered or unread bytes.
func (p *packReader) Discard(n int) (int, error) {
	done := 0
	for n > 0 {
		if p.r == p.w && !p.fill() {
			return done, p.err
		}
		k := min(n, p.w-p.r)
		p.r += k
		n -= k
		done += k
	}
	return done, nil
}

// Buffered is the number of bytes Peek can return without reading.
func (p *packReader) Buffered() int { return p.w - p.r }

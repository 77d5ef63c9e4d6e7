// Package crc32x verifies checksums of data streaming through it: a Reader
// hashes what passes and, at EOF, compares the sum (and the byte count)
// with the expected values, returning an error that matches
// errs.ErrChecksum in place of io.EOF on mismatch.
//
// CRC-32 (IEEE) has a dedicated path with no interface call per Read; any
// other hash (BLAKE2sp for RAR5, keyed variants) plugs in as a hash.Hash.
//
// It is internal: only the library's packages use it. Users verify
// entries through the unarc package (Open, Extract and Verify check every
// checksum).

package crc32x

import (
	"bytes"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/go-unarc/unarc/internal/pool"

	"github.com/go-unarc/unarc/internal/errs"
)

// Reader verifies the data read through it. The zero value is not usable;
// use NewCRC32, NewHash or Reset*.
type Reader struct {
	r      io.Reader
	h      hash.Hash // nil: CRC-32 path
	crc    uint32
	want   uint32
	wantH  []byte
	check  bool  // compare a checksum at EOF
	size   int64 // expected byte count; -1 unknown
	n      int64
	err    error // sticky
	sumBuf [64]byte
	hw     hashWriter // WriteTo's destination wrapper, kept here so passing it allocates nothing
}

// NewCRC32 returns a Reader that checks CRC-32 want and, if size >= 0, the
// byte count.
func NewCRC32(r io.Reader, want uint32, size int64) *Reader {
	v := new(Reader)
	v.ResetCRC32(r, want, size)
	return v
}

// NewHash returns a Reader that checks h's sum against want (nil want: no
// checksum, only the size when size >= 0).
func NewHash(r io.Reader, h hash.Hash, want []byte, size int64) *Reader {
	v := new(Reader)
	v.ResetHash(r, h, want, size)
	return v
}

// NewSize returns a Reader that checks only the byte count.
func NewSize(r io.Reader, size int64) *Reader {
	v := new(Reader)
	v.ResetHash(r, nil, nil, size)
	return v
}

// ResetCRC32 makes v verify a new stream with CRC-32, keeping no state.
func (v *Reader) ResetCRC32(r io.Reader, want uint32, size int64) {
	*v = Reader{r: r, want: want, check: true, size: size}
}

// ResetHash makes v verify a new stream with h (reset here), keeping no state.
func (v *Reader) ResetHash(r io.Reader, h hash.Hash, want []byte, size int64) {
	if h != nil {
		h.Reset()
	}
	*v = Reader{r: r, h: h, wantH: want, check: want != nil, size: size}
	if h == nil && want == nil {
		v.check = false
	}
}

// Expect sets the expected CRC-32 and size after construction, for
// formats that store them after the data (ZIP data descriptors). It must
// be called before the underlying reader returns io.EOF.
func (v *Reader) Expect(crc uint32, size int64) {
	v.want, v.size, v.check = crc, size, true
}

// N returns the number of bytes read so far.
func (v *Reader) N() int64 { return v.n }

// Sum32 returns the CRC-32 of the bytes read so far (CRC path only).
func (v *Reader) Sum32() uint32 { return v.crc }

func (v *Reader) update(p []byte) {
	if v.h != nil {
		v.h.Write(p)
	} else {
		v.crc = crc32.Update(v.crc, crc32.IEEETable, p)
	}
	v.n += int64(len(p))
}

// Read reads from the underlying reader, hashing what it returns.
func (v *Reader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.size >= 0 && int64(len(p))-1 > v.size-v.n {
		p = p[:max(v.size-v.n+1, 0)] // one byte past the size tells it is longer
	}
	n, err := v.r.Read(p)
	v.update(p[:n])
	if v.size >= 0 && v.n > v.size {
		v.err = v.tooLong()
		return n, v.err
	}
	if err == io.EOF {
		err = v.finish()
	} else if err != nil {
		v.err = err
	}
	return n, err
}

// finish runs the end-of-stream checks; it returns io.EOF when all pass.
func (v *Reader) finish() error {
	if v.size >= 0 && v.n != v.size {
		v.err = errs.Truncated(fmt.Sprintf("data ends after %d of %d bytes", v.n, v.size))
		return v.err
	}
	if v.check {
		if v.h != nil {
			got := v.h.Sum(v.sumBuf[:0])
			if !bytes.Equal(got, v.wantH) {
				v.err = fmt.Errorf("%w: %s is %x, want %x", errs.ErrChecksum, "hash", got, v.wantH)
				return v.err
			}
		} else if v.crc != v.want {
			v.err = fmt.Errorf("%w: CRC-32 is %08x, want %08x", errs.ErrChecksum, v.crc, v.want)
			return v.err
		}
	}
	v.err = io.EOF
	return io.EOF
}

// hashWriter hashes what the decoder writes before passing it on.
type hashWriter struct {
	v *Reader
	w io.Writer
}

// Write hands on at most one byte past the declared size: a decoder
// that produces more is stopped there, so a destination (a temporary
// file) never grows past declared size + 1 however much the data claims.
func (hw *hashWriter) Write(p []byte) (int, error) {
	v := hw.v
	var long error
	if v.size >= 0 && int64(len(p))-1 > v.size-v.n {
		p, long = p[:max(v.size-v.n+1, 0)], v.tooLong()
	}
	n, err := hw.w.Write(p)
	v.update(p[:n])
	if err == nil && long != nil {
		v.err = long
		err = long
	}
	return n, err
}

// tooLong is the error for data past the declared size: the data (or
// the header declaring its size) is corrupt.
func (v *Reader) tooLong() error {
	return errs.Corrupt("more data than the declared %d bytes", v.size)
}

// WriteTo writes the verified stream to w. When the underlying reader is
// an io.WriterTo (a decoder writing straight from its window) the data is
// hashed on its way to w with no intermediate copy.
func (v *Reader) WriteTo(w io.Writer) (int64, error) {
	if v.err != nil {
		if v.err == io.EOF {
			return 0, nil
		}
		return 0, v.err
	}
	start := v.n
	if wt, ok := v.r.(io.WriterTo); ok {
		v.hw = hashWriter{v, w}
		_, err := wt.WriteTo(&v.hw)
		v.hw = hashWriter{}
		if err == nil {
			if v.size >= 0 && v.n > v.size {
				v.err = v.tooLong()
				return v.n - start, v.err
			}
			if err = v.finish(); err == io.EOF {
				err = nil
			}
		} else {
			v.err = err
		}
		return v.n - start, err
	}
	// No window to write from: copy what Read verifies.
	_, err := pool.Copy(w, v)
	return v.n - start, err
}

package aes7z

import (
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"io"
)

// EncodeProps appends the coder property block for p (the inverse of
// ParseProps): the cycle power, then the salt and IV sizes and bytes.
// An IV of 16 bytes is always written; p.Salt may be 0..16 bytes.
func EncodeProps(dst []byte, p *Props) []byte {
	salt := len(p.Salt)
	b0 := p.Cycles&0x3F | 0x40 // IV present
	var b1 byte = 15           // IV size - 1
	if salt > 0 {
		b0 |= 0x80
		b1 |= byte(salt-1) << 4
	}
	dst = append(dst, b0, b1)
	dst = append(dst, p.Salt...)
	return append(dst, p.IV[:]...)
}

// encBuf is the Writer's buffer, a multiple of the block size.
const encBuf = 4096

// Writer encrypts a stream with AES-256-CBC as 7-Zip's encoder does: the
// last block is padded with zero bytes (the coder's unpack size tells the
// reader where the data ends). One Writer holds one key; Reset starts a
// new stream with a new IV, so a writer derives and expands its key once
// however many streams it encrypts. Writes of any size, WriteByte
// included, allocate nothing.
type Writer struct {
	w   io.Writer
	cbc cipher.BlockMode
	n   int // buf[:n] is pending plaintext
	out int64
	err error
	iv  [16]byte // kept here so SetIV's argument does not escape per call
	buf [encBuf]byte
}

type ivSetter interface{ SetIV([]byte) }

// NewWriter returns a Writer for key; call Reset before writing.
func NewWriter(key [32]byte) (*Writer, error) {
	e := new(Writer)
	if err := e.SetKey(key); err != nil {
		return nil, err
	}
	return e, nil
}

// SetKey gives e a new key (a pooled Writer passing to another archive);
// call Reset before writing.
func (e *Writer) SetKey(key [32]byte) error {
	blk, err := aes.NewCipher(key[:])
	if err != nil {
		return err
	}
	cbc := cipher.NewCBCEncrypter(blk, e.iv[:])
	if _, ok := cbc.(ivSetter); !ok {
		return errors.New("7zAES: CBC mode cannot be reset")
	}
	*e = Writer{cbc: cbc, err: errNotReset}
	return nil
}

// Forget drops the key (before e goes back to a pool).
func (e *Writer) Forget() {
	*e = Writer{err: errNotReset}
}

var (
	errNotReset = errors.New("7zAES: writer used before Reset")
	errClosed   = errors.New("7zAES: write after Close")
)

// Reset starts a new encrypted stream into w with iv.
func (e *Writer) Reset(w io.Writer, iv [16]byte) {
	e.iv = iv
	e.cbc.(ivSetter).SetIV(e.iv[:])
	e.w, e.n, e.out, e.err = w, 0, 0, nil
}

// Written returns the ciphertext bytes passed to the underlying writer.
func (e *Writer) Written() int64 { return e.out }

// Write encrypts p (whole blocks go out as the buffer fills). The fill
// loop is bcj.Writer.Write's on purpose: ten lines, each flushing its
// own way, not worth a package both import.
func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	total := len(p)
	for len(p) > 0 {
		c := copy(e.buf[e.n:], p)
		e.n += c
		p = p[c:]
		if e.n == len(e.buf) {
			if err := e.flush(e.n); err != nil {
				return total - len(p), err
			}
		}
	}
	return total, nil
}

// WriteByte encrypts one byte.
func (e *Writer) WriteByte(c byte) error {
	if e.err != nil {
		return e.err
	}
	e.buf[e.n] = c
	e.n++
	if e.n == len(e.buf) {
		return e.flush(e.n)
	}
	return nil
}

// flush encrypts and writes buf[:n] (a multiple of 16).
func (e *Writer) flush(n int) error {
	e.cbc.CryptBlocks(e.buf[:n], e.buf[:n])
	m, err := e.w.Write(e.buf[:n])
	e.out += int64(m)
	if err == nil && m < n {
		err = io.ErrShortWrite
	}
	e.n = copy(e.buf[:], e.buf[n:e.n])
	if err != nil {
		e.err = err
	}
	return err
}

// Close pads the last block with zeros and writes it. It does not close
// the underlying writer; Reset starts the next stream.
func (e *Writer) Close() error {
	if e.err != nil {
		if e.err == errClosed {
			return nil
		}
		return e.err
	}
	n := (e.n + 15) &^ 15
	clear(e.buf[e.n:n])
	e.n = n
	if n > 0 {
		if err := e.flush(n); err != nil {
			return err
		}
	}
	e.err = errClosed
	return nil
}

package rarcrypto

import (
	"crypto/aes"
	"crypto/cipher"
	"io"
)

// Reader decrypts an AES-CBC stream read from r. The stream length must
// be a multiple of the block size; a trailing partial block is reported
// as io.ErrUnexpectedEOF. Reset reuses the buffer.
type Reader struct {
	r    io.Reader
	cbc  CBC
	mode cipher.BlockMode
	buf  [4096]byte
	out  []byte // decrypted bytes not yet returned (slice of buf)
	err  error
}

// NewReader returns a Reader decrypting r with key (16 or 32 bytes) and iv.
func NewReader(r io.Reader, key, iv []byte) (*Reader, error) {
	d := new(Reader)
	return d, d.Reset(r, key, iv)
}

// Reset makes d decrypt a new stream. With the key of the previous
// stream (one archive's entries usually share it) it allocates nothing.
func (d *Reader) Reset(r io.Reader, key, iv []byte) error {
	mode, err := d.cbc.Init(key, iv)
	if err != nil {
		return err
	}
	d.r, d.mode, d.out, d.err = r, mode, nil, nil
	return nil
}

// Release drops the source and any pending output, so a pooled Reader
// keeps no other reader's stream alive. The expanded key stays: the next
// entry under the same key then costs no allocation, and a different
// key replaces it.
func (d *Reader) Release() {
	d.r, d.out, d.err = nil, nil, nil
}

// CBC is a reusable AES-CBC decrypter. It expands a key once; for the
// same key again it only sets the new IV, so decrypting many entries or
// headers under one key allocates nothing after the first.
type CBC struct {
	key  [32]byte
	klen int
	mode cipher.BlockMode
}

// ivSetter is implemented by the standard library's CBC modes.
type ivSetter interface{ SetIV(iv []byte) }

// Init returns a CBC decrypter for key and iv (16 bytes).
func (c *CBC) Init(key, iv []byte) (cipher.BlockMode, error) {
	if c.mode != nil && len(key) == c.klen && string(key) == string(c.key[:c.klen]) {
		if s, ok := c.mode.(ivSetter); ok && len(iv) == aes.BlockSize {
			s.SetIV(iv)
			return c.mode, nil
		}
	}
	if len(key) > len(c.key) {
		return nil, aes.KeySizeError(len(key))
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	c.mode = cipher.NewCBCDecrypter(b, iv)
	c.klen = copy(c.key[:], key)
	return c.mode, nil
}

// Read returns decrypted bytes.
func (d *Reader) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		// ReadFull fills buf unless the stream ends, so a partial block
		// can only be the stream's last bytes: a truncated ciphertext.
		n, err := io.ReadFull(d.r, d.buf[:])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			// The source's own error (a cut input, an I/O failure) is
			// the cause, whatever block the read stopped in.
			d.err = err
			n -= n % aes.BlockSize
		} else if n%aes.BlockSize != 0 {
			d.err = io.ErrUnexpectedEOF
			n -= n % aes.BlockSize
		} else if err == io.ErrUnexpectedEOF {
			d.err = io.EOF
		} else if err != nil {
			d.err = err
		}
		if n > 0 {
			d.mode.CryptBlocks(d.buf[:n], d.buf[:n])
			d.out = d.buf[:n]
		}
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// Decrypt decrypts buf (a multiple of 16 bytes) in place with a fresh CBC
// state; used for headers, which each start a new chain.
func Decrypt(key, iv, buf []byte) error {
	b, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	cipher.NewCBCDecrypter(b, iv).CryptBlocks(buf, buf)
	return nil
}

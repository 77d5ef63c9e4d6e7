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

// Reset makes d decrypt a new stream.
func (d *Reader) Reset(r io.Reader, key, iv []byte) error {
	b, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	d.r, d.mode, d.out, d.err = r, cipher.NewCBCDecrypter(b, iv), nil, nil
	return nil
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

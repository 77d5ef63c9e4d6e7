// Package aes7z implements 7-Zip's AES-256 coder (method 06F10701): the
// key is SHA-256 iterated 2^n times over salt, password (UTF-16LE) and a
// 64-bit counter; data is AES-256-CBC with a per-stream IV. See 7-Zip's
// 7zAes.cpp / DOC/7zFormat.txt.
package aes7z

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"unicode/utf16"

	"github.com/go-unarc/unarc/internal/errs"
)

// MaxCycles is the largest cycle power 7-Zip accepts (2^24 SHA-256 rounds).
const MaxCycles = 24

// Props is the decoded coder property block.
type Props struct {
	Cycles uint8 // key derivation runs 2^Cycles rounds; 0x3F: no hashing
	Salt   []byte
	IV     [16]byte
}

// ParseProps decodes the coder properties:
//
//	byte 0: bits 0-5 cycle power, bit 7 salt size +1, bit 6 IV size +1
//	byte 1: high nibble salt size, low nibble IV size (present if bit 6 or 7)
//	salt, IV
func ParseProps(b []byte) (Props, error) {
	var p Props
	if len(b) == 0 {
		return p, errs.Corrupt("7zAES: empty properties")
	}
	p.Cycles = b[0] & 0x3F
	if b[0]&0xC0 == 0 {
		return p, nil
	}
	if len(b) < 2 {
		return p, errs.Corrupt("7zAES: short properties")
	}
	saltSize := int(b[0]>>7&1) + int(b[1]>>4)
	ivSize := int(b[0]>>6&1) + int(b[1]&0x0F)
	if len(b) < 2+saltSize+ivSize {
		return p, errs.Corrupt("7zAES: short properties")
	}
	p.Salt = b[2 : 2+saltSize]
	copy(p.IV[:], b[2+saltSize:2+saltSize+ivSize])
	return p, nil
}

// Rounds returns the key-derivation rounds Key runs for p (0 for the
// no-hashing form), for charging a budget before deriving.
func Rounds(p *Props) int64 {
	if p.Cycles == 0x3F {
		return 0
	}
	return 1 << p.Cycles
}

// Key derives the AES-256 key for password under p. It caches nothing:
// callers keep the keys they need (sevenzip, per Archive), so that a
// key's cost is charged to the archive that asks for it.
func Key(password string, p *Props) ([32]byte, error) {
	var key [32]byte
	if p.Cycles > MaxCycles && p.Cycles != 0x3F {
		return key, errs.Unsupported("7zAES: 2^%d key derivation rounds", p.Cycles)
	}
	pw := utf16le(password)
	if p.Cycles == 0x3F {
		n := copy(key[:], p.Salt)
		copy(key[n:], pw)
	} else {
		// One buffer per round: salt | password | counter.
		buf := make([]byte, 0, len(p.Salt)+len(pw)+8)
		buf = append(buf, p.Salt...)
		buf = append(buf, pw...)
		buf = append(buf, make([]byte, 8)...)
		ctr := buf[len(buf)-8:]
		h := sha256.New()
		rounds := uint64(1) << p.Cycles
		for i := uint64(0); i < rounds; i++ {
			binary.LittleEndian.PutUint64(ctr, i)
			h.Write(buf)
		}
		h.Sum(key[:0])
	}
	return key, nil
}

func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// Reader decrypts an AES-256-CBC stream. The input length must be a
// multiple of 16; the caller cuts the output to the coder's unpack size
// (7-Zip pads the last block).
type Reader struct {
	r    io.Reader
	cbc  cipher.BlockMode
	key  [32]byte // the key cbc was made with
	iv   [16]byte // Reset's iv, here so that passing it on allocates nothing
	buf  [2048]byte
	lo   int // buf[lo:hi] decrypted, unread
	hi   int
	tail int // buf[hi:hi+tail] read but not a whole block yet
	err  error
}

// NewReader returns a Reader decrypting r with key and iv.
func NewReader(r io.Reader, key [32]byte, iv [16]byte) (*Reader, error) {
	d := new(Reader)
	return d, d.Reset(r, key, iv)
}

// Reset makes d decrypt a new stream r. Under the key of the previous
// stream it only sets the IV: a reused Reader allocates nothing.
func (d *Reader) Reset(r io.Reader, key [32]byte, iv [16]byte) error {
	d.iv = iv
	s, ok := d.cbc.(interface{ SetIV([]byte) })
	if ok && key == d.key {
		s.SetIV(d.iv[:])
	} else {
		blk, err := aes.NewCipher(key[:])
		if err != nil {
			return err
		}
		d.cbc, d.key = cipher.NewCBCDecrypter(blk, d.iv[:]), key
	}
	d.r, d.lo, d.hi, d.tail, d.err = r, 0, 0, 0, nil
	return nil
}

// Release drops the source and the buffered plaintext; d reads nothing
// until the next Reset.
func (d *Reader) Release() {
	clear(d.buf[:])
	d.r, d.lo, d.hi, d.tail, d.err = nil, 0, 0, 0, io.ErrClosedPipe
}

// Read decrypts into p.
func (d *Reader) Read(p []byte) (int, error) {
	for d.lo == d.hi {
		if d.err != nil {
			return 0, d.err
		}
		// Move the partial block to the front and read more.
		copy(d.buf[:], d.buf[d.hi:d.hi+d.tail])
		d.lo, d.hi = 0, 0
		n, err := io.ReadAtLeast(d.r, d.buf[d.tail:], 16-d.tail)
		n += d.tail
		whole := n &^ 15
		d.tail = n - whole
		if whole > 0 {
			d.cbc.CryptBlocks(d.buf[:whole], d.buf[:whole])
			d.hi = whole
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if d.tail != 0 {
				d.err = errs.Corrupt("7zAES: data is not a whole number of blocks")
			} else {
				d.err = io.EOF
			}
		} else if err != nil {
			d.err = err
		}
	}
	n := copy(p, d.buf[d.lo:d.hi])
	d.lo += n
	return n, nil
}

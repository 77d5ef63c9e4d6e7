package rarcrypto

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
)

// initSubst20 is the initial substitution table of the RAR 2.0 cipher
// (unrar crypt2.cpp, InitSubstTable20).
var initSubst20 = [256]byte{
	215, 19, 149, 35, 73, 197, 192, 205, 249, 28, 16, 119, 48, 221, 2, 42,
	232, 1, 177, 233, 14, 88, 219, 25, 223, 195, 244, 90, 87, 239, 153, 137,
	255, 199, 147, 70, 92, 66, 246, 13, 216, 40, 62, 29, 217, 230, 86, 6,
	71, 24, 171, 196, 101, 113, 218, 123, 93, 91, 163, 178, 202, 67, 44, 235,
	107, 250, 75, 234, 49, 167, 125, 211, 83, 114, 157, 144, 32, 193, 143, 36,
	158, 124, 247, 187, 89, 214, 141, 47, 121, 228, 61, 130, 213, 194, 174, 251,
	97, 110, 54, 229, 115, 57, 152, 94, 105, 243, 212, 55, 209, 245, 63, 11,
	164, 200, 31, 156, 81, 176, 227, 21, 76, 99, 139, 188, 127, 17, 248, 51,
	207, 120, 189, 210, 8, 226, 41, 72, 183, 203, 135, 165, 166, 60, 98, 7,
	122, 38, 155, 170, 69, 172, 252, 238, 39, 134, 59, 128, 236, 27, 240, 80,
	131, 3, 85, 206, 145, 79, 154, 142, 159, 220, 201, 133, 74, 64, 20, 129,
	224, 185, 138, 103, 173, 182, 43, 34, 254, 82, 198, 151, 231, 180, 58, 10,
	118, 26, 102, 12, 50, 132, 22, 191, 136, 111, 162, 179, 45, 4, 148, 108,
	161, 56, 78, 126, 242, 222, 15, 175, 146, 23, 33, 241, 181, 190, 77, 225,
	0, 46, 169, 186, 68, 95, 237, 65, 53, 208, 253, 168, 9, 18, 100, 52,
	116, 184, 160, 96, 109, 37, 30, 106, 140, 104, 150, 5, 204, 117, 112, 84,
}

// Cipher20 is the RAR 2.0 block cipher: 16-byte blocks, 32 Feistel
// rounds over a password-keyed substitution table, keys updated from
// each ciphertext block with the CRC-32 table.
type Cipher20 struct {
	key   [4]uint32
	subst [256]byte
}

// NewCipher20 sets up the cipher for password (its bytes as stored by
// the archiver; unrar SetKey20).
func NewCipher20(password string) *Cipher20 {
	c := &Cipher20{key: [4]uint32{0xD3A3B879, 0x3F6D12F7, 0x7515A235, 0xA4E7F123}, subst: initSubst20}
	crc := crc32.IEEETable
	pw := []byte(password)
	if len(pw) > 127 {
		pw = pw[:127]
	}
	at := func(i int) byte {
		if i < len(pw) {
			return pw[i]
		}
		return 0
	}
	for j := 0; j < 256; j++ {
		for i := 0; i < len(pw); i += 2 {
			n1 := uint(byte(crc[(at(i)-byte(j))&0xff]))
			n2 := uint(byte(crc[(at(i+1)+byte(j))&0xff]))
			for k := uint(1); n1 != n2; n1, k = (n1+1)&0xff, k+1 {
				a, b := n1, (n1+uint(i)+k)&0xff
				c.subst[a], c.subst[b] = c.subst[b], c.subst[a]
			}
		}
	}
	// The zero-padded password is encrypted block by block; each block
	// updates the keys.
	padded := make([]byte, (len(pw)+15)&^15)
	copy(padded, pw)
	for i := 0; i < len(pw); i += 16 {
		c.encrypt(padded[i : i+16])
	}
	return c
}

func (c *Cipher20) substLong(t uint32) uint32 {
	s := &c.subst
	return uint32(s[t&255]) | uint32(s[(t>>8)&255])<<8 | uint32(s[(t>>16)&255])<<16 | uint32(s[t>>24])<<24
}

func (c *Cipher20) rounds(b []byte, decrypt bool) {
	k := &c.key
	A := binary.LittleEndian.Uint32(b[0:]) ^ k[0]
	B := binary.LittleEndian.Uint32(b[4:]) ^ k[1]
	C := binary.LittleEndian.Uint32(b[8:]) ^ k[2]
	D := binary.LittleEndian.Uint32(b[12:]) ^ k[3]
	for n := 0; n < 32; n++ {
		i := n
		if decrypt {
			i = 31 - n
		}
		t := (C + bits.RotateLeft32(D, 11)) ^ k[i&3]
		ta := A ^ c.substLong(t)
		t = (D ^ bits.RotateLeft32(C, 17)) + k[i&3]
		tb := B ^ c.substLong(t)
		A, B, C, D = C, D, ta, tb
	}
	binary.LittleEndian.PutUint32(b[0:], C^k[0])
	binary.LittleEndian.PutUint32(b[4:], D^k[1])
	binary.LittleEndian.PutUint32(b[8:], A^k[2])
	binary.LittleEndian.PutUint32(b[12:], B^k[3])
}

func (c *Cipher20) update(b []byte) {
	crc := crc32.IEEETable
	for i := 0; i < 16; i += 4 {
		c.key[0] ^= crc[b[i]]
		c.key[1] ^= crc[b[i+1]]
		c.key[2] ^= crc[b[i+2]]
		c.key[3] ^= crc[b[i+3]]
	}
}

func (c *Cipher20) encrypt(b []byte) {
	c.rounds(b, false)
	c.update(b)
}

// DecryptBlock decrypts one 16-byte block in place; the keys then
// advance with the ciphertext.
func (c *Cipher20) DecryptBlock(b []byte) {
	var in [16]byte
	copy(in[:], b)
	c.rounds(b, true)
	c.update(in[:])
}

// Reader20 decrypts a RAR 2.0-encrypted stream. A final partial block is
// decrypted as if zero-padded (rar pads packed data to 16 bytes).
// It notes the cipher's state at every mark (marks.go).
type Reader20 struct {
	r   io.Reader
	c   *Cipher20
	k0  [4]uint32 // the password's keys
	buf [MarkSpan]byte
	out []byte
	err error
	pos int64 // stream position of the next block read
	m   marks
}

// NewReader20 returns a Reader20 over r, with c as the password sets it
// up.
func NewReader20(r io.Reader, c *Cipher20) *Reader20 {
	d := &Reader20{r: r, c: c, k0: c.key}
	d.m.reset()
	return d
}

// Resume makes d read the stream from mark pos, whose state StateAt
// gave: r then starts at byte pos of the stream.
func (d *Reader20) Resume(pos int64, st []byte) error {
	if err := checkMark(pos); err != nil {
		return err
	}
	d.pos = pos
	return d.c.Resume(st)
}

// StateAt returns the mark at or before stream byte pos and the
// cipher's state there, if still held.
func (d *Reader20) StateAt(pos int64) (int64, []byte, bool) { return d.m.at(pos, State20) }

func (d *Reader20) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		n, err := io.ReadFull(d.r, d.buf[:])
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			err = io.EOF
		}
		d.err = err
		d.m.note(d.pos, d.c.delta(d.k0))
		d.pos += int64(n)
		full := (n + 15) &^ 15
		clear(d.buf[n:full])
		for i := 0; i < full; i += 16 {
			d.c.DecryptBlock(d.buf[i : i+16])
		}
		d.out = d.buf[:n]
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

package rarcrypto

import (
	"encoding/binary"
	"io"

	"github.com/go-unarc/unarc/internal/errs"
)

// Re-entering the old ciphers mid-stream (decoder checkpoints). Neither
// can start at an arbitrary byte from the password alone: RAR 1.5's four
// keys step once per byte, RAR 2.0's keys take in every ciphertext block
// before. So Reader15 and Reader20 note their cipher's state at every
// MarkSpan-aligned position of the stream, the last Marks of them (more
// than the RAR decoders' 64 KiB input buffer reads ahead), and StateAt
// hands out the one at or before a checkpoint's byte. Resume restarts the
// cipher there; the reader then drops the bytes up to the checkpoint.
//
// RAR 1.5's state is its four keys (8 bytes). RAR 2.0's is its four keys
// XORed with those the password gives (16 bytes): the XOR of the CRC-32
// table entries of the ciphertext before the mark, so it holds nothing the
// archive does not show; Resume XORs it back onto the password's keys.
const (
	MarkSpan = 4096
	Marks    = 32
)

// State15 and State20 are the lengths of the states StateAt returns.
const (
	State15 = 8
	State20 = 16
)

// marks holds a cipher's state at the last Marks MarkSpan-aligned
// positions of its stream.
type marks struct {
	pos [Marks]int64 // -1: none
	st  [Marks][16]byte
}

func (m *marks) reset() {
	for i := range m.pos {
		m.pos[i] = -1
	}
}

func (m *marks) note(pos int64, st [16]byte) {
	i := pos / MarkSpan % Marks
	m.pos[i], m.st[i] = pos, st
}

// at returns the mark at or before pos and its state, if still held.
func (m *marks) at(pos int64, n int) (int64, []byte, bool) {
	if pos < 0 {
		return 0, nil, false
	}
	c := pos &^ (MarkSpan - 1)
	i := c / MarkSpan % Marks
	if m.pos[i] != c {
		return 0, nil, false
	}
	return c, append([]byte(nil), m.st[i][:n]...), true
}

func (c *Cipher15) state() (st [16]byte) {
	for i, k := range c.key {
		binary.LittleEndian.PutUint16(st[2*i:], k)
	}
	return st
}

// Resume sets the cipher's keys from a State15 state.
func (c *Cipher15) Resume(st []byte) error {
	if len(st) != State15 {
		return errs.Corrupt("rar: RAR 1.5 cipher state of %d bytes", len(st))
	}
	for i := range c.key {
		c.key[i] = binary.LittleEndian.Uint16(st[2*i:])
	}
	return nil
}

// Reader15 decrypts a RAR 1.5-encrypted stream, noting the cipher's
// state at every mark.
type Reader15 struct {
	r   io.Reader
	c   Cipher15
	pos int64
	m   marks
}

// NewReader15 returns a Reader15 over r, with c as the password sets it
// up.
func NewReader15(r io.Reader, c *Cipher15) *Reader15 {
	s := &Reader15{r: r, c: *c}
	s.m.reset()
	return s
}

// Resume makes s read the stream from mark pos, whose state StateAt
// gave: r then starts at byte pos of the stream.
func (s *Reader15) Resume(pos int64, st []byte) error {
	if err := checkMark(pos); err != nil {
		return err
	}
	s.pos = pos
	return s.c.Resume(st)
}

// checkMark checks that a resume starts at a mark.
func checkMark(pos int64) error {
	if pos < 0 || pos%MarkSpan != 0 {
		return errs.Corrupt("rar: cipher mark %d", pos)
	}
	return nil
}

func (s *Reader15) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		if s.pos%MarkSpan == 0 {
			s.m.note(s.pos, s.c.state())
		}
		k := min(int64(len(b)), MarkSpan-s.pos%MarkSpan)
		s.c.XORKeyStream(b[:k])
		b = b[k:]
		s.pos += k
	}
	return n, err
}

// StateAt returns the mark at or before stream byte pos and the
// cipher's state there, if still held.
func (s *Reader15) StateAt(pos int64) (int64, []byte, bool) { return s.m.at(pos, State15) }

// Resume sets the cipher's keys from a State20 state: the password's
// keys XORed with it.
func (c *Cipher20) Resume(st []byte) error {
	if len(st) != State20 {
		return errs.Corrupt("rar: RAR 2.0 cipher state of %d bytes", len(st))
	}
	for i := range c.key {
		c.key[i] ^= binary.LittleEndian.Uint32(st[4*i:])
	}
	return nil
}

// delta is c's keys XORed with k0's.
func (c *Cipher20) delta(k0 [4]uint32) (st [16]byte) {
	for i := range c.key {
		binary.LittleEndian.PutUint32(st[4*i:], c.key[i]^k0[i])
	}
	return st
}

// EncryptBlock encrypts one 16-byte block in place (for tests that build
// archives).
func (c *Cipher20) EncryptBlock(b []byte) { c.encrypt(b) }

package rar

import (
	"encoding/binary"

	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// cursor reads little-endian fields and RAR5 vints from a header held in
// memory. Reading past the end sets bad and yields zeroes, so a parser
// checks once per header instead of once per field.
type cursor struct {
	b   []byte
	bad bool
}

func (c *cursor) u8() byte {
	if len(c.b) < 1 {
		c.bad = true
		return 0
	}
	v := c.b[0]
	c.b = c.b[1:]
	return v
}

func (c *cursor) u16() uint16 {
	if b := c.bytes(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.bytes(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if b := c.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// bytes returns the next n bytes (aliasing the header buffer).
func (c *cursor) bytes(n uint64) []byte {
	if uint64(len(c.b)) < n {
		c.bad, c.b = true, nil
		return nil
	}
	v := c.b[:n:n]
	c.b = c.b[n:]
	return v
}

// vint reads a RAR5 variable-length integer: 7 bits per byte, low first,
// high bit set on all but the last byte; at most 10 bytes (technote
// "Data types").
func (c *cursor) vint() uint64 {
	var v uint64
	for i := 0; i < 10 && i < len(c.b); i++ {
		b := c.b[i]
		v |= uint64(b&0x7f) << (7 * i)
		if b&0x80 == 0 {
			c.b = c.b[i+1:]
			return v
		}
	}
	c.bad, c.b = true, nil
	return 0
}

// vintN reads a vint that must fit in a non-negative int64 and be <= max.
func (c *cursor) vintN(max uint64) int64 {
	v := c.vint()
	if v > max {
		c.bad = true
		return 0
	}
	return int64(v)
}

// pswCheck reads the password check value and its checksum that a RAR5
// encryption header or record holds when its flag bit 0 is set.
func (c *cursor) pswCheck(fl uint64) (check, sum []byte) {
	if fl&1 == 0 {
		return nil, nil
	}
	return c.bytes(rarcrypto.CheckSize5), c.bytes(4)
}

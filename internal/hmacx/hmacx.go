// Package hmacx is HMAC (RFC 2104) over SHA-1 or SHA-256 that can be
// keyed again without allocating: crypto/hmac makes two hash states and
// their saved pads per key, and archive formats derive keys per entry
// (WinZip AES: PBKDF2 keyed with the password, then the entry's
// authentication key; RAR5: PBKDF2-HMAC-SHA256 per salt). The hash
// states are made once, at the first SetKey; the states after the inner
// and outer pads are kept marshaled, so Reset costs no compression.
package hmacx

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding"
	"hash"
)

// HMAC is a reusable HMAC. The zero value is HMAC-SHA1; set New (before
// the first SetKey) for another hash whose blocks are 64 bytes and whose
// states marshal (crypto/sha256.New).
type HMAC struct {
	New          func() hash.Hash
	inner, outer hash.Hash
	innerU       encoding.BinaryUnmarshaler
	outerU       encoding.BinaryUnmarshaler
	ist, ost     []byte // marshaled states after the pads
	isum         [maxSize]byte

	// Scratch handed to the SHA-1 states: behind an interface, locals
	// would escape to the heap.
	pad  [blockSize]byte
	u    [maxSize]byte
	blkN [4]byte
}

const (
	blockSize = 64 // SHA-1 and SHA-256
	maxSize   = sha256.Size
)

const hmacState = 128 // room for a marshaled SHA-1 or SHA-256 state (96, 108 bytes)

// SetKey keys h with key (hashed first when longer than a block, as RFC
// 2104 says) and resets it.
func (h *HMAC) SetKey(key []byte) { setKey(h, key) }

// SetKeyString is SetKey for a string key (a password).
func (h *HMAC) SetKeyString(key string) { setKey(h, key) }

func setKey[K string | []byte](h *HMAC, key K) {
	if h.inner == nil {
		if h.New == nil {
			h.New = sha1.New
		}
		h.inner, h.outer = h.New(), h.New()
		if h.inner.BlockSize() != blockSize || h.inner.Size() > maxSize {
			panic("hmacx: hash with other than 64-byte blocks")
		}
		h.innerU = h.inner.(encoding.BinaryUnmarshaler)
		h.outerU = h.outer.(encoding.BinaryUnmarshaler)
		h.ist, h.ost = make([]byte, 0, hmacState), make([]byte, 0, hmacState)
	}
	pad := &h.pad
	*pad = [blockSize]byte{}
	if len(key) > blockSize {
		h.inner.Reset()
		for i := 0; i < len(key); i += blockSize {
			n := copy(pad[:], key[i:])
			h.inner.Write(pad[:n])
		}
		*pad = [blockSize]byte{}
		h.inner.Sum(pad[:0])
	} else {
		copy(pad[:], key)
	}
	for i := range pad {
		pad[i] ^= 0x36
	}
	h.inner.Reset()
	h.inner.Write(pad[:])
	h.ist = h.marshal(h.inner, h.ist)
	for i := range pad {
		pad[i] ^= 0x36 ^ 0x5c
	}
	h.outer.Reset()
	h.outer.Write(pad[:])
	h.ost = h.marshal(h.outer, h.ost)
}

func (h *HMAC) marshal(d hash.Hash, buf []byte) []byte {
	b, err := d.(encoding.BinaryAppender).AppendBinary(buf[:0])
	if err != nil {
		panic("hmacx: hash state: " + err.Error()) // crypto/sha1 always marshals
	}
	return b
}

// Reset starts a new message under the same key.
func (h *HMAC) Reset() {
	if err := h.innerU.UnmarshalBinary(h.ist); err != nil {
		panic("hmacx: hash state: " + err.Error())
	}
}

func (h *HMAC) Write(p []byte) (int, error) { return h.inner.Write(p) }

// Sum appends the MAC of what was written since Reset; the message state
// is unchanged.
func (h *HMAC) Sum(b []byte) []byte {
	inner := h.inner.Sum(h.isum[:0])
	if err := h.outerU.UnmarshalBinary(h.ost); err != nil {
		panic("hmacx: hash state: " + err.Error())
	}
	h.outer.Write(inner)
	return h.outer.Sum(b)
}

// Size is the MAC length (that of the hash; SetKey must have run).
func (h *HMAC) Size() int      { return h.inner.Size() }
func (h *HMAC) BlockSize() int { return blockSize }

// PBKDF2 fills out with PBKDF2-HMAC (RFC 2898 section 5.2) of
// password and salt with the given rounds, using h (which is left keyed
// with the password).
func (h *HMAC) PBKDF2(password string, salt []byte, rounds int, out []byte) {
	h.SetKeyString(password)
	n := h.inner.Size()
	u := h.u[:n]
	var tb [maxSize]byte
	t := tb[:n]
	for blk := uint32(1); len(out) > 0; blk++ {
		h.Block(salt, blk, u)
		copy(t, u)
		for r := 1; r < rounds; r++ {
			h.Next(u)
			for i := range t {
				t[i] ^= u[i]
			}
		}
		out = out[copy(out, t):]
	}
}

// Block sets u (Size bytes) to the first PBKDF2 value of block blk:
// HMAC(salt || blk as 4 big-endian bytes).
func (h *HMAC) Block(salt []byte, blk uint32, u []byte) {
	h.Reset()
	h.Write(salt)
	h.blkN = [4]byte{byte(blk >> 24), byte(blk >> 16), byte(blk >> 8), byte(blk)}
	h.Write(h.blkN[:])
	h.Sum(h.u[:0])
	copy(u, h.u[:len(u)])
}

// Next replaces u (Size bytes) with HMAC(u): the next PBKDF2 value.
func (h *HMAC) Next(u []byte) {
	n := copy(h.u[:], u) // through the field: u itself would escape
	h.Reset()
	h.Write(h.u[:n])
	h.Sum(h.u[:0])
	copy(u, h.u[:n])
}

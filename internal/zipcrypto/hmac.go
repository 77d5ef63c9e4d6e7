package zipcrypto

import (
	"crypto/sha1"
	"encoding"
	"hash"
)

// HMAC is HMAC-SHA1 (RFC 2104) that can be keyed again without
// allocating: crypto/hmac makes two SHA-1 states and their saved pads per
// key, and WinZip AES needs a new key for every entry (PBKDF2 keyed with
// the password, then the entry's authentication key). The SHA-1 states
// are made once, at the first SetKey; the states after the inner and
// outer pads are kept marshaled, so Reset costs no compression. The zero
// value is ready for SetKey.
type HMAC struct {
	inner, outer hash.Hash
	innerU       encoding.BinaryUnmarshaler
	outerU       encoding.BinaryUnmarshaler
	ist, ost     []byte // marshaled states after the pads
	isum         [sha1.Size]byte

	// Scratch handed to the SHA-1 states: behind an interface, locals
	// would escape to the heap.
	pad  [sha1.BlockSize]byte
	u    [sha1.Size]byte
	blkN [4]byte
}

const hmacState = 128 // room for a marshaled SHA-1 state (96 bytes)

// SetKey keys h with key (hashed first when longer than a block, as RFC
// 2104 says) and resets it.
func (h *HMAC) SetKey(key []byte) { setKey(h, key) }

// SetKeyString is SetKey for a string key (a password).
func (h *HMAC) SetKeyString(key string) { setKey(h, key) }

func setKey[K string | []byte](h *HMAC, key K) {
	if h.inner == nil {
		h.inner, h.outer = sha1.New(), sha1.New()
		h.innerU = h.inner.(encoding.BinaryUnmarshaler)
		h.outerU = h.outer.(encoding.BinaryUnmarshaler)
		h.ist, h.ost = make([]byte, 0, hmacState), make([]byte, 0, hmacState)
	}
	pad := &h.pad
	*pad = [sha1.BlockSize]byte{}
	if len(key) > sha1.BlockSize {
		h.inner.Reset()
		for i := 0; i < len(key); i += sha1.BlockSize {
			n := copy(pad[:], key[i:])
			h.inner.Write(pad[:n])
		}
		*pad = [sha1.BlockSize]byte{}
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
		panic("zipcrypto: SHA-1 state: " + err.Error()) // crypto/sha1 always marshals
	}
	return b
}

// Reset starts a new message under the same key.
func (h *HMAC) Reset() {
	if err := h.innerU.UnmarshalBinary(h.ist); err != nil {
		panic("zipcrypto: SHA-1 state: " + err.Error())
	}
}

func (h *HMAC) Write(p []byte) (int, error) { return h.inner.Write(p) }

// Sum appends the MAC of what was written since Reset; the message state
// is unchanged.
func (h *HMAC) Sum(b []byte) []byte {
	inner := h.inner.Sum(h.isum[:0])
	if err := h.outerU.UnmarshalBinary(h.ost); err != nil {
		panic("zipcrypto: SHA-1 state: " + err.Error())
	}
	h.outer.Write(inner)
	return h.outer.Sum(b)
}

func (h *HMAC) Size() int      { return sha1.Size }
func (h *HMAC) BlockSize() int { return sha1.BlockSize }

// PBKDF2 fills out with PBKDF2-HMAC-SHA1 (RFC 2898 section 5.2) of
// password and salt with the given rounds, using h (which is left keyed
// with the password).
func (h *HMAC) PBKDF2(password string, salt []byte, rounds int, out []byte) {
	h.SetKeyString(password)
	u := &h.u
	var t [sha1.Size]byte
	for blk := uint32(1); len(out) > 0; blk++ {
		h.Reset()
		h.Write(salt)
		h.blkN = [4]byte{byte(blk >> 24), byte(blk >> 16), byte(blk >> 8), byte(blk)}
		h.Write(h.blkN[:])
		h.Sum(u[:0])
		t = *u
		for r := 1; r < rounds; r++ {
			h.Reset()
			h.Write(u[:])
			h.Sum(u[:0])
			for i := range t {
				t[i] ^= u[i]
			}
		}
		out = out[copy(out, t[:]):]
	}
}

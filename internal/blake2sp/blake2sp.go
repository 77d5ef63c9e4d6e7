// Package blake2sp implements BLAKE2sp, the 8-way parallel tree mode of
// BLAKE2s (RFC 7693; BLAKE2 paper section 2.10), unkeyed with 32-byte
// output: the hash RAR 5 stores for files with the -htb switch.
//
// The input is cut into 64-byte blocks dealt round-robin to 8 BLAKE2s
// leaves (fanout 8, depth 2, inner length 32, node offset = leaf index,
// the last leaf flagged as last node). The root BLAKE2s (node depth 1,
// last node) hashes the eight leaf digests.
package blake2sp

import (
	"encoding/binary"
	"hash"
)

const (
	// Size is the digest size in bytes.
	Size = 32
	// BlockSize is the BLAKE2s block size in bytes.
	BlockSize = 64

	leaves = 8
	stripe = leaves * BlockSize
)

var iv = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// digest is the running state: 8 leaf states plus input held back,
// because a leaf's last block must be compressed with the final flag and
// only Sum knows which block is last. A stripe is compressed once the
// block after it for the last leaf has begun: more than holdBack bytes.
type digest struct {
	h   [leaves][8]uint32
	t   [leaves]uint64 // bytes compressed per leaf
	buf [2 * stripe]byte
	n   int // bytes in buf, at most holdBack
}

const holdBack = stripe + (leaves-1)*BlockSize

// New returns a BLAKE2sp hash.Hash (Size 32, BlockSize 64).
func New() hash.Hash {
	d := new(digest)
	d.Reset()
	return d
}

// Sum256 returns the BLAKE2sp digest of data.
func Sum256(data []byte) [Size]byte {
	var d digest
	d.Reset()
	d.Write(data)
	var out [Size]byte
	d.sum(out[:0])
	return out
}

func (d *digest) Size() int      { return Size }
func (d *digest) BlockSize() int { return BlockSize }

// param returns the BLAKE2s parameter block words 0 and 3 (the others are
// the node offset in word 2 and zero): digest length 32, fanout 8, depth 2,
// node depth and inner length 32.
func param(nodeDepth uint32) (w0, w3 uint32) {
	return Size | leaves<<16 | 2<<24, nodeDepth<<16 | Size<<24
}

func (d *digest) Reset() {
	w0, w3 := param(0)
	for i := range d.h {
		d.h[i] = iv
		d.h[i][0] ^= w0
		d.h[i][2] ^= uint32(i)
		d.h[i][3] ^= w3
		d.t[i] = 0
	}
	d.n = 0
}

func (d *digest) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		switch {
		case d.n == 0 && len(p) > holdBack:
			// Straight from p, leaving 449..960 bytes for the buffer.
			k := (len(p) - holdBack + stripe - 1) / stripe * stripe
			d.stripes(p[:k])
			p = p[k:]
		case d.n >= stripe && d.n+len(p) > holdBack:
			d.stripes(d.buf[:stripe])
			d.n = copy(d.buf[:], d.buf[stripe:d.n])
		case d.n < stripe:
			// Top up to a stripe boundary first, so the buffer empties
			// and large writes go straight from p again.
			k := copy(d.buf[d.n:stripe], p)
			d.n += k
			p = p[k:]
		default:
			k := copy(d.buf[d.n:], p)
			d.n += k
			p = p[k:]
		}
	}
	return n, nil
}

// stripes compresses whole stripes, none of them final. Every leaf has
// compressed the same number of bytes here (only sum, on a copy, gives
// the leaves different counts).
func (d *digest) stripes(p []byte) {
	if n := len(p) / stripe; useAVX2 && n > 0 {
		stripesAVX2(&d.h, &p[0], n, d.t[0])
		for i := range d.t {
			d.t[i] += uint64(n) * BlockSize
		}
		return
	}
	d.stripesGeneric(p)
}

// stripesGeneric is stripes one leaf after the other in pure Go.
func (d *digest) stripesGeneric(p []byte) {
	for len(p) >= stripe {
		for i := 0; i < leaves; i++ {
			d.t[i] += BlockSize
			compress(&d.h[i], p[i*BlockSize:(i+1)*BlockSize], d.t[i], 0, 0)
		}
		p = p[stripe:]
	}
}

// Sum appends the digest of the data written so far; the state is unchanged.
func (d *digest) Sum(b []byte) []byte {
	c := *d
	return c.sum(b)
}

func (d *digest) sum(b []byte) []byte {
	var leafOut [leaves * Size]byte
	var block [BlockSize]byte
	blocks := (d.n + BlockSize - 1) / BlockSize // at most 15
	for i := 0; i < leaves; i++ {
		h := d.h[i]
		t := d.t[i]
		last := i // this leaf's final block index in buf
		if i+leaves < blocks {
			t += BlockSize
			compress(&h, d.buf[i*BlockSize:(i+1)*BlockSize], t, 0, 0)
			last = i + leaves
		}
		left := max(0, min(d.n-last*BlockSize, BlockSize))
		block = [BlockSize]byte{}
		copy(block[:], d.buf[last*BlockSize:last*BlockSize+left])
		var f1 uint32
		if i == leaves-1 {
			f1 = 0xffffffff
		}
		compress(&h, block[:], t+uint64(left), 0xffffffff, f1)
		for j, v := range h {
			binary.LittleEndian.PutUint32(leafOut[i*Size+j*4:], v)
		}
	}
	w0, w3 := param(1)
	root := iv
	root[0] ^= w0
	root[3] ^= w3
	for k := 0; k < 3; k++ {
		compress(&root, leafOut[k*BlockSize:(k+1)*BlockSize], uint64(k+1)*BlockSize, 0, 0)
	}
	compress(&root, leafOut[3*BlockSize:], 4*BlockSize, 0xffffffff, 0xffffffff)
	for _, v := range root {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

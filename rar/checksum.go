package rar

import (
	"encoding/binary"
	"hash"
	"hash/crc32"

	"github.com/go-unarc/unarc/internal/blake2sp"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// newBLAKE2sp returns the hash RAR5 -htb archives store (32-byte BLAKE2sp).
var newBLAKE2sp = blake2sp.New

// macCRC is a CRC-32 whose Sum is the RAR5 MAC of the CRC (unrar
// ConvertHashToMAC), as 4 big-endian bytes, for entries whose stored
// checksums were converted with the file's hash key. Readers keep one
// as a field and reset it per entry, so the check allocates nothing.
type macCRC struct {
	crc  uint32
	key  *[32]byte
	want [4]byte // the stored value the verifier compares Sum with

	// The BLAKE2sp check of -htb entries, kept for the next entry, and
	// its MAC conversion.
	b2 hash.Hash
	mh macHash
}

func (m *macCRC) reset(key *[32]byte) hash.Hash {
	m.crc, m.key = 0, key
	return m
}

func (m *macCRC) Write(p []byte) (int, error) {
	m.crc = crc32.Update(m.crc, crc32.IEEETable, p)
	return len(p), nil
}

func (m *macCRC) Sum(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, rarcrypto.MACCRC32(m.key, m.crc))
}

func (m *macCRC) Reset()         { m.crc = 0 }
func (m *macCRC) Size() int      { return 4 }
func (m *macCRC) BlockSize() int { return 1 }

// macHash is a BLAKE2sp whose Sum is HMAC-SHA256(key, digest).
type macHash struct {
	hash.Hash
	key *[32]byte
	d   [32]byte // the digest (a local would escape through the interface)
}

func (m *macHash) Sum(b []byte) []byte {
	mac := rarcrypto.MACHash(m.key, m.Hash.Sum(m.d[:0]))
	return append(b, mac[:]...)
}

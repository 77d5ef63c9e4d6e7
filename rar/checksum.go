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
// checksums were converted with the file's hash key.
type macCRC struct {
	hash.Hash32
	key *[32]byte
}

func (m macCRC) Sum(b []byte) []byte {
	return binary.BigEndian.AppendUint32(b, rarcrypto.MACCRC32(m.key, m.Hash32.Sum32()))
}

func newMACCRC(key *[32]byte) hash.Hash { return macCRC{crc32.NewIEEE(), key} }

// macHash is a BLAKE2sp whose Sum is HMAC-SHA256(key, digest).
type macHash struct {
	hash.Hash
	key *[32]byte
}

func (m macHash) Sum(b []byte) []byte {
	var d [32]byte
	return append(b, rarcrypto.MACHash(m.key, m.Hash.Sum(d[:0]))...)
}

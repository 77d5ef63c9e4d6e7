package rar

import (
	"fmt"
	"strconv"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

var errFormat = fmt.Errorf("%w: no RAR marker", errs.ErrFormat)

// Encryption schemes of an entry's data.
const (
	cryptNone  = 0
	cryptRAR3  = 3  // AES-128-CBC, SHA-1 KDF (RAR 2.9–4.x)
	cryptRAR5  = 5  // AES-256-CBC, PBKDF2-HMAC-SHA256
	cryptRAR20 = 2  // RAR 2.0 proprietary block cipher
	cryptRAR15 = 15 // RAR 1.5 proprietary stream cipher
	cryptRAR13 = 13 // RAR 1.3 byte cipher
)

// part is one piece of an entry's packed data, in volume vol.
type part struct {
	vol  int
	off  int64
	size int64
}

// file is what the header reader knows about one entry beyond arc.Entry.
type file struct {
	e       *arc.Entry
	parts   []part
	version int // container: 4 or 5
	algo    int // unpack algorithm: 15, 20, 26, 29, 36, 50, 70
	method  int // 0 stored … 5 best
	dict    int64
	solid   bool // continues the previous entry's decoder state
	unknown bool // unpacked size not known in advance (RAR5 flag)
	split   bool // data continues in a later volume (not yet complete)
	first   bool // first part seen (not continued from a volume we lack)

	// Encryption.
	crypt   int
	salt    []byte
	iv      [16]byte
	lg2     int
	check   []byte // RAR5 password check value (8 bytes) or nil
	useMAC  bool   // RAR5: stored checksums are HMACs keyed by the hash key
	hashKey *[32]byte

	// Checksums as stored.
	hasCRC bool
	crc    uint32
	blake  []byte // RAR5 BLAKE2sp digest (32 bytes) or nil
	// crcMAC is crc as 4 big-endian bytes, Entry.Hash of a RAR5 entry
	// whose CRC is a MAC (held here: a slice of its own per entry was
	// an allocation per listed entry).
	crcMAC [4]byte

	isVersion bool // an older file version (-ver), "name;n"
	linkRead  bool // RAR4 symlink: e.LinkTarget holds the target read from the data

	// copyOf is, for a file copy or hard link, the index of the entry
	// that finally holds the content (chains resolved); -1 otherwise.
	copyOf int
	// copied: a later copy or hard link takes its content from this entry.
	copied bool
	// missing is why the entry cannot be read (a volume it needs is
	// missing), or nil.
	missing error
	// broken is why the entry's own header cannot be trusted (its CRC
	// does not match), or nil: the entry is listed, not read.
	broken error
}

// methodName is the listing name: "stored", "RAR5 m3", "v29 m3". The
// usual names are constants: this runs for every entry listed, and
// fmt's printer comes from a sync.Pool that a GC empties, which moved
// an archive's allocation by 200 B or more from one Open to the next.
func (f *file) methodName() string {
	if f.method == 0 {
		return "stored"
	}
	m := f.method
	if f.version == 5 {
		if f.algo == 70 {
			return "RAR7 m" + strconv.Itoa(m)
		}
		if m > 0 && m < len(rar5Methods) {
			return rar5Methods[m]
		}
		return "RAR5 m" + strconv.Itoa(m)
	}
	if f.algo == 29 && m > 0 && m < len(v29Methods) {
		return v29Methods[m]
	}
	return "v" + strconv.Itoa(f.algo) + " m" + strconv.Itoa(m)
}

var (
	rar5Methods = [...]string{"stored", "RAR5 m1", "RAR5 m2", "RAR5 m3", "RAR5 m4", "RAR5 m5"}
	v29Methods  = [...]string{"stored", "v29 m1", "v29 m2", "v29 m3", "v29 m4", "v29 m5"}
)

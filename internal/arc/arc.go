// Package arc holds the types shared by the root package and the format
// packages (zip, rar, sevenzip): the entry description, the options, and
// the small interfaces a format implements. The root re-exports them with
// type aliases, so format packages never import the root.
package arc

import (
	"io"
	"io/fs"
	"time"
)

// LinkKind says what kind of link an entry is.
type LinkKind uint8

const (
	LinkNone     LinkKind = iota
	LinkSymlink           // LinkTarget is the symlink's target, as stored
	LinkHardlink          // LinkTarget is the name of an earlier entry
	LinkCopy              // RAR5 file copy: content is that of entry LinkTarget
	LinkJunction          // Windows junction (directory link); never followed by Extract
)

func (k LinkKind) String() string {
	switch k {
	case LinkSymlink:
		return "symlink"
	case LinkHardlink:
		return "hardlink"
	case LinkCopy:
		return "copy"
	case LinkJunction:
		return "junction"
	}
	return "none"
}

// Entry describes one member of an archive.
type Entry struct {
	Name       string      // path as stored, '/'-separated; never trust it for writing (Extract checks it)
	Size       int64       // uncompressed size in bytes; -1 when not known before reading (streamed ZIP)
	PackedSize int64       // compressed size in bytes; -1 when unknown (solid 7z folders share it)
	Modified   time.Time   // zero when the archive does not record it
	Created    time.Time   // zero when absent
	Accessed   time.Time   // zero when absent
	Mode       fs.FileMode // permission bits plus fs.ModeDir / fs.ModeSymlink
	Link       LinkKind    // LinkNone for ordinary files and directories
	LinkTarget string      // for links: target as stored, '/'-separated
	Method     string      // compression method name as the format calls it, e.g. "Deflate", "LZMA2:24", "RAR5 m3"
	Encrypted  bool        // data (or headers) need a password
	Solid      bool        // decoding depends on earlier entries
	HasCRC32   bool        // CRC32 is valid
	CRC32      uint32      // CRC-32 (IEEE) of the content, when HasCRC32
	HashKind   string      // other content hash, e.g. "BLAKE2sp"; "" if none
	Hash       []byte      // its value
	Comment    string      // per-entry comment (ZIP)
	Index      int         // position in the archive listing, from 0
}

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.Mode.IsDir() }

// Limits bounds what an archive may make the library allocate or write.
// Zero fields take the defaults from DefaultLimits.
type Limits struct {
	MaxDictionary int64   // largest decoder window/dictionary (bytes)
	MaxMemory     int64   // largest total decoder memory for one entry (bytes)
	MaxEntrySize  int64   // largest uncompressed entry (bytes)
	MaxRatio      float64 // largest uncompressed/packed ratio; checked only for entries whose packed size exceeds 1 MiB
}

// DefaultLimits are generous enough for any archive 7-Zip or RAR writes
// with their largest presets, and small enough that a hostile header
// cannot take the machine down.
var DefaultLimits = Limits{
	MaxDictionary: 4 << 30,
	MaxMemory:     5 << 30,
	MaxEntrySize:  1 << 46,
	MaxRatio:      0,
}

// WithDefaults returns l with zero fields replaced by DefaultLimits.
func (l Limits) WithDefaults() Limits {
	if l.MaxDictionary <= 0 {
		l.MaxDictionary = DefaultLimits.MaxDictionary
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultLimits.MaxMemory
	}
	if l.MaxEntrySize <= 0 {
		l.MaxEntrySize = DefaultLimits.MaxEntrySize
	}
	return l
}

// VolumeOpener opens another volume of a multi-volume set by its path
// (the format computes the name from Config.Name with its naming rules).
// It returns fs.ErrNotExist (wrapped) when the volume is missing.
type VolumeOpener func(name string) (io.ReaderAt, int64, error)

// Config is what the root hands a format package when opening an archive.
type Config struct {
	// Password returns the password for the archive (entry == nil: encrypted
	// headers) or for one entry. Nil means no password is known: encrypted
	// data fails with errs.ErrPasswordRequired.
	Password func(entry *Entry) (string, error)
	Limits   Limits
	// Name is the path of the first volume ("" when not opened from a file);
	// OpenVolume opens the others. Both may be empty: then a multi-volume
	// archive fails with a clear error naming the volume it needs.
	Name       string
	OpenVolume VolumeOpener
}

// Archive is a format package's random-access view of an archive.
type Archive interface {
	Entries() []*Entry
	// Open returns a reader of entry i's content. Reading it to io.EOF
	// verifies the stored checksum: a mismatch is returned in place of
	// io.EOF as an error matching errs.ErrChecksum.
	Open(i int) (io.ReadCloser, error)
	Comment() string
	Close() error
}

// Reader is a format package's forward-only view over a stream.
type Reader interface {
	// Next advances to the next entry, skipping what is left of the current
	// one; it returns io.EOF after the last.
	Next() (*Entry, error)
	// Read reads the current entry's content, verified as for Archive.Open.
	Read(p []byte) (int, error)
	Close() error
}

// Format is what a format package registers with the root.
type Format struct {
	Name string
	// Magic prefixes that start an archive of this format; the stream
	// reader scans for them (SFX stubs and other prepended data).
	Magic [][]byte
	// Sniff reports whether ra holds this format. It may scan for a
	// signature behind prepended data.
	Sniff func(ra io.ReaderAt, size int64) bool
	// Open opens ra (size bytes) for random access.
	Open func(ra io.ReaderAt, size int64, cfg *Config) (Archive, error)
	// NewReader reads an archive from r, which is positioned at one of
	// Magic. Nil if the format cannot be read forward-only.
	NewReader func(r io.Reader, cfg *Config) (Reader, error)
}

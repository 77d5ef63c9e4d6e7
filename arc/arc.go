// Package arc is the contract a format implements and the options every
// format takes: the Entry an archive lists, the Archive (random access)
// and Reader (forward-only) views a format returns, the Limits that bound
// what an archive may make the library allocate, the Options of a
// format's Open and NewReader, and Format, the record by which a format
// is known (its name, signatures, Open, NewReader and index opener).
//
// Most programs use the root package unarc, which detects the format
// and re-exports Entry and Limits. A program that knows its format can
// use that format package alone, with the same options:
//
//	a, err := rar.Open(f, size,
//		arc.WithPassword("secret"),
//		arc.WithLimits(arc.SafeLimits))
//
// Every format package has the same shape: Open(io.ReaderAt, size,
// ...Option) for random access, NewReader(io.Reader, ...Option) where the
// format can be read forward-only (not 7z), and a Format value.
package arc

import (
	"io"
	"io/fs"
	"time"

	"github.com/go-unarc/unarc/internal/engine"
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
	// Sys is format-specific metadata that Entry has no field for, or nil:
	// for tar entries the *archive/tar.Header (Uid, Gid, Uname, Gname,
	// device numbers, PAXRecords with times in ns and SCHILY.xattr.*).
	// Read it; do not modify it.
	Sys any
}

// Verifiable reports whether reading the entry checks its content
// against something stored: a CRC32 or another hash (BLAKE2sp, an
// authentication code). Entries that are not verifiable can be decoded,
// but corrupt data or a wrong password may go unnoticed.
func (e *Entry) Verifiable() bool { return e.HasCRC32 || e.HashKind != "" }

// IsDir reports whether the entry is a directory.
func (e *Entry) IsDir() bool { return e.Mode.IsDir() }

// Limits bounds what an archive may make the library allocate, write or
// compute. For every field, zero takes the value from DefaultLimits and a
// negative value lifts the limit. Each limit that is crossed fails with an
// error matching the root's ErrLimit that names the limit and the value.
type Limits struct {
	// MaxDictionary is the largest window one decoder may allocate. A
	// dictionary declared larger than the data it can hold is clamped to
	// that data first, so this bounds real allocation, not declarations.
	MaxDictionary int64
	// MaxMemory is the total decoder memory of one entry (or one solid
	// folder): every coder of a chain together — windows, PPMd models,
	// BCJ2 buffers, zstd windows, bzip2 blocks, cipher state.
	MaxMemory int64
	// MaxHeaderMemory bounds the memory a format spends on its index: the
	// decoded 7z header, the RAR or ZIP directory, and the Entry values.
	MaxHeaderMemory int64
	// MaxEntries is the largest number of entries an archive may declare;
	// it is checked before anything is allocated per entry.
	MaxEntries int64
	// MaxEntrySize is the largest uncompressed entry.
	MaxEntrySize int64
	// MaxTotalSize bounds the bytes produced over an Archive's or
	// Reader's whole life (every entry, solid run, file copy and link).
	// Archive.Extract and Archive.Verify also judge the sizes the chosen
	// entries declare against it before decoding anything.
	MaxTotalSize int64
	// MaxRatio bounds output that no header declares (entries of unknown
	// size, a decompressed tar stream, an inner 7z coder's output beyond
	// its folder's size) against the input consumed, measured as data
	// flows once more than RatioFloor such bytes have been produced.
	// Output of an entry whose size is declared is held to that size
	// instead (more is corrupt data) and is not measured by the ratio.
	MaxRatio float64
	// RatioFloor is the undeclared output below which MaxRatio is not
	// applied.
	RatioFloor int64
	// MaxNameLength is the longest entry name (bytes) Extract will create.
	MaxNameLength int64
	// MaxPathDepth is the largest number of path components Extract will create.
	MaxPathDepth int64
	// MaxKDFRounds bounds the key-derivation work of one archive: the sum
	// of the rounds (iterations) of every distinct key derived.
	MaxKDFRounds int64
}

// Unlimited is the value that lifts a limit.
const Unlimited = -1

// DefaultLimits are what the library uses for zero fields: generous
// enough for any archive 7-Zip or RAR writes with their largest presets
// (and for backup restores of sparse disk images), small enough that a
// hostile header cannot take the process down.
var DefaultLimits = Limits{
	MaxDictionary:   4 << 30,
	MaxMemory:       5 << 30,
	MaxHeaderMemory: 1 << 30,
	MaxEntries:      4 << 20,
	MaxEntrySize:    1 << 46,
	MaxTotalSize:    Unlimited,
	MaxRatio:        Unlimited,
	RatioFloor:      64 << 20,
	MaxNameLength:   32 << 10,
	MaxPathDepth:    1024,
	MaxKDFRounds:    1 << 27,
}

// SafeLimits is the profile the unarc command applies by default. A
// bomb is output that lies about its size, output larger than the disk
// or than MaxTotalSize, or output no header declares; so declared sizes
// bound each entry (a liar is corrupt), the declared total is judged
// before decoding (MaxTotalSize; Extract also checks free space), and
// the ratio applies only to undeclared output, past a floor that real
// tarballs of a few hundred MiB of zeros or logs stay under. Decoder
// memory stops at 2 GiB (windows are first clamped to the data they
// can hold), so a model or a chain of coders declaring more is refused
// before it is allocated.
var SafeLimits = Limits{
	MaxDictionary:   2 << 30,
	MaxMemory:       2 << 30,
	MaxHeaderMemory: 128 << 20,
	MaxEntries:      1 << 20,
	MaxEntrySize:    1 << 40,
	MaxTotalSize:    1 << 40,
	MaxRatio:        1000,
	RatioFloor:      1 << 30,
	MaxNameLength:   4096,
	MaxPathDepth:    256,
	MaxKDFRounds:    1 << 25,
}

// WithDefaults returns l resolved for use: zero fields take DefaultLimits,
// and lifted (negative) fields become the largest value, so code that
// applies a limit needs no special case (a lifted MaxRatio becomes +Inf).
// It shows what the library applies; the resolution itself is done once,
// in one place, for every Open.
func (l Limits) WithDefaults() Limits {
	r := engine.ResolveLimits(engine.LimitsRequest(l), engine.LimitsRequest(DefaultLimits))
	return Limits(r.Request())
}

// VolumeOpener opens another volume of a multi-volume set by its path
// (the format computes the name from Config.Name with its naming rules).
// It returns fs.ErrNotExist (wrapped) when the volume is missing.
type VolumeOpener func(name string) (io.ReaderAt, int64, error)

// Config is the resolved settings a Format's Open, NewReader and
// OpenIndex receive: the Options of one Open applied in order. Limits
// stays the request as the Options set it; the library resolves it once
// per Open into a bound for every field (what Limits.WithDefaults shows),
// which the formats apply. The root makes one per Open; a format
// package's own Open and NewReader take Options and resolve them into
// one. A Format resolves the Config it is handed again, so a Config
// literal passed to it works too.
type Config struct {
	// Password returns the password for the archive (entry == nil: encrypted
	// headers) or for one entry. Nil means no password is known: encrypted
	// data fails with an error matching the root's ErrPasswordRequired.
	Password func(entry *Entry) (string, error)
	// Limits are the limits asked for (zero fields: DefaultLimits,
	// negative: lifted), as WithLimits set them.
	Limits Limits
	// Name is the path of the first volume ("" when not opened from a file);
	// OpenVolume opens the others. Both may be empty: then a multi-volume
	// archive fails with a clear error naming the volume it needs.
	Name       string
	OpenVolume VolumeOpener
	// FileVersions lists older file versions (RAR "name;N") as entries of
	// their own; by default they are skipped, as unrar does without -ver.
	FileVersions bool
	// DebData opens a Debian package's data tarball (its data.tar.*
	// member) as the archive, instead of the ar archive the package is:
	// the files it installs. Other formats ignore it.
	DebData bool
	// DecodeName decodes an entry name stored in a legacy code page (a ZIP
	// name without the UTF-8 flag). Nil means CP437, as APPNOTE says.
	DecodeName func(raw []byte) string

	// settings are what the library's own packages set (the
	// key-derivation budget, the workers per entry); its fields read as
	// cfg.Budget and cfg.Workers inside the module.
	settings
}

// settings names engine.Settings so that Config embeds it unexported.
type settings = engine.Settings

// Archive is a format package's random-access view of an archive.
type Archive interface {
	Entries() []*Entry
	// Open returns a reader of entry i's content. Reading it to io.EOF
	// verifies the stored checksum: a mismatch is returned in place of
	// io.EOF as an error matching the root's ErrChecksum.
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

// Format is how a format is known: the root's registry holds one per
// format package and asks it, never the package, to detect, open and
// reopen an archive.
type Format struct {
	// Name is the format's name ("zip", "rar", "7z", "tar").
	Name string
	// Extensions are the file name extensions of the format, with their
	// dot (".zip", ".tar.gz"), most common first. Detection never uses
	// them (it reads content).
	Extensions []string
	// Magic prefixes that start an archive of this format; the stream
	// reader scans for them (SFX stubs and other prepended data).
	Magic [][]byte
	// Sniff reports whether ra holds this format. It may scan for a
	// signature behind prepended data.
	Sniff func(ra io.ReaderAt, size int64) bool
	// SniffHead reports whether head, the first bytes of a stream, starts
	// this format where it has no Magic to search for (tar: a header
	// checksum, or a compressor's signature). Nil if Magic says it all.
	SniffHead func(head []byte) bool
	// Open opens ra (size bytes) for random access.
	Open func(ra io.ReaderAt, size int64, cfg *Config) (Archive, error)
	// NewReader reads an archive from r, which is positioned at one of
	// Magic (or at what SniffHead accepted). Nil if the format cannot be
	// read forward-only.
	NewReader func(r io.Reader, cfg *Config) (Reader, error)
	// PreferReader reports whether ra (size bytes), which this format
	// opens, is read at less cost forward-only, by NewReader, than by
	// Open: a compressed tarball, which an Archive decodes once to list
	// and again to read. Nil means never.
	PreferReader func(ra io.ReaderAt, size int64) bool
	// OpenIndex rebuilds an Archive from a payload the Archive's
	// ExportIndex returned, over the same archive. It reads only the
	// header regions the payload names (to check them), never the data,
	// and derives no key the payload holds. A payload that does not
	// describe ra (another archive, a changed one, a damaged payload)
	// fails with an error matching ErrStaleIndex. Nil if the format has
	// no index.
	OpenIndex func(ra io.ReaderAt, size int64, payload []byte, cfg *Config) (Archive, error)
	// IndexNames are the names an index of this format is recorded under
	// (the name its Archive reports: "tar.gz", "xz" …); empty means Name.
	IndexNames []string
}

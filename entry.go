package unarc

import "github.com/go-unarc/unarc/arc"

// Entry describes one archive member. It is arc.Entry, defined in
// package arc, the contract every format package implements (they cannot
// import this one); its fields are listed here:
//
//	type Entry struct {
//		Name       string      // path as stored, '/'-separated; never trust it for writing (Extract checks it)
//		Size       int64       // uncompressed size in bytes; -1 when not known before reading (streamed ZIP)
//		PackedSize int64       // compressed size in bytes; -1 when unknown (solid 7z folders share it)
//		Modified   time.Time   // zero when the archive does not record it
//		Created    time.Time   // zero when absent
//		Accessed   time.Time   // zero when absent
//		Mode       fs.FileMode // permission bits plus fs.ModeDir / fs.ModeSymlink (tar: also device, FIFO, socket types)
//		Link       LinkKind    // LinkNone for ordinary files and directories
//		LinkTarget string      // for links: target as stored, '/'-separated
//		Method     string      // compression method as the format calls it, e.g. "Deflate", "LZMA2:24", "RAR5 m3"
//		Encrypted  bool        // data (or headers) need a password
//		Solid      bool        // decoding depends on earlier entries
//		HasCRC32   bool        // CRC32 is valid
//		CRC32      uint32      // CRC-32 (IEEE) of the content, when HasCRC32
//		HashKind   string      // other content hash, e.g. "BLAKE2sp"; "" if none
//		Hash       []byte      // its value
//		Comment    string      // per-entry comment (ZIP)
//		Index      int         // position in the archive listing, from 0
//		Sys        any         // format-specific metadata: *archive/tar.Header for tar (uid, gid, names, PAX records, xattrs)
//	}
//
//	func (e *Entry) IsDir() bool      // a directory
//	func (e *Entry) Verifiable() bool // reading checks the content against a stored CRC32 or hash
//
// A 7z symlink keeps its target in its data: Entry.LinkTarget stays ""
// until the entry is first read (listing decodes nothing); call
// Archive.LinkTarget for a target that is always resolved.
//
// Entries belong to their Archive or Reader; do not modify them. Names
// are Unicode: legacy code-page ZIP names are decoded (WithNameDecoder).
type Entry = arc.Entry

// LinkKind says whether an entry is a symlink, hard link, file copy or
// junction.
type LinkKind = arc.LinkKind

// Link kinds.
const (
	LinkNone     = arc.LinkNone
	LinkSymlink  = arc.LinkSymlink  // LinkTarget is the symlink's target, as stored
	LinkHardlink = arc.LinkHardlink // LinkTarget is the name of an earlier entry
	LinkCopy     = arc.LinkCopy     // RAR5 file copy: content is that of entry LinkTarget
	LinkJunction = arc.LinkJunction // Windows junction (directory link); never followed by Extract
)

// Limits bounds what an archive may make the library allocate, write or
// compute. For every field, zero takes the value from DefaultLimits and
// Unlimited (any negative value) lifts the limit. A crossed limit fails
// with an error matching ErrLimit that names the limit and the value.
// It is arc.Limits, defined in package arc as Entry is; its fields:
//
//	type Limits struct {
//		MaxDictionary   int64   // largest window one decoder may allocate (declared sizes are clamped to the data first)
//		MaxMemory       int64   // total decoder memory of one entry or solid folder, every coder of a chain together
//		MaxHeaderMemory int64   // memory spent on the index: the 7z header, the RAR or ZIP directory, the Entry values
//		MaxEntries      int64   // most entries an archive may declare, checked before anything is allocated per entry
//		MaxEntrySize    int64   // largest uncompressed entry
//		MaxTotalSize    int64   // bytes produced over an Archive's or Reader's whole life; declared totals are judged before decoding
//		MaxRatio        float64 // undeclared output (entries of unknown size, a tar stream) / consumed bytes, measured as data flows
//		RatioFloor      int64   // undeclared output below which MaxRatio is not applied
//		MaxNameLength   int64   // longest entry name (bytes) Extract will create
//		MaxPathDepth    int64   // most path components Extract will create
//		MaxKDFRounds    int64   // key-derivation work of one archive: the sum of the rounds of every distinct key
//	}
//
//	func (l Limits) WithDefaults() Limits // zero fields from DefaultLimits, lifted ones at their maximum
//	func (l Limits) Validate() error      // ErrInvalidOption for a NaN or sub-1 MaxRatio
type Limits = arc.Limits

// DefaultLimits are used for zero fields of Limits: generous enough for
// any archive 7-Zip or RAR writes with their largest presets, small
// enough that a hostile header cannot take the process down.
var DefaultLimits = arc.DefaultLimits

// SafeLimits is the profile the unarc command applies by default: bombs
// stop with ErrLimit, real archives still extract. See arc.SafeLimits
// for the rule (declared sizes judged before decoding, the ratio only
// for undeclared output).
var SafeLimits = arc.SafeLimits

// Unlimited, set in a Limits field, lifts that limit.
const Unlimited = arc.Unlimited

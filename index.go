package unarc

import (
	"io"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/rar"
	"github.com/go-unarc/unarc/sevenzip"
	"github.com/go-unarc/unarc/zip"
)

// ErrStaleIndex is matched by the error of OpenWithIndex (or WithIndex)
// given an index that does not describe the archive: it changed since
// the index was made (its size, its first or last bytes, or any byte of
// its header regions), it is another archive, or the index itself was
// damaged or altered. It also matches ErrCorrupt, its only sentinel.
// A stale index is never used.
var ErrStaleIndex = arc.ErrStaleIndex

// indexOpeners are the formats whose listing can be persisted.
var indexOpeners = map[string]arc.IndexOpener{
	"7z":  sevenzip.OpenIndex,
	"zip": zip.OpenIndex,
	"rar": rar.OpenIndex,
}

// Index is a persistable description of an opened archive: its entries
// (every Entry field), where their data lies (offsets, packed sizes,
// coder chains, the volume mapping) and a digest of the archive's size,
// first and last bytes and header regions. Marshal it (MarshalBinary),
// store it beside the archive, and reopen the archive later with
// OpenWithIndex (or WithIndex): no header is read or parsed from the
// archive, nothing is decompressed or decrypted, and no key is derived
// for the listing; only the regions the digest covers are read, to
// check that the index still describes the archive.
//
// An index of a header-encrypted archive holds its listing in the clear
// (names, sizes, times): protect it like the listing itself. Derived
// keys are stored only with IndexWithKeys; then reopening needs neither
// the password nor any key derivation, and the index must be kept as
// secret as the password.
//
// Formats: 7z, ZIP and RAR. Archive.Index of another format fails with an error
// matching ErrUnsupported.
type Index struct {
	format   string
	size     int64
	edges    [32]byte // BLAKE3 of the first and last edgeLen bytes
	keys     bool
	payload  []byte // the format's (arc.Indexer)
	sections []indexSection
}

// indexSection is an optional part of an index, named by its tag.
// Readers keep sections they do not know and write them back.
//
// Tag 1 is reserved for decoder checkpoints of seekable entries (issue
// 18 item 1), defined by the format that writes them.
type indexSection struct {
	tag  uint64
	data []byte
}

const (
	indexMagic   = "unarcIDX"
	indexVersion = 1
	// edgeLen is how much of each end of the archive the index's digest
	// covers, whatever the format.
	edgeLen = 64 << 10
	// maxSections bounds the optional sections one index may hold.
	// Tag 1 is reserved for decoder checkpoints (seekable.go), which
	// the index does not carry yet.
	maxSections = 64
)

// Format names the archive format the index describes.
func (x *Index) Format() string { return x.format }

// Size is the size of the archive the index describes.
func (x *Index) Size() int64 { return x.size }

// HasKeys reports whether the index holds derived keys (IndexWithKeys).
func (x *Index) HasKeys() bool { return x.keys }

// IndexOption configures Archive.Index.
type IndexOption func(*indexConfig)

type indexConfig struct{ keys bool }

// IndexWithKeys stores the derived keys in the index, so that the
// archive it reopens needs no password and no key derivation. Without
// it (the default) no key and no password is written: the password is
// asked for and the key derived again on first use.
func IndexWithKeys() IndexOption { return func(c *indexConfig) { c.keys = true } }

// Index returns the archive's persistable index (see Index).
func (a *Archive) Index(opts ...IndexOption) (*Index, error) {
	var c indexConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	ix, ok := a.a.(arc.Indexer)
	if !ok || indexOpeners[a.format] == nil {
		return nil, archiveErr(errs.Unsupported("%s: no persistable index", a.format))
	}
	payload, err := ix.ExportIndex(c.keys)
	if err != nil {
		return nil, archiveErr(err)
	}
	edges, err := edgeDigest(a.src, a.srcSize)
	if err != nil {
		return nil, archiveErr(err)
	}
	return &Index{format: a.format, size: a.srcSize, edges: edges, keys: c.keys, payload: payload, sections: a.sections}, nil
}

// edgeDigest is the BLAKE3 of the first and last edgeLen bytes of r.
func edgeDigest(r io.ReaderAt, size int64) ([32]byte, error) {
	n := min(size, edgeLen)
	return indexfmt.Digest(r, size, []indexfmt.Range{{Off: 0, Len: n}, {Off: size - n, Len: n}})
}

// MarshalBinary encodes the index:
//
//	"unarcIDX", uint16 version (1), uint16 flags (1: keys)
//	bytes   format name
//	uvarint archive size
//	32      BLAKE3 of its first and last 64 KiB
//	bytes   the format's payload
//	uvarint sections, each: uvarint tag, bytes data
//	32      BLAKE3-256 of everything before
//
// (bytes = uvarint length, then the bytes.)
func (x *Index) MarshalBinary() ([]byte, error) {
	e := &indexfmt.Encoder{B: make([]byte, 0, len(x.payload)+128)}
	e.Raw([]byte(indexMagic))
	flags := byte(0)
	if x.keys {
		flags = 1
	}
	e.Raw([]byte{indexVersion, 0, flags, 0})
	e.Bytes([]byte(x.format))
	e.Uvarint(uint64(x.size))
	e.Raw(x.edges[:])
	e.Bytes(x.payload)
	e.Uvarint(uint64(len(x.sections)))
	for _, s := range x.sections {
		e.Uvarint(s.tag)
		e.Bytes(s.data)
	}
	sum := blake3.Sum256(e.B)
	e.Raw(sum[:])
	return e.B, nil
}

// UnmarshalBinary decodes an index MarshalBinary wrote. Damaged or
// altered bytes fail with an error matching ErrStaleIndex; an index of a
// later version, ErrUnsupported. It keeps no reference to b.
func (x *Index) UnmarshalBinary(b []byte) error {
	y, err := ParseIndex(b)
	if err != nil {
		return err
	}
	*x = *y
	return nil
}

// ParseIndex decodes an index MarshalBinary wrote (see UnmarshalBinary).
func ParseIndex(b []byte) (*Index, error) {
	if len(b) < len(indexMagic)+4+32 || string(b[:len(indexMagic)]) != indexMagic {
		return nil, archiveErr(arc.Stale("not an unarc index"))
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if want := blake3.Sum256(body); string(want[:]) != string(sum) {
		return nil, archiveErr(arc.Stale("index checksum mismatch"))
	}
	ver := body[len(indexMagic)]
	if ver != indexVersion || body[len(indexMagic)+1] != 0 {
		return nil, archiveErr(errs.Unsupported("index version %d", ver))
	}
	flags := body[len(indexMagic)+2]
	d := &indexfmt.Decoder{B: body[len(indexMagic)+4:]}
	x := &Index{keys: flags&1 != 0}
	format := d.Bytes("format")
	size := d.Uvarint("size")
	edges := d.Raw(32, "edge digest")
	payload := d.Bytes("payload")
	n := d.Count(2, maxSections, "sections")
	if d.Err != nil {
		return nil, archiveErr(d.Err)
	}
	if size > 1<<62 || len(format) > 16 || flags&^1 != 0 {
		return nil, archiveErr(arc.Stale("damaged index: header"))
	}
	x.format, x.size = string(format), int64(size)
	copy(x.edges[:], edges)
	x.payload = append([]byte(nil), payload...)
	for i := 0; i < n && d.Err == nil; i++ {
		tag := d.Uvarint("section tag")
		data := d.Bytes("section")
		if d.Err == nil {
			x.sections = append(x.sections, indexSection{tag, append([]byte(nil), data...)})
		}
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Err = arc.Stale("damaged index: trailing bytes")
	}
	if d.Err != nil {
		return nil, archiveErr(d.Err)
	}
	return x, nil
}

// WithIndex makes Open, OpenFile and OpenFS reopen the archive from idx
// (made by Archive.Index over the same archive, opened the same way)
// instead of reading its headers. An index that does not describe the
// archive fails the open with an error matching ErrStaleIndex.
func WithIndex(idx *Index) Option {
	return func(o *options) error {
		if idx == nil {
			return invalid("WithIndex(nil)")
		}
		o.index = idx
		return nil
	}
}

// OpenWithIndex is Open(r, size, opts…, WithIndex(idx)): it reopens the
// archive in r from its index without parsing its headers or deriving
// keys (see Index).
func OpenWithIndex(r io.ReaderAt, size int64, idx *Index, opts ...Option) (*Archive, error) {
	all := append(append([]Option(nil), opts...), WithIndex(idx))
	return Open(r, size, all...)
}

// openIndexed opens the format of idx over r from its payload, after
// checking the archive's size and ends (read from src, r without the
// input accounting: the check is not input the entries consume).
func openIndexed(r, src io.ReaderAt, size int64, idx *Index, cfg *arc.Config) (arc.Archive, error) {
	open := indexOpeners[idx.format]
	if open == nil {
		return nil, errs.Unsupported("%q index", idx.format)
	}
	if size != idx.size {
		return nil, arc.Stale("the archive's size changed")
	}
	edges, err := edgeDigest(src, size)
	if err != nil {
		return nil, err
	}
	if edges != idx.edges {
		return nil, arc.Stale("the archive's first or last bytes changed")
	}
	return open(r, size, idx.payload, cfg)
}

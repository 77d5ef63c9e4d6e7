package unarc

import (
	"io"
	"slices"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
)

// ErrStaleIndex is matched by the error of an open with WithIndex
// given an index that does not describe the archive: it changed since
// the index was made (its size, its first or last bytes, or any byte of
// its header regions), it is another archive, or the index itself was
// damaged or altered. It also matches ErrCorrupt, its only sentinel.
// A stale index is never used.
var ErrStaleIndex = arc.ErrStaleIndex

// indexOpener is the OpenIndex of the format whose index is recorded
// under name (a Format's Name or one of its IndexNames: tar's "tar.gz",
// "xz" …), nil if none.
func indexOpener(name string) func(io.ReaderAt, int64, []byte, *arc.Config) (arc.Archive, error) {
	for i := range formats {
		f := &formats[i]
		if f.OpenIndex != nil && (name == f.Name || slices.Contains(f.IndexNames, name)) {
			return f.OpenIndex
		}
	}
	return nil
}

// Index is a persistable description of an opened archive: its entries
// (every Entry field), where their data lies (offsets, packed sizes,
// coder chains, the volume mapping) and a digest of the archive's size,
// first and last bytes and header regions. Marshal it (MarshalBinary),
// store it beside the archive, and reopen the archive later by passing
// it to Open (WithIndex): no header is read or parsed from the
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
// A tarball's index (plain, or compressed: tar.gz, tar.xz, tar.zst …,
// and a single compressed file) holds every header and each entry's
// offset in the decoded stream, so a compressed tarball reopened from
// it lists without decompressing anything. A plain tar's header blocks
// are in the digest; a compressed one's lie inside the stream, where no
// digest sees them without decoding: each entry's header is checked
// when the entry is first opened, by reading or decoding it again (from
// the nearest checkpoint before it, with IndexWithCheckpoints) and
// comparing it with the index's, so a read through a stale index fails
// with ErrStaleIndex rather than returning other bytes. Extract checks
// every entry it acts on the same way, opened or not (a directory, a
// symlink, a hard link: their headers are decoded again too), and, for
// 7z, ZIP and RAR, the header regions the open's digest covered only by
// their ends or a sample are digested whole before the first entry is
// acted on; so a stale index never makes a link, directory or mode the
// archive no longer holds. The listing itself (Entries) of an entry
// never opened or extracted is the index's, unchecked.
//
// Formats: 7z, ZIP, RAR and tar. Archive.Index of another format (or
// of a tar cut short) fails with an error matching ErrUnsupported.
type Index struct {
	format   string
	size     int64
	edges    [32]byte // BLAKE3 of the first and last edgeLen bytes
	keys     bool
	payload  []byte // the format's (engine.Indexer)
	sections []indexSection
}

// indexSection is an optional part of an index, named by its tag.
// Readers keep sections they do not know and write them back.
//
// Tag 1 holds decoder checkpoints of seekable entries
// (IndexWithCheckpoints, encodeCheckpoints); the State of each is
// defined by the decoder that took it.
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
	maxSections = 64
)

// Format names the archive format the index describes.
func (x *Index) Format() string { return x.format }

// Size is the size of the archive the index describes.
func (x *Index) Size() int64 { return x.size }

// HasKeys reports whether the index holds derived keys (IndexWithKeys).
func (x *Index) HasKeys() bool { return x.keys }

// IndexOption configures Archive.Index: what the index holds beside the
// listing. Like every option of this package it returns an error for a
// value that cannot be meant (ErrInvalidOption); those here take none.
type IndexOption func(*indexConfig) error

type indexConfig struct{ keys, checkpoints bool }

// IndexWithCheckpoints stores in the index the decoder checkpoints the
// Archive holds (those its seekable readers took, see WithCheckpoints),
// so that the archive reopened from it (WithIndex, with checkpoints
// not turned off) seeks into a solid or compressed stream from the
// nearest of them instead of decoding from the start. Each costs what
// it costs in memory (about the decoder's window: up to the dictionary
// size for 7z LZMA and LZMA2 and RAR5, 32 or 64 KiB for Deflate), in
// the index's size too; without it (the default) the index holds none.
// The index of an archive reopened from an index with checkpoints
// holds those the new Archive took or verified.
//
// Restored checkpoints are untrusted: their fields must fit the archive
// (else the open fails with ErrStaleIndex), their decoder state is
// validated when they are used, and before its first use a checkpoint
// must match the archive's bytes it was decoded from (a BLAKE3 of its
// stream's packed input before it, and of a solid run's before the
// stream, is stored with it: its window and model depend on all of
// them) and reproduce the 64 KiB of output that follow it (a CRC-32 of
// them and of the checkpoint's own fields and state is stored with it):
// one that does not is dropped and the read decodes from an earlier
// point. Checking the input reads the packed bytes before the
// checkpoint once (decoding none of them); one pass over a stream
// checks every restored checkpoint it passes. That catches a checkpoint
// of another archive, of this archive before its data changed (before
// the checkpoint, inside its window, or after it), or altered in the
// index without its checks; an index
// crafted with consistent checks can make offset reads return other
// bytes than the archive's, as a crafted archive can (offset reads
// verify no checksum), never read out of bounds or past the memory
// limits. They count against the Archive's
// checkpoint memory (WithCheckpoints): those beyond it are not kept.
func IndexWithCheckpoints() IndexOption {
	return func(c *indexConfig) error { c.checkpoints = true; return nil }
}

// IndexWithKeys stores the derived keys in the index, so that the
// archive it reopens needs no password and no key derivation. Without
// it (the default) no key and no password is written: the password is
// asked for and the key derived again on first use.
func IndexWithKeys() IndexOption {
	return func(c *indexConfig) error { c.keys = true; return nil }
}

// Index returns the archive's persistable index (see Index).
func (a *Archive) Index(opts ...IndexOption) (*Index, error) {
	var c indexConfig
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	ix, ok := a.view.(engine.Indexer)
	if !ok || indexOpener(a.format) == nil {
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
	sections := a.sections
	if p, ok := a.view.(engine.CheckpointPersister); ok && c.checkpoints {
		cps, err := p.ExportCheckpoints()
		if err != nil {
			return nil, archiveErr(err)
		}
		if len(cps) > 0 {
			sections = append(append([]indexSection(nil), sections...), indexSection{tagCheckpoints, encodeCheckpoints(cps)})
		}
	}
	return &Index{format: a.format, size: a.srcSize, edges: edges, keys: c.keys, payload: payload, sections: sections}, nil
}

// tagCheckpoints is the section of decoder checkpoints, of version
// cpSectionVersion.
const (
	tagCheckpoints   = 1
	cpSectionVersion = 2
)

// maxCheckpoints bounds the checkpoints one index section may hold.
const maxCheckpoints = 1 << 16

// encodeCheckpoints lays out section 1:
//
//	u8      version (2)
//	uvarint count, then each checkpoint:
//	bytes   kind ("lzma2", "lzma", "deflate", "rar5", "rar29", "rar20", "rar15", "bzip2", "ppmd7", "ppmd8"; 7z adds "+bcj", "+arm64", "+delta"... for a filter)
//	uvarint stream, output offset, input offset, check length
//	u32     check (CRC-32 of the check length's output from the offset)
//	32      input (BLAKE3 of the archive bytes the state was decoded from)
//	bytes   the decoder's state
//
// The entry a checkpoint falls in is not stored: the format finds it.
// Version 1 had no input digest: its checkpoints are dropped (the index
// still opens; reads decode from the start).
func encodeCheckpoints(cps []engine.Checkpoint) []byte {
	n := 0
	for _, cp := range cps {
		n += len(cp.State) + 64
	}
	e := &indexfmt.Encoder{B: make([]byte, 0, n+16)}
	e.Byte(cpSectionVersion)
	e.Uvarint(uint64(len(cps)))
	for _, cp := range cps {
		e.Bytes([]byte(cp.Kind))
		e.Uvarint(uint64(cp.Stream))
		e.Uvarint(uint64(cp.Out))
		e.Uvarint(uint64(cp.In))
		e.Uvarint(uint64(cp.CheckLen))
		e.Raw([]byte{byte(cp.Check), byte(cp.Check >> 8), byte(cp.Check >> 16), byte(cp.Check >> 24)})
		e.Raw(cp.Input[:])
		e.Bytes(cp.State)
	}
	return e.B
}

// decodeCheckpoints reads section 1. States are sub-slices of b.
func decodeCheckpoints(b []byte) ([]engine.Checkpoint, error) {
	d := &indexfmt.Decoder{B: b}
	switch v := d.Byte("checkpoints version"); {
	case d.Err != nil:
		return nil, d.Err
	case v == 1:
		return nil, nil // no input digests: none can be trusted
	case v != cpSectionVersion:
		return nil, errs.Unsupported("index checkpoints version %d", v)
	}
	n := d.Count(42, maxCheckpoints, "checkpoints")
	cps := make([]engine.Checkpoint, 0, n)
	for i := 0; i < n && d.Err == nil; i++ {
		kind := d.Bytes("checkpoint kind")
		stream, out, in, clen := d.Uvarint("checkpoint stream"), d.Uvarint("checkpoint offset"), d.Uvarint("checkpoint input"), d.Uvarint("checkpoint check length")
		sum := d.Raw(4, "checkpoint check")
		input := d.Raw(32, "checkpoint input")
		state := d.Bytes("checkpoint state")
		if d.Err != nil {
			break
		}
		if len(kind) > 16 || stream > 1<<31 || out > 1<<62 || in > 1<<62 || clen > engine.CheckSpan {
			d.Fail("checkpoint")
			break
		}
		cps = append(cps, engine.Checkpoint{Kind: string(kind), Stream: int(stream), Out: int64(out), In: int64(in),
			Entry: -1, CheckLen: int64(clen), Check: uint32(sum[0]) | uint32(sum[1])<<8 | uint32(sum[2])<<16 | uint32(sum[3])<<24,
			Input: [32]byte(input), State: state})
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("checkpoints: trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	return cps, nil
}

// restoreCheckpoints gives the checkpoints of idx to a (when it keeps
// checkpoints), as many as fit the checkpoint memory, each State copied
// so that the cache's bound is the memory they hold. It returns the
// other sections, kept for the next Index.
func restoreCheckpoints(a arc.Archive, idx *Index, pol engine.CheckpointPolicy) ([]indexSection, error) {
	var rest []indexSection
	var cps []engine.Checkpoint
	seen := false
	for _, s := range idx.sections {
		if s.tag != tagCheckpoints {
			rest = append(rest, s)
			continue
		}
		if seen {
			return nil, engine.Stale("damaged index: two checkpoint sections")
		}
		seen = true
		var err error
		if cps, err = decodeCheckpoints(s.data); err != nil {
			return nil, err
		}
	}
	p, ok := engine.View(a).(engine.CheckpointPersister)
	if !ok || len(cps) == 0 || pol.Interval <= 0 {
		return rest, nil
	}
	var total int64
	keep := cps[:0]
	for _, cp := range cps {
		if total+int64(len(cp.State)) > pol.MaxMemory {
			continue
		}
		total += int64(len(cp.State))
		cp.State = append([]byte(nil), cp.State...)
		keep = append(keep, cp)
	}
	if err := p.RestoreCheckpoints(keep); err != nil {
		return nil, err
	}
	return rest, nil
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
		return nil, archiveErr(engine.Stale("not an unarc index"))
	}
	body, sum := b[:len(b)-32], b[len(b)-32:]
	if want := blake3.Sum256(body); string(want[:]) != string(sum) {
		return nil, archiveErr(engine.Stale("index checksum mismatch"))
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
		return nil, archiveErr(engine.Stale("damaged index: header"))
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
		d.Err = engine.Stale("damaged index: trailing bytes")
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

// openIndexed opens the format of idx over r from its payload, after
// checking the archive's size and ends (read from src, r without the
// input accounting: the check is not input the entries consume).
func openIndexed(r, src io.ReaderAt, size int64, idx *Index, cfg *arc.Config) (arc.Archive, error) {
	open := indexOpener(idx.format)
	if open == nil {
		return nil, errs.Unsupported("%q index", idx.format)
	}
	if size != idx.size {
		return nil, engine.Stale("the archive's size changed")
	}
	edges, err := edgeDigest(src, size)
	if err != nil {
		return nil, err
	}
	if edges != idx.edges {
		return nil, engine.Stale("the archive's first or last bytes changed")
	}
	a, err := open(r, size, idx.payload, cfg)
	if err != nil {
		return nil, err
	}
	// The payload says what its format found (tar's compressor): it must
	// be what the index is named.
	if n, ok := a.(interface{ FormatName() string }); ok && n.FormatName() != idx.format {
		a.Close()
		return nil, engine.Stale("the index's format is not the archive's")
	}
	return a, nil
}

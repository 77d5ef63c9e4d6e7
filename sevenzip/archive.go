// Package sevenzip reads and writes 7z archives (7-Zip's
// DOC/7zFormat.txt).
//
// Open reads the signature header, plain and encoded (compressed,
// encrypted) headers, the coder graph of each folder, and the files
// stored in the folders' substreams. Archives are random access only: 7z
// keeps its header at the end, so a forward-only reader cannot work.
//
// Coders: Copy, LZMA, LZMA2, PPMd (H, 7z range coder), BZip2, Deflate,
// Deflate64, 7zAES, the branch filters BCJ, BCJ2, ARM, ARMT, ARM64, PPC,
// SPARC, IA64, RISCV and Delta. Any other method ID fails with an error
// matching unarc.ErrUnsupported that names the ID. The root's
// OpenSeekable reads an entry from an offset, resuming a folder's decoder
// from the nearest checkpoint (LZMA, LZMA2, BZip2, PPMd, Deflate, Copy,
// under 7zAES and a filter too, and BCJ2 folders); the root's
// Archive.Index and WithIndex save and reopen what Open found without
// reading the header again.
//
// # Writing
//
// NewWriter writes a 7z archive that 7-Zip reads: entries added with
// Create, CreateHeader or AddFS (directories, symlinks as 7-Zip -snl
// stores them, times, Unix modes and Windows attributes), their sizes
// not known in advance. What is written:
//
//   - methods: LZMA2 (the default, as 7-Zip's), LZMA or Copy
//     (WithMethod), at levels 0 to 9 (WithLevel) or with an explicit
//     dictionary, literal bits and fast bytes;
//   - filters: chosen per file from its first bytes (FilterAuto: BCJ for
//     x86 executables, ARM64, ARM), or set with WithFilter (x86, ARM,
//     ARMT, ARM64, PPC, SPARC) or WithDelta; files with different
//     filters go to different folders;
//   - encryption: AES-256 (7zAES) with WithPassword, the key derived once
//     per writer; WithEncryptedHeaders encrypts the header too (file
//     names included, as 7-Zip's -mhe=on); the header is LZMA-compressed
//     unless WithHeaderCompression(false);
//   - solid blocks: one folder per filter by default, bounded in bytes
//     or files by WithSolid (WithSolid(0, 1): one folder per file);
//   - volumes: WithVolumes splits the archive (name.7z.001, .002, …);
//   - threads: WithThreads encodes LZMA2 blocks on several goroutines,
//     the archive's bytes not depending on it.
//
// The output is any io.Writer. The archive's first 32 bytes (the start
// header) are known only at Close: an io.WriteSeeker or io.WriterAt gets
// them in place, any other writer gets the whole archive at Close from
// a temporary spool file (or WithSpool's, or in order with
// WithDeferredStartHeader).
//
// # Security
//
// Every count in the header (folders, coders, streams, substreams, files)
// is checked against the bytes left in the header before anything is
// allocated for it, and files against Limits.MaxEntries; the decoded
// header and the whole index (stream arrays, one slab of Entry values,
// names) are charged to Limits.MaxHeaderMemory before each allocation,
// and an encoded header's buffer grows only as its bytes arrive. Coder
// graphs are bounded (64 coders/streams) and checked for unconnected
// inputs, doubly bound streams and cycles; pack streams must lie inside
// the archive. Limits.MaxMemory bounds the sum over a folder's coders
// (windows, PPMd models, BCJ2/filter/Deflate/bzip2/AES buffers), checked
// before any is built; an LZMA window is min(dictionary, size), bounded
// by Limits.MaxDictionary, and grows with the output when its input
// cannot explain it. AES key derivation is refused above 2^24 rounds, as
// 7-Zip does; each distinct key is derived once per Archive and charged
// to the KDF budget (Limits.MaxKDFRounds) first.
//
// Every inner coder's output in a chain is held to its declared size and,
// past RatioFloor and the folder's declared size, to Limits.MaxRatio
// against the folder's packed input consumed, so inner coders of a chain
// cannot expand unmeasured.
//
// # Damaged starts and SFX stubs
//
// A start header at offset 0 that is zeroed (as 7-Zip leaves it while
// writing) or fails its CRC is recovered by finding the header at the
// end of the file (Archive.Warnings reports ErrStartHeaderRecovered).
// Behind prepended data a signature counts only when its CRC, its next
// header's range and that header's CRC hold; else the input is not a 7z
// archive (unarc.ErrFormat). An entry stored without a name takes the
// archive's base name, as 7-Zip names it.
//
// # Errors
//
// Input that ends early (signature header, header, pack streams,
// volumes) is unarc.ErrTruncated; a damaged header or header CRC is
// unarc.ErrCorrupt; a coder whose output ends before its declared size
// is unarc.ErrCorrupt (or ErrTruncated when it ran out of input); a data
// CRC mismatch is unarc.ErrChecksum. In a folder encrypted with 7zAES a
// checksum, corrupt-data or truncation error is reported as
// unarc.ErrPassword: the pack streams were checked to be complete, so
// such data is almost always the output of a wrong key, CRC or not.
//
// # Symlinks
//
// 7z stores a symlink's target as the entry's content. Open decodes no
// folder, so Entry.LinkTarget of a symlink is "" until the entry has
// been read to its end once; Archive.LinkTarget resolves it on demand.
package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/cpcache"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/indexfmt"
	"github.com/go-unarc/unarc/internal/meta"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/srcsize"
)

// Format registers 7z with the root package.
var Format = arc.Format{
	Name:       "7z",
	Extensions: []string{".7z", ".7z.001", ".exe"},
	Magic:      [][]byte{signature[:]},
	Sniff:      sniff,
	Open:       openArchive,
	OpenIndex:  openIndex,
	// No NewReader: the index is at the end (the root says to use Open).
}

func openArchive(ra io.ReaderAt, size int64, cfg *arc.Config) (arc.Archive, error) {
	a, err := Open(ra, size, conf.From(cfg))
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return a, nil
}

// signature starts every 7z archive (and its signature header).
var signature = [6]byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}

// Signature header layout (32 bytes):
//
//	0  6  signature
//	6  2  version (major 0, minor 2..4)
//	8  4  CRC-32 of bytes 12..31
//	12 8  next header offset, from byte 32
//	20 8  next header size
//	28 4  CRC-32 of the next header
const sigHeaderSize = 32

// sfxScanLimit bounds how far into a file Open looks for the signature
// behind an SFX stub or other prepended data.
const sfxScanLimit = 64 << 20

// sniffScanLimit is the same bound for sniff, which runs on every input.
const sniffScanLimit = 4 << 20

// sniff reports whether ra holds a 7z archive, possibly behind an SFX stub.
func sniff(ra io.ReaderAt, size int64) bool {
	if size < 0 {
		return false
	}
	_, _, err := findSignature(ra, size, sniffScanLimit)
	return err == nil
}

type startHeader struct {
	nextOff  int64
	nextSize int64
	nextCRC  uint32
	// damaged: the signature and version are there but the rest does not
	// check (zeroed: bytes 8..31 are all zero, what 7-Zip leaves while it
	// writes); Open then looks for the header at the end of the file.
	damaged, zeroed bool
}

// checkStart validates a candidate signature header at b.
func checkStart(b []byte) (startHeader, bool) {
	var h startHeader
	if !bytes.Equal(b[:6], signature[:]) || b[6] != 0 {
		return h, false
	}
	if crc32.ChecksumIEEE(b[12:32]) != binary.LittleEndian.Uint32(b[8:]) {
		return h, false
	}
	off := binary.LittleEndian.Uint64(b[12:])
	n := binary.LittleEndian.Uint64(b[20:])
	if off > 1<<62 || n > 1<<62 {
		return h, false
	}
	h = startHeader{nextOff: int64(off), nextSize: int64(n), nextCRC: binary.LittleEndian.Uint32(b[28:])}
	return h, true
}

// damagedStart reports whether b (at offset 0) is a signature header
// whose signature and version are intact but whose CRC fails, and
// whether it is zeroed (bytes 8..31 all zero, with a non-zero version,
// 7-Zip's TestSignature2 rule).
func damagedStart(b []byte) (startHeader, bool) {
	if !bytes.Equal(b[:6], signature[:]) || b[6] != 0 {
		return startHeader{}, false
	}
	h := startHeader{damaged: true, zeroed: b[7] != 0, nextCRC: binary.LittleEndian.Uint32(b[28:])}
	for _, c := range b[8:32] {
		if c != 0 {
			h.zeroed = false
		}
	}
	return h, true
}

// maxSFXChecks bounds the signature candidates behind prepended data
// whose next header findSignature reads and checks, so a file full of
// forged signature headers costs bounded work.
const maxSFXChecks = 8

// findSignature returns the offset of the first valid signature header
// within the first limit bytes. At offset 0 a header whose CRC fails is
// returned as damaged (Open then searches for the header from the end).
// Behind prepended data (an SFX stub, or any executable) a candidate
// counts only when it leads somewhere: its CRC holds, its next header
// lies inside the file and that header's CRC holds too; else the bytes
// are not a 7z archive and the scan goes on, so a stray or forged
// signature inside a program is "not an archive" (ErrFormat), never a
// corrupt archive that gets extracted.
func findSignature(ra io.ReaderAt, size, limit int64) (int64, startHeader, error) {
	var hdr [sigHeaderSize]byte
	if n, _ := ra.ReadAt(hdr[:], 0); n == sigHeaderSize {
		if h, ok := checkStart(hdr[:]); ok {
			return 0, h, nil
		}
		if h, ok := damagedStart(hdr[:]); ok {
			return 0, h, nil
		}
	}
	const chunk = 64 << 10
	bufp := pool.Get(chunk + sigHeaderSize)
	defer pool.Put(bufp)
	buf := (*bufp)[:chunk+sigHeaderSize]
	truncated := false
	checks := 0
	for base := int64(0); base < size && base < limit; base += chunk {
		n, _ := ra.ReadAt(buf, base)
		b := buf[:n]
		for i := 0; i < n && i < chunk; {
			j := bytes.IndexByte(b[i:], '7')
			if j < 0 || i+j >= chunk {
				break
			}
			i += j
			if i+sigHeaderSize <= n {
				if h, ok := checkStart(b[i:]); ok && (i > 0 || base > 0) {
					at := base + int64(i)
					if checks++; checks > maxSFXChecks {
						break
					}
					if leadsToHeader(ra, size, at, h) {
						return at, h, nil
					}
				}
			} else if i+6 <= n && bytes.Equal(b[i:i+6], signature[:]) {
				truncated = true
			}
			i++
		}
		if checks > maxSFXChecks {
			break
		}
	}
	if truncated {
		return 0, startHeader{}, errs.Truncated("7z signature header")
	}
	return 0, startHeader{}, fmt.Errorf("%w: no 7z signature", errs.ErrFormat)
}

// leadsToHeader reports whether the signature header h found at offset
// at points at a next header that lies inside the file and matches its
// CRC (an empty archive has none: offset and size 0). The header is
// read in pooled chunks, never allocated whole.
func leadsToHeader(ra io.ReaderAt, size, at int64, h startHeader) bool {
	start := at + sigHeaderSize + h.nextOff
	if h.nextSize == 0 {
		return h.nextOff == 0
	}
	if start < at || start > size || h.nextSize > size-start {
		return false
	}
	bufp := getBuf()
	defer putBuf(bufp)
	buf := *bufp
	crc := uint32(0)
	for off, end := start, start+h.nextSize; off < end; {
		m := int(min(int64(len(buf)), end-off))
		if n, _ := ra.ReadAt(buf[:m], off); n < m {
			return false
		}
		crc = crc32.Update(crc, crc32.IEEETable, buf[:m])
		off += int64(m)
	}
	return crc == h.nextCRC
}

// Archive is an open 7z archive.
type Archive struct {
	ra      io.ReaderAt
	size    int64
	base    int64 // file offset of byte 32 of the signature header
	cfg     arc.Config
	si      *streamsInfo
	entries []*arc.Entry
	mem     *memAccount // the index's share of Limits.MaxHeaderMemory

	// Where entry i's data is: stream[i] is its substream (-1: none),
	// which lies in folder streamFolder[k] at offset streamOff[k].
	stream       []int32
	streamFolder []int32
	streamOff    []int64

	mu       sync.Mutex
	idle     []*folderReader // positioned decoders ready for reuse
	linkDone map[int]bool    // symlinks whose LinkTarget has been read
	pw       string          // archive-wide password, once resolved
	hasPW    bool
	closed   atomic.Bool

	folderStarts int  // decoders started (tests check solid reads decode once)
	recovered    bool // the header was found by recoverHeader

	keyMu    sync.Mutex // held while deriving, so one key is derived (and charged) once
	lastID   keyID      // the latest key (an archive usually has one), lastKey
	lastKey  [32]byte
	haveLast bool
	keys     map[keyID][32]byte // the earlier ones

	workers atomic.Int32 // SetEntryWorkers (units.go); 0: cfg.Workers

	// For the persistable index (persist.go): the plain header bytes,
	// the archive ranges the headers came from, and the keys an index
	// brought (used without asking for a password).
	hdrPlain   []byte
	hdrRanges  []indexfmt.Range
	storedKeys map[storedKeyID][32]byte
	// ixCheck is what an open from an index left to check before an
	// entry is acted on (persist.go), or nil.
	ixCheck *indexfmt.Later

	cps cpcache.Cache // decoder checkpoints of seekable readers (seek.go)
}

// maxIdle bounds the positioned folder decoders kept for reuse.
const maxIdle = 4

// Open reads the archive's headers, configured by opts (see arc.Option).
func Open(ra io.ReaderAt, size int64, opts ...arc.Option) (*Archive, error) {
	if err := srcsize.Check(ra, size); err != nil {
		return nil, err
	}
	a := &Archive{}
	if err := conf.Apply(&a.cfg, opts...); err != nil {
		return nil, err
	}
	if a.cfg.Budget == nil { // used without the root: the limits still hold
		a.cfg.Budget = conf.NewBudget(a.cfg.Bounds)
	}
	ra, size, err := joinVolumes(ra, size, &a.cfg)
	if err != nil {
		return nil, err
	}
	a.ra, a.size = ra, size
	sigOff, sh, err := findSignature(ra, size, sfxScanLimit)
	if err != nil {
		return nil, err
	}
	a.base = sigOff + sigHeaderSize
	a.hdrRanges = append(a.hdrRanges, indexfmt.Range{Off: sigOff, Len: sigHeaderSize})
	if sh.damaged {
		if err := a.recoverHeader(sh); err != nil {
			return nil, err
		}
		return a, nil
	}
	if sh.nextSize == 0 {
		return a, nil // empty archive
	}
	end := a.base + sh.nextOff + sh.nextSize
	if sh.nextOff > size || end > size || end < a.base {
		if isFirstVolume(a.cfg.Name) {
			return nil, errs.Truncated("7z header lies beyond the last volume found")
		}
		return nil, errs.Truncated("7z header lies beyond the end of the archive")
	}
	a.mem = &memAccount{max: a.cfg.Bounds.MaxHeaderMemory}
	if err := a.mem.charge(sh.nextSize, "7z header"); err != nil {
		return nil, err
	}
	hdr := make([]byte, sh.nextSize)
	a.hdrRanges = append(a.hdrRanges, indexfmt.Range{Off: a.base + sh.nextOff, Len: sh.nextSize})
	if _, err := ra.ReadAt(hdr, a.base+sh.nextOff); err != nil {
		return nil, errs.EOF(err, "7z header")
	}
	if crc32.ChecksumIEEE(hdr) != sh.nextCRC {
		return nil, errs.Corrupt("7z header CRC mismatch")
	}
	if err := a.parseHeader(hdr); err != nil {
		return nil, err
	}
	return a, nil
}

// ErrStartHeaderRecovered is the warning (Archive.Warnings) of an archive
// whose start header was zeroed or damaged and whose header was found by
// searching back from the end of the file. It matches no errs sentinel:
// 7zz opens such an archive too, with a "Headers Error" warning, and
// exits 0.
var ErrStartHeaderRecovered = errors.New("7z: start header is zeroed or damaged; the header was found at the end of the file")

// Warnings reports archive-level conditions (the root's Archive.Warnings): a start header
// recovered from the end of the file (ErrStartHeaderRecovered).
func (a *Archive) Warnings() []error {
	if a.recovered {
		return []error{ErrStartHeaderRecovered}
	}
	return nil
}

// recoverScan bounds how far back from the end of the file
// recoverHeader looks for the header, and maxRecoverTries how many
// candidates it parses: the work is linear in the file's tail.
const (
	recoverScan     = 4 << 20
	maxRecoverTries = 8
)

// recoverHeader opens an archive whose signature header (at offset 0)
// is zeroed or fails its CRC, as 7-Zip does for the zeroed case
// (7zIn.cpp, FORMAT_7Z_RECOVERY): the header is the last thing in the
// file, so it ends with a kEnd byte and starts with kHeader (followed by
// kArchiveProperties, kMainStreamsInfo or kFilesInfo) or kEncodedHeader
// (followed by kPackInfo). Candidates are tried from the end backwards;
// the first whose bytes parse as a header wins. For a damaged (not
// zeroed) start header the candidate must also match the next-header
// CRC the damaged header still holds.
//
// Deliberate differences from 7zz: 7zz looks only 512 bytes back (a
// plain header of a few hundred files is longer), tries one candidate
// only and recovers only the zeroed case (a CRC mismatch is "not an
// archive"); we look 4 MiB back, parse up to 8 candidates, and recover a
// damaged header when its next-header CRC confirms the header found.
func (a *Archive) recoverHeader(sh startHeader) error {
	fail := errs.Corrupt("7z start header damaged, and no header found at the end of the file")
	if sh.zeroed {
		fail = errs.Corrupt("7z start header zeroed (an unfinished write?), and no header found at the end of the file")
	}
	from := max(a.base, a.size-recoverScan)
	n := a.size - from
	if n < 3 {
		return fail
	}
	mem := &memAccount{max: a.cfg.Bounds.MaxHeaderMemory}
	if err := mem.charge(n, "7z header search"); err != nil {
		return err
	}
	tail := make([]byte, n)
	if _, err := a.ra.ReadAt(tail, from); err != nil {
		return errs.EOF(err, "7z header search")
	}
	if tail[n-1] != idEnd {
		return fail
	}
	tries := 0
	for i := len(tail) - 2; i >= 0 && tries < maxRecoverTries; i-- {
		c, d := tail[i], tail[i+1]
		if !(c == idEncodedHeader && d == idPackInfo) &&
			!(c == idHeader && (d == idArchiveProperties || d == idMainStreamsInfo || d == idFilesInfo)) {
			continue
		}
		hdr := tail[i:]
		if !sh.zeroed && crc32.ChecksumIEEE(hdr) != sh.nextCRC {
			continue
		}
		tries++
		a.hdrRanges = a.hdrRanges[:1] // the start header; a failed candidate's ranges go
		a.mem = &memAccount{max: a.cfg.Bounds.MaxHeaderMemory, used: n}
		a.si, a.entries = nil, nil
		if err := a.parseHeader(hdr); err != nil {
			if errors.Is(err, errs.ErrLimit) || errors.Is(err, errs.ErrPasswordRequired) || errors.Is(err, errs.ErrPassword) {
				return err // a real header that cannot be read as asked
			}
			continue
		}
		a.recovered = true
		a.hdrRanges = append(a.hdrRanges, indexfmt.Range{Off: from + int64(i), Len: int64(len(hdr))})
		return nil
	}
	a.si, a.entries = nil, nil
	return fail
}

// parseHeader decodes encoded headers until a plain one, then parses it.
func (a *Archive) parseHeader(hdr []byte) error {
	for depth := 0; ; depth++ {
		r := &hreader{b: hdr, mem: a.mem, maxEntries: a.cfg.Bounds.MaxEntries}
		switch id := r.number(); id {
		case idHeader:
			a.hdrPlain = hdr
			return a.parsePlain(r)
		case idEncodedHeader:
			if depth > 4 {
				return errs.Corrupt("7z: encoded headers nested too deep")
			}
			si := r.readStreamsInfo()
			if r.err != nil {
				return r.err
			}
			a.addPackRanges(si)
			var err error
			if hdr, err = a.decodeHeader(si); err != nil {
				return err
			}
		default:
			if r.err != nil {
				return r.err
			}
			return errs.Corrupt("7z: header starts with property 0x%02x", id)
		}
	}
}

// decodeHeader unpacks an encoded header (every folder, concatenated).
// The declared size is charged to MaxHeaderMemory first, and the buffer
// is sized by what the archive really holds: a header at most
// headerExpansion times its packed bytes is allocated at its size; a
// larger one (a small archive declaring a huge header) is decoded once
// into nothing, checking its size and CRC, and only then allocated, so
// a lie costs time bounded by its decoding, never memory.
func (a *Archive) decodeHeader(si *streamsInfo) ([]byte, error) {
	var total, packed int64
	for fi := range si.folders {
		total += si.folders[fi].size()
		if total < 0 || total > 1<<62 {
			return nil, errs.Corrupt("7z: encoded header size overflows")
		}
		if err := a.checkPack(si, fi); err != nil {
			return nil, err
		}
	}
	for _, n := range si.packSizes {
		packed += n
	}
	if err := a.mem.charge(total, "decoded 7z header"); err != nil {
		return nil, err
	}
	if total > headerExpansion*packed+1<<20 {
		for fi := range si.folders {
			if _, err := a.decodeHeaderFolder(si, fi, nil); err != nil {
				return nil, err
			}
		}
	}
	out := make([]byte, 0, total)
	for fi := range si.folders {
		var err error
		if out, err = a.decodeHeaderFolder(si, fi, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// headerExpansion is the decoded-to-packed ratio up to which an encoded
// header's buffer is allocated before its bytes are seen.
const headerExpansion = 16

// decodeHeaderFolder appends folder fi of an encoded header to out,
// verified against its size and CRC; with out nil it only verifies.
func (a *Archive) decodeHeaderFolder(si *streamsInfo, fi int, out []byte) ([]byte, error) {
	f := &si.folders[fi]
	fr, err := a.newFolderReader(si, fi, nil, 1)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	v := &fr.crc // in the pooled folder reader: no allocation
	if f.hasCRC {
		v.ResetCRC32(fr, f.crc, f.size())
	} else {
		v.ResetHash(fr, nil, nil, f.size())
	}
	if out == nil {
		_, err = pool.Copy(io.Discard, v)
	} else {
		out, err = readFull(out, v)
	}
	if err != nil {
		if fr.encrypt {
			return nil, mapErr(true, err)
		}
		if errors.Is(err, errs.ErrChecksum) { // a header's checksum: the archive is corrupt
			return nil, errs.Corrupt("7z: encoded header: %s", detail(err))
		}
		return nil, err
	}
	return out, nil
}

// readFull appends r's bytes to b until io.EOF. b has the capacity for
// what r must deliver (the verifier under r fails on more), so it does
// not grow.
func readFull(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			var probe [1]byte
			m, err := r.Read(probe[:])
			if m > 0 || err == nil {
				if m > 0 {
					return b, errs.Corrupt("7z: encoded header longer than declared")
				}
				continue
			}
			if err == io.EOF {
				return b, nil
			}
			return b, err
		}
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// checkPack verifies that folder fi's pack streams lie inside the archive.
func (a *Archive) checkPack(si *streamsInfo, fi int) error {
	f := &si.folders[fi]
	for k := range f.packed {
		pi := f.firstPack + k
		end := a.base + si.packPos + si.packOff[pi] + si.packSizes[pi]
		if end > a.size || end < a.base {
			return errs.Truncated("7z pack stream beyond the end of the archive")
		}
	}
	return nil
}

// keyID names one derived AES key.
type keyID struct {
	pw     string
	salt   string
	cycles uint8
}

// key returns the AES key for pw under p, deriving it at most once per
// Archive: a derivation is charged to cfg.Budget (MaxKDFRounds) before
// it runs, a key already derived costs nothing.
func (a *Archive) key(pw string, p *aes7z.Props) ([32]byte, error) {
	id := keyID{pw, string(p.Salt), p.Cycles}
	a.keyMu.Lock()
	defer a.keyMu.Unlock()
	if a.haveLast && a.lastID == id {
		return a.lastKey, nil // no map for the usual one key per archive
	}
	if k, ok := a.keys[id]; ok {
		return k, nil
	}
	if p.Cycles > aes7z.MaxCycles && p.Cycles != 0x3F {
		return [32]byte{}, errs.Unsupported("7zAES: 2^%d key derivation rounds", p.Cycles)
	}
	if err := a.cfg.Budget.ChargeKDF(aes7z.Rounds(p)); err != nil {
		return [32]byte{}, err
	}
	k, err := aes7z.Key(pw, p)
	if err != nil {
		return k, err
	}
	if a.haveLast {
		// Every key kept is the last one or in the map.
		if a.keys == nil {
			a.keys = make(map[keyID][32]byte)
		}
		a.keys[a.lastID] = a.lastKey
	}
	a.lastID, a.lastKey, a.haveLast = id, k, true
	return k, nil
}

func (a *Archive) password(e *arc.Entry) (string, error) {
	a.mu.Lock()
	if a.hasPW {
		pw := a.pw
		a.mu.Unlock()
		return pw, nil
	}
	a.mu.Unlock()
	if a.cfg.Password == nil {
		return "", fmt.Errorf("%w: 7z data is encrypted", errs.ErrPasswordRequired)
	}
	pw, err := a.cfg.Password(e)
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", fmt.Errorf("%w: 7z data is encrypted", errs.ErrPasswordRequired)
	}
	if e == nil { // the header password serves every entry too
		a.mu.Lock()
		a.pw, a.hasPW = pw, true
		a.mu.Unlock()
	}
	return pw, nil
}

func (a *Archive) parsePlain(r *hreader) error {
	id := r.number()
	if id == idArchiveProperties {
		for r.err == nil {
			if t := r.number(); t == idEnd {
				break
			}
			r.skip(r.number())
		}
		id = r.number()
	}
	if id == idAdditionalStreamsInfo {
		r.readStreamsInfo() // never written by 7-Zip; parsed to skip it
		id = r.number()
	}
	si := &streamsInfo{}
	if id == idMainStreamsInfo {
		si = r.readStreamsInfo()
		id = r.number()
	}
	if r.err != nil {
		return r.err
	}
	for fi := range si.folders {
		if err := a.checkPack(si, fi); err != nil {
			return err
		}
	}
	a.si = si
	hasFiles := false
	if id == idFilesInfo {
		a.readFiles(r)
		hasFiles = true
		id = r.number()
	}
	if r.err != nil {
		return r.err
	}
	if id != idEnd {
		return errs.Corrupt("7z header: unexpected property 0x%02x", id)
	}
	if !hasFiles && len(si.subSizes) > 0 {
		return errs.Corrupt("7z header: streams without files")
	}
	return nil
}

// folderMethod names a folder's coders as 7-Zip lists them, outermost
// (the one producing the data) first.
func folderMethod(f *folder) string {
	names := make([]string, 0, len(f.coders))
	for i := range f.coders {
		names = append(names, methodName(&f.coders[i]))
	}
	return strings.Join(names, " ")
}

// attrUnixExt is the Unix extension 7-Zip (p7zip, 7zz) uses in the
// Windows attributes: with bit 15 set, the high 16 bits hold st_mode.
const attrUnixExt = 0x8000

func fileMode(isDir, hasAttrib bool, attrib uint32) fs.FileMode {
	if !hasAttrib {
		attrib = 0
	}
	isDir = isDir || attrib&meta.WinDirectory != 0
	if attrib&attrUnixExt != 0 {
		m := meta.UnixEntryMode(attrib >> 16)
		if isDir {
			m |= fs.ModeDir
		}
		return m
	}
	if isDir {
		attrib |= meta.WinDirectory
	}
	return meta.WinMode(attrib)
}

// Entries lists the archive's entries in header order.
func (a *Archive) Entries() []*arc.Entry { return a.entries }

// Comment returns "": 7z has no archive comment.
func (a *Archive) Comment() string { return "" }

// errClosed is what readers of a closed Archive return.
var errClosed = fmt.Errorf("7z: archive closed: %w", fs.ErrClosed)

// Close releases the parked folder decoders. Entry readers still open
// fail from their next Read with an error matching fs.ErrClosed; each
// releases its own decoder then (or at its Close), never while a Read
// of it may still be running.
func (a *Archive) Close() error {
	a.mu.Lock()
	idle := a.idle
	a.idle = nil
	a.closed.Store(true)
	a.mu.Unlock()
	for _, fr := range idle {
		fr.Close()
	}
	a.cps.Clear()
	return nil
}

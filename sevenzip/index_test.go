package sevenzip

import (
	"bytes"
	"errors"
	"hash/crc32"
	"os/exec"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// num encodes v as a 7z variable-length number.
func num(v uint64) []byte {
	for n := 0; n < 8; n++ {
		if v < 1<<(7*(n+1)) {
			// n extra bytes; the first byte has n leading ones.
			b := make([]byte, n+1)
			high := v >> (8 * n)
			b[0] = byte(0xFF<<(8-n)) | byte(high)
			for i := 0; i < n; i++ {
				b[1+i] = byte(v >> (8 * i))
			}
			return b
		}
	}
	b := []byte{0xFF}
	for i := 0; i < 8; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// lzma2Stored wraps data in LZMA2 uncompressed chunks (control 1: dict
// reset, 2: no reset), ending with the end byte: an LZMA2 stream any
// decoder accepts, made without an encoder.
func lzma2Stored(data []byte) []byte {
	var b []byte
	first := true
	for len(data) > 0 {
		n := min(len(data), 64<<10)
		ctl := byte(2)
		if first {
			ctl, first = 1, false
		}
		b = append(b, ctl, byte((n-1)>>8), byte(n-1))
		b = append(b, data[:n]...)
		data = data[n:]
	}
	return append(b, 0)
}

// coderSpec is one coder of a test folder: a method ID and properties.
type coderSpec struct {
	id    []byte
	props []byte
}

var (
	copyCoder  = coderSpec{id: []byte{0x00}}
	lzma2Coder = func(dictProp byte) coderSpec { return coderSpec{id: []byte{0x21}, props: []byte{dictProp}} }
)

// folderInfo is the UnpackInfo of one folder that chains coders (coder 0
// outputs the data, coder i reads coder i+1's output, the last reads the
// pack stream); sizes[i] is coder i's unpack size.
func folderRecord(coders []coderSpec, sizes []uint64) (folder, unpack []byte) {
	folder = num(uint64(len(coders)))
	for _, c := range coders {
		flag := byte(len(c.id))
		if c.props != nil {
			flag |= 0x20
		}
		folder = append(folder, flag)
		folder = append(folder, c.id...)
		if c.props != nil {
			folder = append(folder, num(uint64(len(c.props)))...)
			folder = append(folder, c.props...)
		}
	}
	for i := 0; i+1 < len(coders); i++ {
		folder = cat(folder, num(uint64(i)), num(uint64(i+1))) // in i <- out i+1
	}
	for _, s := range sizes {
		unpack = append(unpack, num(s)...)
	}
	return folder, unpack
}

// streamsInfo builds a StreamsInfo with one pack stream of packSize bytes
// at packPos and one folder of the given coders.
func streamsInfoBytes(packPos, packSize uint64, coders []coderSpec, sizes []uint64, crc *uint32) []byte {
	f, u := folderRecord(coders, sizes)
	b := cat([]byte{idPackInfo}, num(packPos), num(1), []byte{idSize}, num(packSize), []byte{idEnd},
		[]byte{idUnpackInfo, idFolder}, num(1), []byte{0}, f, []byte{idCodersUnpackSize}, u)
	if crc != nil {
		b = append(b, idCRC, 1, byte(*crc), byte(*crc>>8), byte(*crc>>16), byte(*crc>>24))
	}
	return append(b, idEnd, idEnd)
}

// encodedArchive stores plain header hdr as the data of one folder (after
// the data pack bytes) and points the start header at an EncodedHeader.
func encodedArchive(pack, hdr []byte, coders []coderSpec, packed []byte) []byte {
	if packed == nil {
		packed = hdr
	}
	crc := crc32.ChecksumIEEE(hdr)
	sizes := make([]uint64, len(coders))
	for i := range sizes {
		sizes[i] = uint64(len(hdr))
	}
	enc := cat([]byte{idEncodedHeader}, streamsInfoBytes(uint64(len(pack)), uint64(len(packed)), coders, sizes, &crc))
	return build7z(cat(pack, packed), enc)
}

// emptyFilesHeader is a plain header of n empty files without names.
func emptyFilesHeader(n int) []byte {
	vec := bytes.Repeat([]byte{0xFF}, (n+7)/8)
	return cat([]byte{idHeader, idFilesInfo}, num(uint64(n)),
		[]byte{idEmptyStream}, num(uint64(len(vec))), vec,
		[]byte{idEmptyFile}, num(uint64(len(vec))), vec,
		[]byte{idEnd, idEnd})
}

func openWith(data []byte, l arc.Limits) (*Archive, error) {
	return Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: l}))
}

// heapDuring reports the heap growth (bytes allocated) while f runs.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCountBomb: a header declaring more entries than MaxEntries fails
// with ErrLimit before anything is allocated per entry, and one whose
// count its bytes cannot describe is corrupt.
func TestCountBomb(t *testing.T) {
	const n = 1 << 20
	data := encodedArchive(nil, emptyFilesHeader(n), []coderSpec{lzma2Coder(16)}, lzma2Stored(emptyFilesHeader(n)))
	var err error
	got := allocDuring(func() { _, err = openWith(data, arc.Limits{MaxEntries: n - 1}) })
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	t.Logf("refused %d entries with %v after %d bytes", n, err, got)
	if got > 8<<20 {
		t.Errorf("allocated %d bytes before refusing", got)
	}
	// The index budget stops it too, before the entries are allocated.
	got = allocDuring(func() { _, err = openWith(data, arc.Limits{MaxHeaderMemory: 16 << 20}) })
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("got %v, want ErrLimit from MaxHeaderMemory", err)
	}
	if got > 24<<20 {
		t.Errorf("allocated %d bytes before refusing", got)
	}
	// More files than bits in the rest of the header.
	hdr := cat([]byte{idHeader, idFilesInfo}, num(10_000_000), []byte{idEmptyStream, 4, 0xFF, 0xFF, 0xFF, 0xFF, idEnd, idEnd})
	if _, err := openBytes(encodedArchive(nil, hdr, []coderSpec{copyCoder}, nil)); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("10M files in %d bytes: got %v, want ErrCorrupt", len(hdr), err)
	}
	// More names than name bytes.
	hdr = cat([]byte{idHeader, idFilesInfo}, num(1000), []byte{idEmptyStream}, num(125), bytes.Repeat([]byte{0xFF}, 125),
		[]byte{idName, 5, 0, 'a', 0, 0, 0, idEnd, idEnd})
	if _, err := openBytes(build7z(nil, hdr)); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("1000 names in 4 bytes: got %v, want ErrCorrupt", err)
	}
}

// TestManyEntriesMemory opens an archive of 10^6 empty files and bounds
// the heap the index holds: the Entry values live in one slab, with no
// per-file intermediate.
func TestManyEntriesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 10^6-entry index")
	}
	const n = 1_000_000
	data := encodedArchive(nil, emptyFilesHeader(n), []coderSpec{lzma2Coder(16)}, lzma2Stored(emptyFilesHeader(n)))
	var a *Archive
	var err error
	got := allocDuring(func() { a, err = openBytes(data) })
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entries()) != n || a.Entries()[n-1].IsDir() || a.Entries()[n-1].Size != 0 {
		t.Fatalf("%d entries", len(a.Entries()))
	}
	t.Logf("%d entries: %d bytes allocated (%d per entry)", n, got, got/n)
	if limit := uint64(n) * uint64(entryCost+16); got > limit {
		t.Errorf("allocated %d bytes, want <= %d", got, limit)
	}
	// The same index under a budget that cannot hold it.
	if _, err := openWith(data, arc.Limits{MaxHeaderMemory: n * 100}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("got %v, want ErrLimit", err)
	}
	runtime.KeepAlive(a)
}

// TestListingDecodesNothing: Open and Entries of an archive with
// symlinks decode no folder; reading in order fills the link targets
// and decodes the solid folder once.
func TestListingDecodesNothing(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/lzma2.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	start := a.folderStarts // the encoded header's decoder
	if start > 1 {
		t.Fatalf("Open started %d folder decoders", start)
	}
	links := 0
	for i, e := range a.Entries() {
		if e.Link == arc.LinkSymlink {
			links++
			if e.LinkTarget != "" {
				t.Errorf("%s: target %q known before reading", e.Name, e.LinkTarget)
			}
			_ = i
		}
	}
	if links == 0 {
		t.Fatal("no symlinks in the test archive")
	}
	testutil.DrainEntries(t, a.Entries(), a.Open)
	for i, e := range a.Entries() {
		if e.Link == arc.LinkSymlink {
			got, err := a.LinkTarget(i)
			if err != nil || got == "" || got != e.LinkTarget {
				t.Errorf("%s: LinkTarget %q, %v; field %q", e.Name, got, err, e.LinkTarget)
			}
		}
	}
	if a.folderStarts-start != 1 {
		t.Errorf("in-order read with links started %d decoders, want 1", a.folderStarts-start)
	}
}

// TestHeaderBomb: an encoded header that decodes to far more than its
// packed bytes costs its size once (verified first, then allocated
// exactly), not a doubling buffer; one that only declares a huge size
// costs nothing; MaxHeaderMemory refuses it before decoding.
func TestHeaderBomb(t *testing.T) {
	// Declare 64 MiB for the 12-byte stored header.
	hdr := emptyFilesHeader(8)
	stored := lzma2Stored(hdr)
	crc := crc32.ChecksumIEEE(hdr)
	enc := cat([]byte{idEncodedHeader}, streamsInfoBytes(0, uint64(len(stored)), []coderSpec{lzma2Coder(22)}, []uint64{64 << 20}, &crc))
	lie := build7z(stored, enc)
	var err error
	n := allocDuring(func() { _, err = openBytes(lie) })
	if err == nil || n > 4<<20 {
		t.Errorf("header declared 64 MiB over %d bytes: %v after %d bytes allocated", len(stored), err, n)
	}
	if _, err := openWith(lie, arc.Limits{MaxHeaderMemory: 32 << 20}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("MaxHeaderMemory: got %v", err)
	}

	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz not installed")
	}
	const size = 32 << 20
	pad := make([]byte, size)
	big := cat([]byte{idHeader, idFilesInfo, 1, idDummy}, num(size), pad,
		[]byte{idName, 5, 0, 'f', 0, 0, 0, idEmptyStream, 1, 0x80, idEnd, idEnd})
	data := encodedArchive(nil, big, []coderSpec{lzma2Coder(22)}, xzRaw(t, big))
	var a *Archive
	n = allocDuring(func() { a, err = openBytes(data) })
	if err != nil || len(a.Entries()) != 1 || a.Entries()[0].Name != "f" {
		t.Fatalf("%d-byte archive with a 32 MiB header: %v", len(data), err)
	}
	t.Logf("%d-byte archive, 32 MiB header: %d bytes allocated", len(data), n)
	if n > size+20<<20 { // the header, once, and the 8 MiB window grown by doubling
		t.Errorf("allocated %d bytes for a %d-byte header", n, size)
	}
}

// TestSubstreamBomb: substreams are files' data, so their count is held
// to MaxEntries before their arrays are allocated.
func TestSubstreamBomb(t *testing.T) {
	const n = 1 << 16
	sizes := bytes.Repeat([]byte{0}, n-1) // n-1 sizes of 0 bytes
	hdr := cat([]byte{idHeader, idMainStreamsInfo, idPackInfo, 0, 1, idSize, 1, idEnd,
		idUnpackInfo, idFolder, 1, 0, 1, 0x00, idCodersUnpackSize, 1, idEnd,
		idSubStreamsInfo, idNumUnpackStream}, num(n), []byte{idSize}, sizes, []byte{idEnd, idEnd})
	data := encodedArchive([]byte{'x'}, hdr, []coderSpec{copyCoder}, nil)
	if _, err := openWith(data, arc.Limits{MaxEntries: n - 1}); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("%d substreams over MaxEntries %d: got %v", n, n-1, err)
	}
	if _, err := openWith(data, arc.Limits{MaxEntries: n}); errors.Is(err, errs.ErrLimit) {
		t.Errorf("%d substreams within MaxEntries: got %v", n, err)
	}
}

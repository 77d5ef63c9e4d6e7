package unarc

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// staleTar is a tarball of n 1 KiB files under d/ with, after file
// `at`, a symlink d/link -> link, a directory d/sub of mode dirMode and
// a hard link d/hard -> hard (a file before them).
func staleTar(t *testing.T, n, at int, link, hard string, dirMode int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	put := func(h *tar.Header, data []byte) {
		h.ModTime, h.Format = mod, tar.FormatUSTAR
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	put(&tar.Header{Typeflag: tar.TypeDir, Name: "d/", Mode: 0o755}, nil)
	for i := 0; i < n; i++ {
		data := testutil.RandomBytes(1024, uint64(i))
		put(&tar.Header{Typeflag: tar.TypeReg, Name: fmt.Sprintf("d/file-%04d.bin", i), Mode: 0o644, Size: int64(len(data))}, data)
		if i == at {
			put(&tar.Header{Typeflag: tar.TypeSymlink, Name: "d/link", Linkname: link, Mode: 0o777}, nil)
			put(&tar.Header{Typeflag: tar.TypeDir, Name: "d/sub/", Mode: dirMode}, nil)
			put(&tar.Header{Typeflag: tar.TypeLink, Name: "d/hard", Linkname: hard, Mode: 0o644}, nil)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIndexStaleExtract is issue 30's item 7: the index of tarball A
// opens tarball B of the same size and the same first and last 64 KiB
// (stored gzip members: only the middle one differs, in a symlink's
// target, a directory's mode and a hard link's target, each header's
// checksum right). Extract opens none of those three entries, yet each
// must be checked against B before it is made: it fails with
// ErrStaleIndex, and A's link target, mode and link never appear; the
// regular files around them extract. A plain tar's index
// digests its header blocks at open, but past indexfmt.MaxRanges runs
// only a sample of them.
func TestIndexStaleExtract(t *testing.T) {
	// The tar.gz: 300 files, the three entries after file 150, in the
	// middle gzip member. The plain tar: 3,000 files (more header runs
	// than indexfmt.MaxRanges, so most are merged into a range past
	// 2 MiB that the digest covers by its ends), the three after file
	// 2,000, outside those ends.
	for _, kind := range []string{"tar.gz", "tar"} {
		n, at := 300, 150
		if kind == "tar" {
			n, at = 3000, 2000
		}
		a := staleTar(t, n, at, "file-0001.bin", "d/file-0010.bin", 0o700)
		b := staleTar(t, n, at, "file-0002.bin", "d/file-0011.bin", 0o755)
		if kind == "tar.gz" {
			cut1, cut2 := 150<<10, 300<<10
			a, b = gzipMembers(t, a, cut1, cut2), gzipMembers(t, b, cut1, cut2)
		}
		if len(a) != len(b) || !bytes.Equal(a[:edgeLen], b[:edgeLen]) || !bytes.Equal(a[len(a)-edgeLen:], b[len(b)-edgeLen:]) || bytes.Equal(a, b) {
			t.Fatalf("%s: the two archives do not share their ends", kind)
		}
		for _, cp := range []int64{0, 32 << 10} {
			for _, workers := range []int{1, 4} {
				t.Run(fmt.Sprintf("%s/checkpoints=%d/workers=%d", kind, cp, workers), func(t *testing.T) {
					// Extract the three and a few files (a file system
					// of 3,000 files is slow to write on a loaded machine).
					files := []int{0, 10, 11, at, at + 1, n - 1}
					keep := map[string]bool{"d": true, "d/link": true, "d/sub": true, "d/hard": true}
					for _, i := range files {
						keep[fmt.Sprintf("d/file-%04d.bin", i)] = true
					}
					opts := []Option{WithCheckpoints(cp, 64<<20), WithWorkers(workers)}
					xopts := []ExtractOption{WithPreservePermissions(true), WithFilter(func(e *Entry) bool { return keep[e.Name] })}
					arcA, err := Open(bytes.NewReader(a), int64(len(a)), opts...)
					if err != nil {
						t.Fatal(err)
					}
					idx := checkpointIndex(t, arcA, arcA.Entries()[n+3])
					arcB, err := Open(bytes.NewReader(b), int64(len(b)), append(opts, WithIndex(idx))...)
					if err != nil {
						t.Fatalf("same ends, stale middle: %v", err)
					}
					defer arcB.Close()
					dir := t.TempDir()
					failed := entryErrs(t, arcB.Extract(context.Background(), dir, xopts...))
					for _, name := range []string{"d/link", "d/sub", "d/hard"} {
						if !errors.Is(failed[name], ErrStaleIndex) {
							t.Errorf("%s: %v, want ErrStaleIndex", name, failed[name])
						}
					}
					if len(failed) != 3 {
						t.Errorf("%d entries failed: %v", len(failed), failed)
					}
					if target, err := os.Readlink(filepath.Join(dir, "d/link")); err == nil {
						t.Errorf("d/link made, to %q", target)
					}
					if st, err := os.Lstat(filepath.Join(dir, "d/sub")); err == nil {
						t.Errorf("d/sub made, mode %v", st.Mode())
					}
					if _, err := os.Lstat(filepath.Join(dir, "d/hard")); err == nil {
						t.Errorf("d/hard made")
					}
					for _, i := range files {
						got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("d/file-%04d.bin", i)))
						if err != nil || !bytes.Equal(got, testutil.RandomBytes(1024, uint64(i))) {
							t.Errorf("file %d: %v", i, err)
						}
					}
				})
			}
		}
	}
}

// TestIndexStaleZipDirectory: a ZIP central directory past 2 MiB is
// digested at open by its first and last MiB only; B differs from A in
// the middle of it (a directory's mode in its external attributes, and
// an entry turned from a file into a symlink). Extract must digest the
// whole directory before it acts on an entry: every entry fails with
// ErrStaleIndex, nothing is made. An index of the unchanged archive
// extracts.
func TestIndexStaleZipDirectory(t *testing.T) {
	const n = 40000 // ~2.4 MiB of directory
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < n; i++ {
		h := &zip.FileHeader{Name: fmt.Sprintf("d/e%05d", i), Method: zip.Store}
		switch i {
		case n / 2:
			h.Name += "/"
			h.SetMode(fs.ModeDir | 0o700)
		default:
			h.SetMode(0o644)
		}
		if _, err := zw.CreateHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a := buf.Bytes()
	b := bytes.Clone(a)
	// The central records of the two middle entries: external attributes
	// at 38, the name at 46.
	for _, c := range []struct {
		name string
		mode fs.FileMode
	}{{fmt.Sprintf("d/e%05d/", n/2), fs.ModeDir | 0o777}, {fmt.Sprintf("d/e%05d", n/2+1), fs.ModeSymlink | 0o777}} {
		at := bytes.LastIndex(b, []byte(c.name))
		rec := at - 46
		if at < 0 || string(b[rec:rec+4]) != "PK\x01\x02" {
			t.Fatalf("no central record of %s", c.name)
		}
		attr := binary.LittleEndian.Uint32(b[rec+38:])
		unix := uint32(0o040000) | uint32(c.mode.Perm())
		if c.mode&fs.ModeSymlink != 0 {
			unix = 0o120000 | uint32(c.mode.Perm())
		}
		binary.LittleEndian.PutUint32(b[rec+38:], attr&0xffff|unix<<16)
	}
	eocd := bytes.LastIndex(a, []byte("PK\x05\x06"))
	cd := int(binary.LittleEndian.Uint32(a[eocd+16:]))
	if len(a)-cd <= 2<<20 || !bytes.Equal(a[:cd+1<<20], b[:cd+1<<20]) || !bytes.Equal(a[len(a)-1<<20:], b[len(b)-1<<20:]) {
		t.Fatal("the change is not in the middle of a directory past 2 MiB")
	}
	keep := WithFilter(func(e *Entry) bool { return e.Index >= n/2-1 && e.Index <= n/2+2 })
	arcA, err := Open(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := arcA.Index()
	arcA.Close()
	if err != nil {
		t.Fatal(err)
	}
	m, _ := idx.MarshalBinary()
	if idx, err = ParseIndex(m); err != nil {
		t.Fatal(err)
	}
	for _, stale := range []bool{true, false} {
		src := a
		if stale {
			src = b
		}
		arcB, err := Open(bytes.NewReader(src), int64(len(src)), WithIndex(idx))
		if err != nil {
			t.Fatalf("stale=%v: %v", stale, err)
		}
		dir := t.TempDir()
		failed := entryErrs(t, arcB.Extract(context.Background(), dir, keep, WithPreservePermissions(true)))
		arcB.Close()
		if !stale {
			if len(failed) != 0 {
				t.Errorf("the index of the same archive: %v", failed)
			}
			if st, err := os.Lstat(filepath.Join(dir, fmt.Sprintf("d/e%05d", n/2))); err != nil || st.Mode() != fs.ModeDir|0o700 {
				t.Errorf("the directory: %v, %v", st, err)
			}
			continue
		}
		if len(failed) != 4 {
			t.Errorf("%d entries failed, want 4: %v", len(failed), failed)
		}
		for name, err := range failed {
			if !errors.Is(err, ErrStaleIndex) {
				t.Errorf("%s: %v, want ErrStaleIndex", name, err)
			}
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "d")); len(ents) != 0 {
			t.Errorf("%d entries made from a stale index", len(ents))
		}
	}
}

// windowTarGz is a tar.gz of two gzip members: the first holds p0
// (119 KiB, random), m (16 KiB: mid), c (16 KiB, a copy of mid, which
// Deflate codes as matches into the window) and p1 (80 KiB, random),
// each flushed so that m's bytes (stored: random) take the same room
// whatever they are; the second holds t (80 KiB, random).
func windowTarGz(t *testing.T, mid []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	member := func(files []string, data [][]byte, end bool) {
		zw := gzip.NewWriter(&out)
		tw := tar.NewWriter(zw)
		for k, name := range files {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data[k])), ModTime: mod, Format: tar.FormatUSTAR}); err != nil {
				t.Fatal(err)
			}
			tw.Flush()
			zw.Flush()
			tw.Write(data[k])
			tw.Flush()
			zw.Flush()
		}
		if end {
			tw.Close()
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// m's data ends a Deflate block at 139,264: the first after 128 KiB,
	// where a checkpoint is taken (at least every 64 KiB of output).
	// p1 puts the first member's CRC-32 beyond the 64 KiB a checkpoint's
	// Check covers.
	member([]string{"p0", "m", "c", "p1"}, [][]byte{testutil.RandomBytes(119<<10, 1), mid, mid, testutil.RandomBytes(80<<10, 3)}, false)
	member([]string{"t"}, [][]byte{testutil.RandomBytes(80<<10, 2)}, true)
	return out.Bytes()
}

// TestIndexStaleWindow is issue 30's item 8: tar.gz A and B differ only
// in entry m, whose bytes are the Deflate window of the checkpoints
// taken in entry c (a copy of m, coded as matches into it). Their sizes
// and first and last 64 KiB are the same, and every byte after m's is
// the same, so a checkpoint of A inside or after m gives, in B, the
// Check of the 64 KiB that follow it: reads of c through A's index and
// its checkpoints must give B's bytes (or fail with ErrStaleIndex),
// never A's.
func TestIndexStaleWindow(t *testing.T) {
	midA, midB := testutil.RandomBytes(16<<10, 10), testutil.RandomBytes(16<<10, 11)
	a, b := windowTarGz(t, midA), windowTarGz(t, midB)
	if len(a) != len(b) || !bytes.Equal(a[:edgeLen], b[:edgeLen]) || !bytes.Equal(a[len(a)-edgeLen:], b[len(b)-edgeLen:]) {
		t.Fatal("the two tar.gz do not share their size and ends")
	}
	// After m's stored bytes, A and B differ only in the first member's
	// CRC-32: c's coded bytes are the same.
	last := 0
	for k := range a {
		if a[k] != b[k] {
			last = k
		}
	}
	if at := bytes.Index(a, midA); at < 0 || last >= at+len(midA)+4<<10 && !bytes.Equal(a[at+len(midA):last-8], b[at+len(midA):last-8]) {
		t.Fatal("c and p1 are coded differently in the two")
	}
	opts := []Option{WithCheckpoints(4<<10, 64<<20)}
	arcA, err := Open(bytes.NewReader(a), int64(len(a)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	idx := checkpointIndex(t, arcA, arcA.Entries()[4])
	for _, cp := range sectionCheckpoints(t, idx) {
		t.Logf("checkpoint at %d (in %d)", cp.Out, cp.In/8)
	}
	arcB, err := Open(bytes.NewReader(b), int64(len(b)), append(opts, WithIndex(idx))...)
	if err != nil {
		t.Fatalf("same ends: %v", err)
	}
	defer arcB.Close()
	c := arcB.Entries()[2]
	if c.Name != "c" {
		t.Fatalf("entry 2 is %q", c.Name)
	}
	s, err := arcB.OpenSeekable(c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stale := 0
	for _, off := range []int64{12 << 10, 8 << 10, 4 << 10, 100, 16<<10 - 100} {
		p := make([]byte, 64)
		_, err := s.ReadAt(p, off)
		switch {
		case errors.Is(err, ErrStaleIndex):
			stale++
		case err != nil:
			t.Fatalf("ReadAt %d: %v", off, err)
		case bytes.Equal(p, midA[off:off+64]):
			t.Errorf("ReadAt %d gave A's bytes", off)
		case !bytes.Equal(p, midB[off:off+64]):
			t.Errorf("ReadAt %d gave neither A's nor B's bytes", off)
		}
	}
	st := arcB.CheckpointStats()
	t.Logf("%d stale reads; checkpoints %+v", stale, st)
	if st.Rejected == 0 {
		t.Errorf("no restored checkpoint rejected: %+v", st)
	}
}

// rar5PatchHeader replaces old with new (the same length) in b and
// makes the CRC-32 of the RAR5 header holding it again.
func rar5PatchHeader(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	p := bytes.Index(b, []byte(old))
	if p < 0 || len(old) != len(new) {
		t.Fatalf("no %q", old)
	}
	b = bytes.Clone(b)
	for s := p - 4; s >= max(p-1024, 0); s-- {
		size, k := binary.Uvarint(b[s+4:])
		end := s + 4 + k + int(size)
		if k <= 0 || size > 1<<16 || end <= p || end > len(b) || crc32.ChecksumIEEE(b[s+4:end]) != binary.LittleEndian.Uint32(b[s:]) {
			continue
		}
		copy(b[p:], new)
		binary.LittleEndian.PutUint32(b[s:], crc32.ChecksumIEEE(b[s+4:end]))
		return b
	}
	t.Fatalf("no RAR5 header around %q", old)
	return nil
}

// TestIndexStaleRarLink: a RAR5 symlink's target lies in its file
// header; with 1,000 entries an index's open digests a sample of the
// header regions (and the archive's ends), and B, whose link target in
// the middle was changed (its header's CRC made again), is not in it.
// Extract must check the rest before it acts: the entries fail with
// ErrStaleIndex and no link to A's target is made; the index of A
// itself extracts A's link.
func TestIndexStaleRarLink(t *testing.T) {
	a, err := os.ReadFile(filepath.Join("testdata", "index", "stale-rar5.rar"))
	if err != nil {
		t.Fatal(err)
	}
	b := rar5PatchHeader(t, a, "target-AAAA", "target-BBBB")
	if at := bytes.Index(a, []byte("target-AAAA")); at < edgeLen || at > len(a)-edgeLen {
		t.Fatal("the link's header lies in the archive's ends")
	}
	keep := WithFilter(func(e *Entry) bool { return e.Name == "d/f0500" || e.Name == "d/f0500l" || e.Name == "d/f0501" })
	arcA, err := Open(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := arcA.Index()
	arcA.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, stale := range []bool{true, false} {
		src := a
		if stale {
			src = b
		}
		x, err := Open(bytes.NewReader(src), int64(len(src)), WithIndex(idx))
		if err != nil {
			t.Fatalf("stale=%v: %v (the changed header is in the open's sample: make the archive again)", stale, err)
		}
		dir := t.TempDir()
		failed := entryErrs(t, x.Extract(context.Background(), dir, keep))
		x.Close()
		target, lerr := os.Readlink(filepath.Join(dir, "d/f0500l"))
		if !stale {
			if len(failed) != 0 || target != "target-AAAA" {
				t.Errorf("A from its index: %v, link %q (%v)", failed, target, lerr)
			}
			continue
		}
		if len(failed) != 3 {
			t.Errorf("%d entries failed, want 3: %v", len(failed), failed)
		}
		for name, err := range failed {
			if !errors.Is(err, ErrStaleIndex) {
				t.Errorf("%s: %v, want ErrStaleIndex", name, err)
			}
		}
		if lerr == nil {
			t.Errorf("link made, to %q", target)
		}
	}
}

// forceCRC rewrites b[pos:pos+4] so that b's CRC-32 (IEEE) is want: the
// CRC of equal-length messages is affine in their bits, so the four
// bytes solve 32 linear equations over GF(2).
func forceCRC(t *testing.T, b []byte, pos int, want uint32) {
	t.Helper()
	clear(b[pos : pos+4])
	base := crc32.ChecksumIEEE(b)
	var cols [32]uint32 // the CRC change of each bit of the four bytes
	var idx [32]uint32  // which bits make up each reduced column
	for i := range cols {
		b[pos+i/8] ^= 1 << (i % 8)
		cols[i], idx[i] = crc32.ChecksumIEEE(b)^base, 1<<i
		b[pos+i/8] ^= 1 << (i % 8)
	}
	// Gaussian elimination, then the combination giving want^base.
	for bit, row := 0, 0; bit < 32 && row < 32; bit++ {
		p := -1
		for k := row; k < 32; k++ {
			if cols[k]>>bit&1 != 0 {
				p = k
				break
			}
		}
		if p < 0 {
			continue
		}
		cols[row], cols[p] = cols[p], cols[row]
		idx[row], idx[p] = idx[p], idx[row]
		for k := range cols {
			if k != row && cols[k]>>bit&1 != 0 {
				cols[k] ^= cols[row]
				idx[k] ^= idx[row]
			}
		}
		row++
	}
	need, x := want^base, uint32(0)
	for k := range cols {
		if cols[k] != 0 && need&(cols[k]&-cols[k]) != 0 {
			need ^= cols[k]
			x ^= idx[k]
		}
	}
	if need != 0 {
		t.Fatal("CRC-32 cannot be forced")
	}
	binary.LittleEndian.PutUint32(b[pos:], x)
	if crc32.ChecksumIEEE(b) != want {
		t.Fatal("forced CRC-32 differs")
	}
}

// TestIndexStaleWindow7z is item 8 in a solid 7z (LZMA2): B is A with
// other noise written over the first 25,000 bytes of b.bin, which 7zz
// kept in an uncompressed LZMA2 chunk (so nothing moves), its CRC-32
// made A's again (so the header and its CRCs are A's, and B has the
// same size and ends). Every byte after them decodes differently in B
// (c.bin copies b.bin; d.bin's literals are coded against bytes before
// them: B's d.bin is corrupt after 146 bytes), yet a checkpoint of A
// past b.bin gives its Check in B. Reads of c.bin and d.bin through A's
// index and checkpoints must give what B decodes to from the start (or
// fail where that fails), never A's bytes.
func TestIndexStaleWindow7z(t *testing.T) {
	a, err := os.ReadFile(filepath.Join("testdata", "index", "stale-lzma2.7z"))
	if err != nil {
		t.Fatal(err)
	}
	opts := []Option{WithCheckpoints(64<<10, 64<<20)}
	arcA, err := Open(bytes.NewReader(a), int64(len(a)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ents := arcA.Entries()
	if len(ents) != 4 || ents[1].Name != "b.bin" || ents[2].Name != "c.bin" {
		t.Fatalf("entries %v", ents)
	}
	var wantA [][]byte
	for _, e := range ents {
		wantA = append(wantA, readEntry(t, arcA, e))
	}
	const changed = 25000
	midB := bytes.Clone(wantA[1])
	copy(midB, testutil.RandomBytes(changed, 99))
	forceCRC(t, midB, 1000, crc32.ChecksumIEEE(wantA[1]))
	at := bytes.Index(a, wantA[1][:changed])
	if at < 0 {
		t.Fatal("b.bin's first bytes are not stored whole")
	}
	b := bytes.Clone(a)
	copy(b[at:], midB[:changed])
	if !bytes.Equal(a[:edgeLen], b[:edgeLen]) || !bytes.Equal(a[len(a)-edgeLen:], b[len(b)-edgeLen:]) {
		t.Fatal("the two 7z do not share their ends")
	}
	// What B decodes to from the start (d.bin fails its CRC at its end:
	// the bytes up to there).
	arcB0, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var wantB [][]byte
	for _, e := range arcB0.Entries() {
		rc, err := arcB0.OpenEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(rc)
		rc.Close()
		wantB = append(wantB, got)
	}
	arcB0.Close()
	idx := checkpointIndex(t, arcA, ents[3])
	arcB, err := Open(bytes.NewReader(b), int64(len(b)), append(opts, WithIndex(idx))...)
	if err != nil {
		t.Fatalf("same header, ends and CRCs: %v", err)
	}
	defer arcB.Close()
	differ := 0
	for _, i := range []int{2, 3} {
		s, err := arcB.OpenSeekable(arcB.Entries()[i])
		if err != nil {
			t.Fatal(err)
		}
		for k := int64(1); k < 8; k++ {
			off := int64(len(wantA[i])) * k / 8
			p := make([]byte, 64)
			_, err := s.ReadAt(p, off)
			if off+64 > int64(len(wantB[i])) {
				// B fails before there from the start: so must the read.
				differ++
				if err == nil {
					t.Errorf("%s: ReadAt %d gave bytes (A's: %v) where B fails", ents[i].Name, off, bytes.Equal(p, wantA[i][off:off+64]))
				}
				continue
			}
			if bytes.Equal(wantA[i][off:off+64], wantB[i][off:off+64]) {
				continue
			}
			differ++
			switch {
			case errors.Is(err, ErrStaleIndex):
			case err != nil:
				t.Fatalf("%s: ReadAt %d: %v", ents[i].Name, off, err)
			case bytes.Equal(p, wantA[i][off:off+64]):
				t.Errorf("%s: ReadAt %d gave A's bytes", ents[i].Name, off)
			case !bytes.Equal(p, wantB[i][off:off+64]):
				t.Errorf("%s: ReadAt %d gave neither A's nor B's bytes", ents[i].Name, off)
			}
		}
		s.Close()
	}
	if differ == 0 {
		t.Fatal("A and B read the same everywhere")
	}
	if st := arcB.CheckpointStats(); st.Rejected == 0 {
		t.Errorf("no restored checkpoint rejected: %+v", st)
	}
}

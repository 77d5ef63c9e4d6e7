package ppmd

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// slt7z is what `7zz l -slt` says about a single-folder PPMd 7z archive.
type slt7z struct {
	blocks  int
	entries []sltEntry
}

type sltEntry struct {
	path, method string
	size, packed int64
	block        string
}

func list7z(t *testing.T, path string) slt7z {
	t.Helper()
	out, err := exec.Command("7zz", "l", "-slt", path).Output()
	if err != nil {
		t.Fatalf("7zz l -slt %s: %v", path, err)
	}
	var l slt7z
	var cur *sltEntry
	inEntries := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "----------" {
			inEntries = true
			continue
		}
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		if !inEntries {
			if k == "Blocks" {
				l.blocks, _ = strconv.Atoi(v)
			}
			continue
		}
		switch k {
		case "Path":
			l.entries = append(l.entries, sltEntry{path: v})
			cur = &l.entries[len(l.entries)-1]
		case "Size":
			cur.size, _ = strconv.ParseInt(v, 10, 64)
		case "Packed Size":
			cur.packed, _ = strconv.ParseInt(v, 10, 64)
		case "Method":
			cur.method = v
		case "Block":
			cur.block = v
		}
	}
	return l
}

// parseMethod reads 7-Zip's "PPMD:o6:mem24" (memory as a power of two).
func parseMethod(m string) (order int, mem uint32, ok bool) {
	parts := strings.Split(m, ":")
	if len(parts) != 3 || parts[0] != "PPMD" || !strings.HasPrefix(parts[1], "o") || !strings.HasPrefix(parts[2], "mem") {
		return 0, 0, false
	}
	o, err1 := strconv.Atoi(parts[1][1:])
	e, err2 := strconv.Atoi(parts[2][3:])
	if err1 != nil || err2 != nil || e < 11 || e > 31 {
		return 0, 0, false
	}
	return o, 1 << e, true
}

// TestCorpus7z decodes the PPMd folder of every single-folder 7z archive
// of the shared corpus whose only coder is PPMd, and checks each entry
// against MANIFEST.tsv. 7zz supplies the folder layout.
func TestCorpus7z(t *testing.T) {
	dir := testutil.CorpusDir(t)
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	want := map[string]map[string][]byte{}
	for _, c := range testutil.Manifest(t, dir) {
		m := map[string][]byte{}
		for _, r := range c.Rows {
			if r.Type == "file" {
				m[r.Entry] = r.SHA256
			}
		}
		want[c.Archive] = m
	}
	passed := 0
	for _, arch := range []string{
		"7z/bodgit-sevenzip/ppmd.7z",
		"7z/libarchive/test_read_format_7zip_ppmd.7z",
		"own/7z/7z_ppmd.7z",
	} {
		t.Run(arch, func(t *testing.T) {
			path := filepath.Join(dir, arch)
			l := list7z(t, path)
			if l.blocks != 1 {
				t.Fatalf("%d blocks, want 1", l.blocks)
			}
			var files []sltEntry
			order, mem := 0, uint32(0)
			var total, packed int64
			for _, e := range l.entries {
				if e.size == 0 {
					continue
				}
				o, m, ok := parseMethod(e.method)
				if !ok {
					t.Fatalf("%s: method %q", e.path, e.method)
				}
				if len(files) == 0 {
					order, mem, packed = o, m, e.packed
				}
				files = append(files, e)
				total += e.size
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if 32+packed > int64(len(b)) {
				t.Fatalf("packed size %d beyond the archive", packed)
			}
			z, err := NewReader7z(bytes.NewReader(b[32:32+packed]), order, mem, total)
			if err != nil {
				t.Fatal(err)
			}
			defer z.Close()
			for _, e := range files {
				h := sha256.New()
				if _, err := io.CopyN(h, z, e.size); err != nil {
					t.Fatalf("%s: %v", e.path, err)
				}
				w, ok := want[arch][e.path]
				if !ok {
					t.Fatalf("%s: not in MANIFEST", e.path)
				}
				if !bytes.Equal(h.Sum(nil), w) {
					t.Fatalf("%s: sha256 mismatch", e.path)
				}
			}
			if n, err := z.Read(make([]byte, 1)); n != 0 || err != io.EOF {
				t.Fatalf("after the folder: %d, %v; want io.EOF", n, err)
			}
			passed++
		})
	}
	t.Logf("%d corpus archives decoded", passed)
}

// TestCorpusRAR decodes the first file of the corpus RAR archives whose
// first block is PPMd, as far as that file stays in PPMd blocks: files
// that switch to LZ need the v29 unpacker and are only decoded up to that
// point (the PPMd part must not fail).
func TestCorpusRAR(t *testing.T) {
	dir := testutil.CorpusDir(t)
	full := 0 // first files decoded and CRC-checked
	for _, arch := range []string{
		"rar/libarchive/test_read_format_rar_compress_best.rar",
		"rar/libarchive/test_read_format_rar_multivolume.part0001.rar",
		"rar/libarchive/test_read_format_rar_ppmd_lzss_conversion.rar",
		"rar/rarfile/rar3-solid.rar",
		"rar/rarfile/unicode.rar",
	} {
		t.Run(arch, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, arch))
			if err != nil {
				t.Fatal(err)
			}
			rf := parseRAR4(t, b)
			if rf.unpVer != 29 {
				t.Skipf("unpack version %d", rf.unpVer)
			}
			var d RAR
			defer d.Close()
			got, err := unpackPPM29(&d, bytes.NewReader(rf.packed), rf.size)
			if err != nil && strings.Contains(err.Error(), "not handled by this test") {
				t.Logf("PPMd part decoded (%d bytes), then: %v", len(got), err)
				return
			}
			if err != nil {
				t.Fatalf("after %d bytes: %v", len(got), err)
			}
			if c := crc32.ChecksumIEEE(got); c != rf.crc {
				t.Fatalf("crc %08x, want %08x", c, rf.crc)
			}
			full++
		})
	}
	t.Logf("%d first files decoded completely", full)
}

package rar4test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/rar/internal/rarcrypto"
)

// TestdataDir is the committed testdata folder sub (e.g. "rar20").
func TestdataDir(sub string) string {
	return filepath.Join(testutil.ModuleRoot(), "testdata", sub)
}

// Sums reads testdata/sub/SHA256SUMS: per archive, the sha256 of each
// file entry (lines "sha256 TAB size TAB archive TAB entry").
func Sums(tb testutil.TB, sub string) map[string]map[[32]byte]int64 {
	tb.Helper()
	f, err := os.Open(filepath.Join(TestdataDir(sub), "SHA256SUMS"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[[32]byte]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		col := strings.Split(sc.Text(), "\t")
		if len(col) < 4 {
			continue
		}
		h, err := hex.DecodeString(col[0])
		if err != nil || len(h) != 32 {
			tb.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		if out[col[2]] == nil {
			out[col[2]] = map[[32]byte]int64{}
		}
		var n int64
		for _, c := range col[1] {
			n = n*10 + int64(c-'0')
		}
		out[col[2]][[32]byte(h)] = n
	}
	if len(out) == 0 {
		tb.Fatalf("%s/SHA256SUMS lists nothing", sub)
	}
	return out
}

// TestdataStreams returns the unencrypted, non-solid, single-part
// compressed entries of the committed archives in testdata/sub that keep
// accepts; it fails the test when there are none.
func TestdataStreams(tb testutil.TB, sub string, keep func(Entry) bool) []Entry {
	tb.Helper()
	names, _ := filepath.Glob(filepath.Join(TestdataDir(sub), "*.rar"))
	var out []Entry
	for _, name := range names {
		ents, err := Load(name)
		if err != nil {
			tb.Fatalf("%s: %v", name, err)
		}
		for _, e := range ents {
			if !e.Dir && e.Method != 0x30 && !e.Encrypted && !e.Split && !e.Solid && keep(e) {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		tb.Fatalf("no streams in testdata/%s", sub)
	}
	return out
}

// CheckTestdata decodes every file entry of every archive in
// testdata/sub whose version ours accepts — RAR 2.0-encrypted ones with
// password — and checks size, CRC-32 and the sha256 in SHA256SUMS; every
// listed file must be decoded.
func CheckTestdata(t testutil.TB, sub string, d Decoder, ours func(ver byte) bool, password string) {
	t.Helper()
	sums := Sums(t, sub)
	decoded := 0
	for archive, want := range sums {
		ents, err := Load(filepath.Join(TestdataDir(sub), archive))
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		got := 0
		for _, e := range ents {
			if e.Dir {
				continue
			}
			if !ours(e.Ver) || e.Method == 0x30 {
				t.Fatalf("%s: %s: version %d method %#x is not for this decoder", archive, e.Name, e.Ver, e.Method)
			}
			var src io.Reader = bytes.NewReader(e.Packed)
			if e.Encrypted {
				if e.Ver != 20 && e.Ver != 26 {
					t.Fatalf("%s: %s: encryption of version %d", archive, e.Name, e.Ver)
				}
				src = rarcrypto.NewReader20(src, rarcrypto.NewCipher20(password))
			}
			if err := d.Reset(src, e.Dict, e.Size, e.Solid); err != nil {
				t.Fatalf("%s: %s: %v", archive, e.Name, err)
			}
			h := sha256.New()
			cr := crc32.NewIEEE()
			n, err := d.WriteTo(io.MultiWriter(h, cr))
			sum := [32]byte(h.Sum(nil))
			if err != nil || n != e.Size || cr.Sum32() != e.CRC {
				t.Errorf("%s: %s: %d bytes, crc %08x (want %d, %08x): %v", archive, e.Name, n, cr.Sum32(), e.Size, e.CRC, err)
				continue
			}
			if size, ok := want[sum]; !ok || size != n {
				t.Errorf("%s: %s: sha256 %x not in SHA256SUMS", archive, e.Name, sum)
				continue
			}
			got++
		}
		if got != len(want) {
			t.Errorf("%s: %d files decoded and matched, SHA256SUMS lists %d", archive, got, len(want))
		}
		decoded += got
	}
	t.Logf("testdata/%s: %d files decoded and matched", sub, decoded)
}

package unarc

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// mixedRAR5 is the mixed-200 RAR5 archive of the benchmarks, when it is
// already in the cache (tests do not build it: it takes minutes).
func mixedRAR5(tb testutil.TB) string {
	tb.Helper()
	p := filepath.Join(testutil.CacheDir(tb), "mixed-rar5.rar")
	if _, err := os.Stat(p); err != nil {
		tb.Skip("mixed-rar5.rar not in the benchmark cache (go test -bench BenchmarkExtract ./rar/ makes it)")
	}
	return p
}

// TestVerifyMixedB3sum is issue 18's done-when: the BLAKE3 digests Verify
// computes for the mixed-200 RAR5 archive are what b3sum prints for the
// mixed-200 files.
func TestVerifyMixedB3sum(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 200 MiB")
	}
	path := mixedRAR5(t)
	if _, err := exec.LookPath("b3sum"); err != nil {
		t.Skip("b3sum not installed")
	}
	dir := testutil.MixedDir(t)
	cmd := exec.Command("b3sum", "mixed-0.bin", "mixed-1.bin", "mixed-2.bin", "mixed-3.bin")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		sum, name, _ := strings.Cut(l, "  ")
		want[name] = sum
	}
	a, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Verify(context.Background(), WithDigests(DigestBLAKE3))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		if r.Status != VerifyOK || hex.EncodeToString(r.BLAKE3) != want[r.Entry.Name] {
			t.Errorf("%s: %v %v %x, b3sum %s", r.Entry.Name, r.Status, r.Err, r.BLAKE3, want[r.Entry.Name])
		}
	}
}

// BenchmarkVerifyDigest measures what the content digests add to
// verifying the mixed-200 RAR5 archive (compare the sub-benchmarks of
// one run).
func BenchmarkVerifyDigest(b *testing.B) {
	path := mixedRAR5(b)
	for _, c := range []struct {
		name string
		d    Digest
	}{{"none", 0}, {"blake3", DigestBLAKE3}, {"sha256", DigestSHA256}} {
		b.Run(c.name, func(b *testing.B) {
			a, err := OpenFile(path)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			b.SetBytes(4 * testutil.MixedFileSize)
			for b.Loop() {
				res, err := a.Verify(context.Background(), WithDigests(c.d))
				if err != nil || len(res) != 4 || res[0].Status != VerifyOK {
					b.Fatal(err)
				}
			}
		})
	}
}

package unarc_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// allocCases are small committed archives, one per format and
// encryption, whose whole extraction must stay within max bytes per run.
// BenchmarkExtract holds the 4-entry mixed-200 workload to 8 KiB; these
// archives have up to 11 entries, so each bound is what the case took
// when the test was written plus about a fifth: what one extraction may
// allocate is its per-archive structures and a name and Entry per entry,
// not decoder state, buffers or key schedules (one 32 KiB buffer, a
// decoder or a BLAKE2sp state per entry would fail it).
var allocCases = []struct {
	file, password string
	max, maxReader uint64 // bytes per extraction; maxReader 0: no Reader run
}{
	{file: "zip/infozip-deflate.zip", max: 10 << 10, maxReader: 9 << 10},
	{file: "zip/7zz-deflate64.zip", max: 5 << 10, maxReader: 5 << 10},
	{file: "zip/crypt/7zz-AES256-deflate.zip", password: "SECRET", max: 8 << 10, maxReader: 8 << 10},
	{file: "7z/lzma2.7z", max: 12 << 10},
	{file: "7z/aes_lzma2_he.7z", password: "secret", max: 10 << 10},
	{file: "rar/rar5_m3.rar", max: 11 << 10, maxReader: 10 << 10},
	{file: "rar/rar5_solid.rar", max: 12 << 10, maxReader: 10 << 10},
	{file: "rar/rar5_blake.rar", max: 12 << 10, maxReader: 11 << 10},
	{file: "rar/rar5_hp_solid.rar", password: "test", max: 12 << 10, maxReader: 11 << 10},
	{file: "rar/rar4_m3.rar", max: 11 << 10, maxReader: 10 << 10},
	// 13 entries; the Archive decodes a compressed tar twice (listing,
	// then reading), so it parses every header twice.
	{file: "tar/small.tar.gz", max: 25 << 10, maxReader: 18 << 10},
	{file: "tar/small.tar.zst", max: 30 << 10, maxReader: 22 << 10},
	{file: "tar/small.tar.xz", max: 25 << 10, maxReader: 20 << 10},
}

// TestExtractAllocs opens and extracts each archive (every entry read to
// the end, checksums verified) after a warm-up and two GCs, and fails if
// a run allocates more than the case's bound on average. The GCs are the
// point: pooled state that a GC drops (sync.Pool) shows up here.
func TestExtractAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector makes sync.Pool drop items on purpose")
	}
	for _, c := range allocCases {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err) // committed testdata
		}
		var opts []unarc.Option
		if c.password != "" {
			opts = append(opts, unarc.WithPassword(c.password))
		}
		for _, api := range []string{"archive", "reader"} {
			bound := c.max
			if api == "reader" {
				if bound = c.maxReader; bound == 0 {
					continue
				}
			}
			run := func() {
				if api == "reader" {
					extractSmallReader(t, data, opts)
				} else {
					extractSmallArchive(t, data, opts)
				}
			}
			per, objects := testutil.WarmAllocs(5, run)
			t.Logf("%s/%s: %d B, %d allocs per extraction, %d entries", c.file, api, per, objects, entryCount(t, data, opts))
			if per > bound {
				t.Errorf("%s/%s: %d bytes per extraction, over %d", c.file, api, per, bound)
			}
		}
	}
}

func extractSmallArchive(t *testing.T, data []byte, opts []unarc.Option) {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	es := a.Entries()
	testutil.DrainEntries(t, es, func(i int) (io.ReadCloser, error) { return a.OpenEntry(es[i]) })
}

func extractSmallReader(t *testing.T, data []byte, opts []unarc.Option) {
	r, err := unarc.NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	testutil.DrainStream(t, r.Next, r)
}

func entryCount(t *testing.T, data []byte, opts []unarc.Option) int {
	a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	return len(a.Entries())
}

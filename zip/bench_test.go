package zip

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// extractArchive opens data and copies every entry to io.Discard, the
// way Extract drives an Archive.
func extractArchive(b *testing.B, ra io.ReaderAt, size int64) int64 {
	a, err := Open(ra, size, nil)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for i, e := range a.Entries() {
		if e.IsDir() {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil {
			b.Fatal(err)
		}
		rc.Close()
		total += n
	}
	return total
}

func extractStream(b *testing.B, data []byte) int64 {
	return extractStreamFrom(b, bytes.NewReader(data))
}

func extractStreamFrom(b *testing.B, r io.Reader) int64 {
	z, err := NewReader(r, nil)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if e.IsDir() {
			continue
		}
		n, err := io.Copy(io.Discard, z)
		if err != nil {
			b.Fatal(err)
		}
		total += n
	}
	z.Close()
	return total
}

func benchAll(b *testing.B, data []byte, ra io.ReaderAt, size int64) {
	b.Run("unarc-Archive", func(b *testing.B) {
		b.SetBytes(extractArchive(b, ra, size))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			extractArchive(b, ra, size)
		}
	})
	if data != nil {
		b.Run("unarc-Reader", func(b *testing.B) {
			b.SetBytes(extractStream(b, data))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				extractStream(b, data)
			}
		})
	}
}

func BenchmarkSmall(b *testing.B) {
	for _, name := range []string{"infozip-deflate.zip", "bsdtar-deflate.zip", "infozip-store.zip"} {
		data := readTestdata(b, name)
		b.Run(name, func(b *testing.B) { benchAll(b, data, bytes.NewReader(data), int64(len(data))) })
	}
}

// BenchmarkMixed extracts the mixed-200 workload zipped by 7zz (Deflate
// -mx5). The comparison with archive/zip and klauspost/compress/zip is in
// the bench module (BenchmarkPeer/zip-deflate).
func BenchmarkMixed(b *testing.B) {
	for _, tc := range []struct{ name, method string }{{"deflate", "Deflate"}, {"store", "Copy"}} {
		b.Run(tc.name, func(b *testing.B) {
			path := testutil.MixedArchive(b, "mixed-200-"+tc.name+".zip", "7zz", "a", "-tzip", "-mx5", "-mmt1", "-mm="+tc.method, "-bd", "-bso0", "{out}")
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			benchAll(b, nil, f, st.Size())
			b.Run("unarc-Reader", func(b *testing.B) {
				b.SetBytes(st.Size())
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					extractStreamFrom(b, onlyReader{io.NewSectionReader(f, 0, st.Size())})
				}
			})
		})
	}
}

// TestOpenAllocs: with warm pools, opening and reading an entry allocates
// only the small handle (and the verifier's writer wrapper in WriteTo).
func TestOpenAllocs(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts differ under -cover / -race")
	}
	data := readTestdata(t, "infozip-deflate.zip")
	a, err := Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"text.txt", "rand.bin"} {
		i := -1
		for k, e := range a.Entries() {
			if e.Name == name {
				i = k
			}
		}
		n := testing.AllocsPerRun(50, func() {
			rc, err := a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
		})
		if n > 2 {
			t.Errorf("%s: %v allocations per Open+read", name, n)
		}
		t.Logf("%s: %v allocations per Open+read", name, n)
	}
	// The forward Reader: a whole archive allocates the Reader, and per
	// entry its file struct and name.
	n := testing.AllocsPerRun(20, func() {
		z, _ := NewReader(bytes.NewReader(data), nil)
		for {
			if _, err := z.Next(); err != nil {
				break
			}
			io.Copy(io.Discard, z)
		}
		z.Close()
	})
	if entries := len(a.Entries()); n > float64(3*entries+3) {
		t.Errorf("Reader: %v allocations for %d entries", n, entries)
	}
}

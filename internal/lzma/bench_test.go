package lzma

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// benchStream is the packed stream of a solid 7z archive of the mixed-200
// workload: 7zz makes one folder whose packed data starts right after the
// 32-byte signature header; what follows it (the packed header) is never
// reached by a decoder that stops at the end of the stream.
type benchStream struct {
	packed []byte
	size   int64
}

var benchStreams sync.Map // name -> *benchStream

func loadBench(b *testing.B, name string, args ...string) *benchStream {
	b.Helper()
	if s, ok := benchStreams.Load(name); ok {
		return s.(*benchStream)
	}
	path := testutil.MixedArchive(b, name, "7zz", args...)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if len(data) < 32 || string(data[:6]) != "7z\xbc\xaf\x27\x1c" {
		b.Fatalf("%s: not a 7z archive", path)
	}
	next := binary.LittleEndian.Uint64(data[12:20])
	if next > uint64(len(data)-32) {
		b.Fatalf("%s: bad next header offset", path)
	}
	s := &benchStream{packed: data[32 : 32+next], size: testutil.MixedTotalSize}
	benchStreams.Store(name, s)
	return s
}

// checkMixedOutput verifies decoded output against the workload sums.
func checkMixedOutput(b *testing.B, decode func(w io.Writer) error) {
	b.Helper()
	var out [testutil.MixedFiles]bytes.Buffer
	w := &splitWriter{parts: out[:], size: testutil.MixedFileSize}
	if err := decode(w); err != nil {
		b.Fatal(err)
	}
	for i := range out {
		sum := sha256.Sum256(out[i].Bytes())
		if hex.EncodeToString(sum[:]) != testutil.MixedSHA256[i] {
			b.Fatalf("decoded mixed-%d.bin has the wrong sha256", i)
		}
	}
}

// splitWriter cuts a stream into parts of size bytes.
type splitWriter struct {
	parts []bytes.Buffer
	size  int
	i     int
}

func (s *splitWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.i >= len(s.parts) {
			return 0, io.ErrShortWrite
		}
		k := min(len(p), s.size-s.parts[s.i].Len())
		s.parts[s.i].Write(p[:k])
		p = p[k:]
		if s.parts[s.i].Len() == s.size {
			s.i++
		}
	}
	return n, nil
}

var verified sync.Map

// BenchmarkDecode decodes the mixed-200 workload compressed by 7zz with
// LZMA2 and LZMA (-mx5 -md8m) with this package. The comparison with
// ulikunitz/xz is in the bench module (BenchmarkLZMA).
func BenchmarkDecode(b *testing.B) {
	cases := []struct {
		name, file, method string
	}{
		{"lzma2", "lzma-bench-lzma2.7z", "lzma2"},
		{"lzma", "lzma-bench-lzma.7z", "lzma"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := loadBench(b, c.file, "a", "-t7z", "-m0="+c.method, "-mx5", "-mmt1", "-md8m", "{out}")
			props := Props{LC: 3, LP: 0, PB: 2, DictSize: 8 << 20} // 7-Zip's -mx5 LZMA defaults
			var br bytes.Reader
			ours := func(w io.Writer) error {
				br.Reset(s.packed)
				if c.method == "lzma2" {
					z, err := NewReader2(&br, 8<<20, s.size)
					if err != nil {
						return err
					}
					_, err = z.WriteTo(w)
					z.Close()
					return err
				}
				z, err := NewReader(&br, props, s.size)
				if err != nil {
					return err
				}
				_, err = z.WriteTo(w)
				z.Close()
				return err
			}
			if _, done := verified.LoadOrStore(c.name, true); !done {
				checkMixedOutput(b, ours)
			}
			b.Run("unarc", func(b *testing.B) {
				b.SetBytes(s.size)
				b.ReportAllocs()
				var z1 *Reader
				var z2 *Reader2
				var err error
				if c.method == "lzma2" {
					z2, err = NewReader2(bytes.NewReader(nil), 8<<20, s.size)
				} else {
					z1, err = NewReader(bytes.NewReader(nil), props, s.size)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				cpu := testutil.StartCPU()
				for range b.N {
					br.Reset(s.packed)
					var n int64
					if z2 != nil {
						err = z2.Reset(&br, 8<<20, s.size)
						if err == nil {
							n, err = z2.WriteTo(io.Discard)
						}
					} else {
						err = z1.Reset(&br, props, s.size)
						if err == nil {
							n, err = z1.WriteTo(io.Discard)
						}
					}
					if err != nil || n != s.size {
						b.Fatalf("decoded %d bytes: %v", n, err)
					}
				}
				cpu.Report(b, s.size)
			})
		})
	}
}

package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"testing"

	xlzma "github.com/ulikunitz/xz/lzma"

	"github.com/go-unarc/unarc/internal/lzma"
	"github.com/go-unarc/unarc/internal/testutil"
)

// packed7z returns the packed stream of a single-folder 7z archive: 7zz
// writes it right after the 32-byte start header, and the (packed) header
// after it is never reached by a decoder that stops at the stream's end.
func packed7z(tb testing.TB, data []byte) []byte {
	tb.Helper()
	if len(data) < 32 || string(data[:6]) != "7z\xbc\xaf\x27\x1c" {
		tb.Fatal("not a 7z archive")
	}
	next := binary.LittleEndian.Uint64(data[12:20])
	if next > uint64(len(data)-32) {
		tb.Fatal("bad next header offset")
	}
	return data[32 : 32+next]
}

// alone prefixes a raw LZMA stream with the 13-byte .lzma header.
func alone(p lzma.Props, size int64, raw []byte) []byte {
	h := p.Encode()
	out := make([]byte, 13, 13+len(raw))
	copy(out, h[:])
	binary.LittleEndian.PutUint64(out[5:], uint64(size))
	return append(out, raw...)
}

// BenchmarkLZMA decodes the mixed-200 workload compressed by 7zz (LZMA2
// and LZMA, -mx5 -md8m, one solid folder) with unarc's lzma package and
// with ulikunitz/xz. The unarc output is checked once against the
// workload's sums.
func BenchmarkLZMA(b *testing.B) {
	for _, method := range []string{"lzma2", "lzma"} {
		b.Run(method, func(b *testing.B) {
			// The same cache names as the lzma package's BenchmarkDecode.
			path := testutil.MixedArchive(b, "lzma-bench-"+method+".7z", "7zz", "a", "-t7z", "-m0="+method, "-mx5", "-mmt1", "-md8m", "{out}")
			packed := packed7z(b, loadFile(b, path))
			const size = testutil.MixedTotalSize
			props := lzma.Props{LC: 3, LP: 0, PB: 2, DictSize: 8 << 20} // 7-Zip's -mx5 defaults
			var br bytes.Reader
			var z1 *lzma.Reader
			var z2 *lzma.Reader2
			var err error
			if method == "lzma2" {
				z2, err = lzma.NewReader2(&br, 8<<20, size)
			} else {
				z1, err = lzma.NewReader(&br, props, size)
			}
			if err != nil {
				b.Fatal(err)
			}
			ours := func(w io.Writer) (int64, error) {
				br.Reset(packed)
				if z2 != nil {
					if err := z2.Reset(&br, 8<<20, size); err != nil {
						return 0, err
					}
					return z2.WriteTo(w)
				}
				if err := z1.Reset(&br, props, size); err != nil {
					return 0, err
				}
				return z1.WriteTo(w)
			}
			checkMixed(b, ours)
			b.Run("unarc", func(b *testing.B) {
				run(b, size, func(b *testing.B) int64 {
					n, err := ours(io.Discard)
					if err != nil {
						b.Fatal(err)
					}
					return n
				})
			})
			b.Run("ulikunitz", func(b *testing.B) {
				run(b, size, func(b *testing.B) int64 {
					br.Reset(packed)
					var r io.Reader
					var err error
					if method == "lzma2" {
						r, err = xlzma.Reader2Config{DictCap: 8 << 20}.NewReader2(&br)
					} else {
						hdr := alone(props, size, nil)
						r, err = xlzma.ReaderConfig{DictCap: 8 << 20}.NewReader(io.MultiReader(bytes.NewReader(hdr), &br))
					}
					if err != nil {
						b.Fatal(err)
					}
					n, err := io.Copy(io.Discard, io.LimitReader(r, size))
					if err != nil {
						b.Fatal(err)
					}
					return n
				})
			})
		})
	}
}

// checkMixed decodes once and compares each 50 MiB part with the
// workload's published sha256.
func checkMixed(b *testing.B, decode func(io.Writer) (int64, error)) {
	b.Helper()
	h := sha256.New()
	w := &partHasher{h: h, size: testutil.MixedFileSize, b: b}
	if _, err := decode(w); err != nil {
		b.Fatal(err)
	}
	if w.part != testutil.MixedFiles || w.n != 0 {
		b.Fatalf("decoded %d whole parts and %d bytes", w.part, w.n)
	}
}

// partHasher hashes a stream in parts of size bytes and checks part i
// against testutil.MixedSHA256[i] as it completes.
type partHasher struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
		Reset()
	}
	size, n, part int
	b             *testing.B
}

func (p *partHasher) Write(d []byte) (int, error) {
	total := len(d)
	for len(d) > 0 {
		if p.part >= testutil.MixedFiles {
			return 0, io.ErrShortWrite
		}
		k := min(len(d), p.size-p.n)
		p.h.Write(d[:k])
		p.n += k
		d = d[k:]
		if p.n == p.size {
			if got := hex.EncodeToString(p.h.Sum(nil)); got != testutil.MixedSHA256[p.part] {
				p.b.Fatalf("decoded mixed-%d.bin has sha256 %s", p.part, got)
			}
			p.h.Reset()
			p.n = 0
			p.part++
		}
	}
	return total, nil
}

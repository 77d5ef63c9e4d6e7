package deflate

import (
	"bytes"
	"encoding/binary"
	"github.com/go-unarc/unarc/internal/testutil"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// zipInputs are the files inside testdata/deflate/*.zip (see make.sh).
// far.bin has repeats at distances above 32768 and 49152 (Deflate64
// distance codes 30 and 31) and a long zero run.
func zipInputs() map[string][]byte {
	letters := func(n int, seed uint64) []byte {
		r := rand.New(rand.NewPCG(seed, 2))
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(r.IntN(4))
		}
		return b
	}
	s, r := letters(33000, 1), letters(49500, 2)
	var far []byte
	far = append(far, s...)
	far = append(far, s...)
	far = append(far, r...)
	far = append(far, r...)
	far = append(far, make([]byte, 200_000)...)
	far = append(far, s[:5000]...)
	return map[string][]byte{
		"text.txt":  textData(60_000),
		"far.bin":   far,
		"small.txt": []byte("hello hello hello, Deflate64\n"),
	}
}

// TestGenerateInputs writes zipInputs to $UNARC_DEFLATE_GEN for make.sh.
func TestGenerateInputs(t *testing.T) {
	dir := os.Getenv("UNARC_DEFLATE_GEN")
	if dir == "" {
		t.Skip("UNARC_DEFLATE_GEN not set (used by testdata/deflate/make.sh)")
	}
	for name, data := range zipInputs() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// zipEntry is one local file of a zip, with its raw compressed stream.
type zipEntry struct {
	name   string
	method uint16
	crc    uint32
	size   int
	raw    []byte
}

// zipEntries parses local file headers (APPNOTE 4.3.7): signature, version,
// flags, method, time, date, crc32, compressed size, size, name length,
// extra length, then name, extra and the data. The test zips carry sizes in
// the local header (no data descriptors).
func zipEntries(tb testutil.TB, b []byte) []zipEntry {
	tb.Helper()
	var es []zipEntry
	for len(b) >= 30 && binary.LittleEndian.Uint32(b) == 0x04034b50 {
		flags := binary.LittleEndian.Uint16(b[6:])
		if flags&8 != 0 {
			tb.Fatal("zip uses a data descriptor")
		}
		e := zipEntry{
			method: binary.LittleEndian.Uint16(b[8:]),
			crc:    binary.LittleEndian.Uint32(b[14:]),
			size:   int(binary.LittleEndian.Uint32(b[22:])),
		}
		csize := int(binary.LittleEndian.Uint32(b[18:]))
		nlen := int(binary.LittleEndian.Uint16(b[26:]))
		xlen := int(binary.LittleEndian.Uint16(b[28:]))
		e.name = string(b[30 : 30+nlen])
		start := 30 + nlen + xlen
		e.raw = b[start : start+csize]
		es = append(es, e)
		b = b[start+csize:]
	}
	if len(es) == 0 {
		tb.Fatal("no zip entries")
	}
	return es
}

func readZip(tb testutil.TB, name string) []zipEntry {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "deflate", name))
	if err != nil {
		tb.Fatal(err)
	}
	return zipEntries(tb, b)
}

var testZips = []string{"d64-7zz-mx9.zip", "d64-7zz-mx1.zip", "deflate-7zz-mx9.zip"}

// TestZips decodes the 7-Zip made Deflate64 and Deflate entries from every
// source kind, through Read and WriteTo, and checks content, CRC and the
// position after the stream.
func TestZips(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	want := zipInputs()
	for _, zname := range testZips {
		for _, e := range readZip(t, zname) {
			d64 := e.method == 9
			if e.method == 0 {
				continue // stored (7-Zip stores what does not shrink)
			}
			if !d64 && e.method != 8 {
				t.Fatalf("%s %s: method %d", zname, e.name, e.method)
			}
			if zname == "d64-7zz-mx9.zip" && e.name == "far.bin" {
				// The stream must use what Deflate lacks (distances past
				// 32 KiB), or it would not test Deflate64.
				got, err := io.ReadAll(NewReader(bytes.NewReader(e.raw)))
				if err == nil && bytes.Equal(got, want[e.name]) {
					t.Errorf("%s %s decodes as plain Deflate", zname, e.name)
				}
			}
			full := append(bytes.Clone(e.raw), trailer...)
			for _, src := range sources {
				for _, path := range []string{"Read", "WriteTo"} {
					r, rest := src.make(full)
					z := NewReader(nil)
					z.Reset(r, d64)
					var out bytes.Buffer
					var err error
					if path == "Read" {
						_, err = io.CopyBuffer(struct{ io.Writer }{&out}, struct{ io.Reader }{z}, make([]byte, 777))
					} else {
						_, err = z.WriteTo(&out)
					}
					if err != nil {
						t.Fatalf("%s %s %s %s: %v", zname, e.name, src.name, path, err)
					}
					if !bytes.Equal(out.Bytes(), want[e.name]) || crc32.ChecksumIEEE(out.Bytes()) != e.crc || out.Len() != e.size {
						t.Fatalf("%s %s %s %s: wrong output", zname, e.name, src.name, path)
					}
					if got := rest(z); !bytes.Equal(got, trailer) {
						t.Fatalf("%s %s %s %s: source left at %q", zname, e.name, src.name, path, got)
					}
					z.Close()
				}
			}
		}
	}
}

// TestZipsTruncated cuts the Deflate64 streams at many points.
func TestZipsTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	z := NewReader(nil)
	for _, e := range readZip(t, "d64-7zz-mx9.zip") {
		step := max(1, len(e.raw)/300)
		for n := 0; n < len(e.raw); n += step {
			for _, src := range sources {
				r, _ := src.make(e.raw[:n])
				z.Reset(r, true)
				if _, err := io.Copy(io.Discard, z); !isTruncated(err) {
					t.Fatalf("%s prefix %d via %s: err = %v", e.name, n, src.name, err)
				}
			}
		}
	}
}

// bitWriter builds hand-made streams, LSB first (RFC 1951 section 3.1.1).
type bitWriter struct {
	b     []byte
	acc   uint64
	nbits uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman code MSB first.
func (w *bitWriter) code(c uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		w.bits(c>>uint(i)&1, 1)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nbits > 0 {
		w.b = append(w.b, byte(w.acc))
	}
	return w.b
}

// fixedLitCode writes literal/length symbol s with the fixed code.
func (w *bitWriter) fixedLit(s int) {
	switch {
	case s < 144:
		w.code(uint64(0x30+s), 8)
	case s < 256:
		w.code(uint64(0x190+s-144), 9)
	case s < 280:
		w.code(uint64(s-256), 7)
	default:
		w.code(uint64(0xC0+s-280), 8)
	}
}

// TestDeflate64LongMatch decodes hand-built fixed-Huffman Deflate64 blocks
// using length symbol 285 (3 + 16 extra bits, up to 65538) and distance
// symbols 30 and 31, and checks that the same bits are corrupt as Deflate.
func TestDeflate64LongMatch(t *testing.T) {
	var w bitWriter
	w.bits(1, 1) // final
	w.bits(1, 2) // fixed Huffman
	var want []byte
	for i := range 50000 {
		c := byte('a' + i%7 + i/7%3)
		w.fixedLit(int(c))
		want = append(want, c)
	}
	match := func(length, dist int) {
		w.fixedLit(285)
		w.bits(uint64(length-3), 16)
		var dcode, base int
		for dcode = 31; int(distBase[dcode]) > dist; dcode-- {
		}
		base = int(distBase[dcode])
		w.code(uint64(dcode), 5)
		extra := 0
		if dcode >= 4 {
			extra = dcode/2 - 1
		}
		w.bits(uint64(dist-base), uint(extra))
		for range length {
			want = append(want, want[len(want)-dist])
		}
	}
	match(65538, 1)
	match(65538, 49999)
	match(40000, 33000)
	match(3, 60000)
	match(70, 65536)
	w.fixedLit(256)
	stream := w.bytes()

	for _, src := range sources {
		r, _ := src.make(stream)
		z := NewReader64(r)
		got, err := io.ReadAll(z)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: err %v, output equal %v (%d/%d bytes)", src.name, err, bytes.Equal(got, want), len(got), len(want))
		}
	}
	if _, err := io.ReadAll(NewReader(bytes.NewReader(stream))); !isCorrupt(err) {
		t.Fatalf("as Deflate: err = %v, want corrupt", err)
	}
}

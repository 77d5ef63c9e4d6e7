package xz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

var testdir = filepath.Join("..", "..", "testdata", "xz")

func readTestFile(tb testutil.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(testdir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// expected is what a committed file decodes to (see testdata/xz/make.sh).
func expected(tb testutil.TB, name string) []byte {
	in := readTestFile(tb, "input.bin")
	switch name {
	case "empty.xz":
		return nil
	case "small-blocks.xz", "small-crc64.xz":
		return in[len(in)-3000:]
	case "concat-padded.xz":
		return append(append([]byte(nil), in...), in...)
	}
	return in
}

// decodeAll decodes b three ways (Read with small buffers over a
// one-byte-at-a-time source, io.ReadAll, WriteTo) and returns the result
// of each, failing t when they differ.
func decodeAll(t *testing.T, b []byte, opts ...Option) ([]byte, error) {
	t.Helper()
	var outs [3][]byte
	var errsOut [3]error
	for i := range outs {
		var src io.Reader = bytes.NewReader(b)
		if i == 0 {
			src = iotest.OneByteReader(src)
		}
		z, err := NewReader(src, opts...)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		switch i {
		case 0:
			p := make([]byte, 7)
			for {
				n, err := z.Read(p)
				buf.Write(p[:n])
				if err != nil {
					if err != io.EOF {
						errsOut[i] = err
					}
					break
				}
			}
		case 1:
			out, err := io.ReadAll(z)
			buf.Write(out)
			errsOut[i] = err
		case 2:
			_, errsOut[i] = z.WriteTo(&buf)
		}
		z.Close()
		outs[i] = buf.Bytes()
	}
	for i := 1; i < 3; i++ {
		if (errsOut[i] == nil) != (errsOut[0] == nil) {
			t.Fatalf("decode way %d: error %v, way 0: %v", i, errsOut[i], errsOut[0])
		}
		if errsOut[0] == nil && !bytes.Equal(outs[i], outs[0]) {
			t.Fatalf("decode way %d gives %d bytes, way 0 %d", i, len(outs[i]), len(outs[0]))
		}
	}
	return outs[1], errsOut[1]
}

// TestFiles decodes every committed file (every check type, filter, block
// layout, concatenation and the empty stream) to what make.sh compressed.
func TestFiles(t *testing.T) {
	for _, path := range testutil.Glob(t, filepath.Join(testdir, "*.xz")) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			got, err := decodeAll(t, readTestFile(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if want := expected(t, name); !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSingleStream: SingleStream stops at the first footer, whatever
// follows; the default reads on and rejects what is not padding or a
// stream.
func TestSingleStream(t *testing.T) {
	in := readTestFile(t, "input.bin")
	b := readTestFile(t, "concat-padded.xz")
	got, err := decodeAll(t, b, SingleStream())
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("single stream: %d bytes, %v; want %d", len(got), err, len(in))
	}
	one := readTestFile(t, "check-crc32.xz")
	garbage := append(append([]byte(nil), one...), "junk"...)
	if got, err := decodeAll(t, garbage, SingleStream()); err != nil || !bytes.Equal(got, in) {
		t.Fatalf("single stream with trailing junk: %d bytes, %v", len(got), err)
	}
	if _, err := decodeAll(t, garbage); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("trailing junk: %v, want ErrCorrupt", err)
	}
	for _, pad := range []int{1, 2, 3, 5} {
		padded := append(append([]byte(nil), one...), make([]byte, pad)...)
		if _, err := decodeAll(t, padded); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("%d bytes of padding: %v, want ErrCorrupt", pad, err)
		}
	}
	padded := append(append([]byte(nil), one...), make([]byte, 12)...)
	if got, err := decodeAll(t, padded); err != nil || !bytes.Equal(got, in) {
		t.Fatalf("12 bytes of padding: %d bytes, %v", len(got), err)
	}
	// A second stream after padding that is not a stream header.
	bad := append(append(append([]byte(nil), one...), 0, 0, 0, 0), one...)
	bad[len(one)+4] ^= 0xFF
	if _, err := decodeAll(t, bad); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("bad second stream: %v, want ErrCorrupt", err)
	}
}

// TestNotXZ: input that is not .xz at all is ErrFormat; none is truncated.
func TestNotXZ(t *testing.T) {
	if _, err := decodeAll(t, []byte("PK\x03\x04 this is not xz")); !errors.Is(err, errs.ErrFormat) {
		t.Fatalf("not xz: %v, want ErrFormat", err)
	}
	if _, err := decodeAll(t, nil); !errors.Is(err, errs.ErrTruncated) {
		t.Fatalf("empty input: %v, want ErrTruncated", err)
	}
}

// TestOptions: invalid option values fail NewReader and Reset.
func TestOptions(t *testing.T) {
	b := readTestFile(t, "check-crc32.xz")
	if _, err := NewReader(bytes.NewReader(b), MaxMemory(-1)); err == nil {
		t.Fatal("MaxMemory(-1) accepted")
	}
	z, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := z.Reset(bytes.NewReader(b), MaxMemory(-5)); err == nil {
		t.Fatal("Reset with MaxMemory(-5) accepted")
	}
	if _, err := io.ReadAll(z); err == nil {
		t.Fatal("read after a failed Reset succeeded")
	}
	if err := z.Reset(bytes.NewReader(b), Option{}); err == nil {
		t.Fatal("the zero Option accepted")
	}
}

// layout locates the parts of a one-stream file from its footer.
type layout struct {
	index, footer int // offsets
	csize         int
}

func locate(t *testing.T, b []byte) layout {
	t.Helper()
	footer := len(b) - headerSize
	back := (int(binary.LittleEndian.Uint32(b[footer+4:])) + 1) * 4
	csize := map[byte]int{0: 0, 1: 4, 4: 8, 10: 32}[b[7]]
	return layout{index: footer - back, footer: footer, csize: csize}
}

// recrcStreamFlags rewrites the stream header's and footer's CRC32 after a
// change to the flags.
func recrcStreamFlags(b []byte) {
	binary.LittleEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[6:8]))
	f := len(b) - headerSize
	binary.LittleEndian.PutUint32(b[f:], crc32.ChecksumIEEE(b[f+4:f+10]))
}

// recrcBlock rewrites the CRC32 of the block header at off.
func recrcBlock(b []byte, off int) {
	size := (int(b[off]) + 1) * 4
	binary.LittleEndian.PutUint32(b[off+size-4:], crc32.ChecksumIEEE(b[off:off+size-4]))
}

// TestDamage: every kind of damage gets its error class.
func TestDamage(t *testing.T) {
	type tc struct {
		name string
		file string
		edit func(b []byte, l layout)
		want error
	}
	cases := []tc{
		{"header magic", "check-crc32.xz", func(b []byte, l layout) { b[1] ^= 1 }, errs.ErrFormat},
		{"header flags CRC", "check-crc32.xz", func(b []byte, l layout) { b[9] ^= 1 }, errs.ErrCorrupt},
		{"header flags", "check-crc32.xz", func(b []byte, l layout) { b[7] = 4 }, errs.ErrCorrupt},
		{"reserved stream flags", "check-crc32.xz", func(b []byte, l layout) { b[6] = 1; recrcStreamFlags(b) }, errs.ErrUnsupported},
		{"check type 2", "check-crc32.xz", func(b []byte, l layout) { b[7] = 2; recrcStreamFlags(b) }, errs.ErrUnsupported},
		{"check type 0xF", "check-crc32.xz", func(b []byte, l layout) { b[7] = 0xF; recrcStreamFlags(b) }, errs.ErrUnsupported},
		{"block header CRC", "check-crc32.xz", func(b []byte, l layout) { b[12+2] ^= 1 }, errs.ErrCorrupt},
		{"block header size", "check-crc32.xz", func(b []byte, l layout) { b[12]++ }, errs.ErrCorrupt},
		{"block reserved flags", "check-crc32.xz", func(b []byte, l layout) { b[13] |= 0x10; recrcBlock(b, 12) }, errs.ErrUnsupported},
		{"filter ID", "check-crc32.xz", func(b []byte, l layout) { b[14] = 0x42; recrcBlock(b, 12) }, errs.ErrUnsupported},
		{"LZMA2 props reserved", "check-crc32.xz", func(b []byte, l layout) { b[16] |= 0x40; recrcBlock(b, 12) }, errs.ErrUnsupported},
		{"LZMA2 dict byte", "check-crc32.xz", func(b []byte, l layout) { b[16] = 41; recrcBlock(b, 12) }, errs.ErrCorrupt},
		{"block header padding", "check-crc32.xz", func(b []byte, l layout) { b[17] = 1; recrcBlock(b, 12) }, errs.ErrUnsupported},
		{"BCJ last", "filter-x86.xz", func(b []byte, l layout) { b[13] &^= 3; recrcBlock(b, 12) }, errs.ErrUnsupported},
		{"CRC32 check", "check-crc32.xz", func(b []byte, l layout) { b[l.index-1] ^= 1 }, errs.ErrChecksum},
		{"CRC64 check", "check-crc64.xz", func(b []byte, l layout) { b[l.index-8] ^= 0x80 }, errs.ErrChecksum},
		{"SHA-256 check", "check-sha256.xz", func(b []byte, l layout) { b[l.index-17] ^= 4 }, errs.ErrChecksum},
		{"block padding", "check-none.xz", func(b []byte, l layout) {
			if b[l.index-1] != 0 {
				panic("check-none.xz: no block padding to damage; remake with other sizes")
			}
			b[l.index-1] = 1
		}, errs.ErrCorrupt},
		{"index indicator", "check-crc32.xz", func(b []byte, l layout) { b[l.index] = 1 }, errs.ErrCorrupt},
		{"index count", "check-crc32.xz", func(b []byte, l layout) { b[l.index+1] = 2 }, errs.ErrCorrupt},
		{"index record", "check-crc32.xz", func(b []byte, l layout) { b[l.index+2] ^= 4 }, errs.ErrCorrupt},
		{"index CRC", "check-crc32.xz", func(b []byte, l layout) { b[l.footer-1] ^= 1 }, errs.ErrCorrupt},
		{"footer CRC", "check-crc32.xz", func(b []byte, l layout) { b[l.footer] ^= 1 }, errs.ErrCorrupt},
		{"footer backward size", "check-crc32.xz", func(b []byte, l layout) {
			b[l.footer+4]++
			binary.LittleEndian.PutUint32(b[l.footer:], crc32.ChecksumIEEE(b[l.footer+4:l.footer+10]))
		}, errs.ErrCorrupt},
		{"footer flags", "check-crc32.xz", func(b []byte, l layout) {
			b[l.footer+9] = 4
			binary.LittleEndian.PutUint32(b[l.footer:], crc32.ChecksumIEEE(b[l.footer+4:l.footer+10]))
		}, errs.ErrCorrupt},
		{"footer magic", "check-crc32.xz", func(b []byte, l layout) { b[len(b)-1] = 'X' }, errs.ErrCorrupt},
		{"declared uncompressed size", "blocks-sized.xz", func(b []byte, l layout) {
			// Block flags 0xC0: compressed size, then uncompressed size 7000 (0xD8 0x36).
			h := b[12 : 12+(int(b[12])+1)*4]
			i := bytes.Index(h, []byte{0xD8, 0x36})
			if i < 0 {
				panic("blocks-sized.xz: no uncompressed size 7000 in the first block header")
			}
			h[i]--
			recrcBlock(b, 12)
		}, errs.ErrCorrupt},
		{"declared compressed size", "blocks-sized.xz", func(b []byte, l layout) {
			b[14]-- // the first byte of the compressed size
			recrcBlock(b, 12)
		}, errs.ErrCorrupt},
		{"LZMA2 data", "check-crc32.xz", func(b []byte, l layout) { b[12+12+100] ^= 0x55 }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(readTestFile(t, c.file))
			c.edit(b, locate(t, b))
			_, err := decodeAll(t, b)
			if err == nil {
				t.Fatal("damage not detected")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if c.want == nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrChecksum) {
				t.Fatalf("got %v, want ErrCorrupt or ErrChecksum", err)
			}
			n := 0
			for _, s := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum, errs.ErrPasswordRequired, errs.ErrPassword, errs.ErrUnsupported, errs.ErrInsecurePath, errs.ErrLimit} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%v wraps %d sentinels", err, n)
			}
			if strings.Contains(err.Error(), "unarc:") {
				t.Fatalf("%v carries the root prefix", err)
			}
		})
	}
}

// TestTruncated: every proper prefix of a one-stream file is ErrTruncated
// (all prefixes of the small files; of the larger ones every 61st, which
// still lands in each header, block, check, index and footer).
func TestTruncated(t *testing.T) {
	for _, name := range []string{"small-blocks.xz", "small-crc64.xz", "empty.xz", "check-sha256.xz", "filter-chain3.xz", "blocks-sized.xz", "blocks.xz"} {
		b := readTestFile(t, name)
		step := 1
		if len(b) > 4096 {
			step = 61
		}
		if testing.Short() {
			step = step*4 + 1
		}
		z := new(Reader)
		for n := 0; n < len(b); n += step {
			if err := z.Reset(bytes.NewReader(b[:n])); err != nil {
				t.Fatal(err)
			}
			_, err := io.Copy(io.Discard, z)
			if !errors.Is(err, errs.ErrTruncated) {
				t.Fatalf("%s cut at %d of %d: %v, want ErrTruncated", name, n, len(b), err)
			}
		}
		z.Close()
	}
}

// TestMaxMemory: a block whose dictionary exceeds MaxMemory fails with
// ErrLimit naming the figures, before its window is allocated; a limit
// that covers it passes.
func TestMaxMemory(t *testing.T) {
	b := readTestFile(t, "level9e.xz") // 64 MiB dictionary, 16 KiB of data
	_, err := decodeAll(t, b, MaxMemory(32<<20))
	if !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxMemory (33554432)") || !strings.Contains(err.Error(), "67108864") {
		t.Fatalf("got %v, want ErrLimit naming MaxMemory and the dictionary", err)
	}
	if _, err := decodeAll(t, b, MaxMemory(64<<20)); err != nil {
		t.Fatalf("64 MiB limit: %v", err)
	}
	// Filters count: filter-chain3 has three filters and a 8 MiB dictionary.
	fb := readTestFile(t, "filter-chain3.xz")
	if _, err := decodeAll(t, fb, MaxMemory(8<<20+3*FilterBufferSize-1)); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("one byte short for the filters: %v, want ErrLimit", err)
	}
	if _, err := decodeAll(t, fb, MaxMemory(8<<20+3*FilterBufferSize)); err != nil {
		t.Fatalf("exact limit: %v", err)
	}
	// The window grows with the data: 16 KiB under a 64 MiB dictionary
	// allocates far less than the dictionary.
	var m0, m1 MemStats
	readMem(&m0)
	z, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, z); err != nil {
		t.Fatal(err)
	}
	readMem(&m1)
	z.Close()
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 4<<20 {
		t.Fatalf("a 16 KiB block under a 64 MiB dictionary allocated %d bytes", got)
	}
}

// TestAllocs: a warm reader decodes a stream (several blocks, a filter
// chain, a SHA-256 check, two streams) with no allocation, through
// WriteTo and through Read.
func TestAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	buf := make([]byte, 4096)
	for _, name := range []string{"blocks.xz", "blocks-sized.xz", "filter-chain3.xz", "concat-padded.xz", "check-sha256.xz"} {
		b := readTestFile(t, name)
		src := bytes.NewReader(b)
		z := new(Reader)
		run := func(useRead bool) {
			src.Reset(b)
			if err := z.Reset(src); err != nil {
				t.Fatal(err)
			}
			var err error
			if useRead {
				for err == nil {
					_, err = z.Read(buf)
				}
				if err == io.EOF {
					err = nil
				}
			} else {
				_, err = z.WriteTo(io.Discard)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, useRead := range []bool{false, true} {
			run(useRead)
			if a := testing.AllocsPerRun(20, func() { run(useRead) }); a != 0 {
				t.Errorf("%s (Read %v): %v allocations per stream", name, useRead, a)
			}
		}
		z.Close()
	}
}

// TestMaxDictAndSize: MaxDict bounds the window, and UncompressedSize
// clamps the window counted (a 64 MiB dictionary over 16 KiB of data
// passes a 1 MiB limit when the size is known) and must match the data:
// more is ErrCorrupt, less ErrTruncated, as crc32x has it.
func TestMaxDictAndSize(t *testing.T) {
	b := readTestFile(t, "level9e.xz") // 64 MiB dictionary
	n := int64(len(readTestFile(t, "input.bin")))
	if _, err := decodeAll(t, b, MaxDict(1<<20)); !errors.Is(err, errs.ErrLimit) || !strings.Contains(err.Error(), "MaxDict (1048576)") {
		t.Fatalf("MaxDict: %v, want ErrLimit naming MaxDict", err)
	}
	if _, err := decodeAll(t, b, MaxDict(1<<20), MaxMemory(1<<20), UncompressedSize(n)); err != nil {
		t.Fatalf("known size under the limits: %v", err)
	}
	if _, err := decodeAll(t, b, MaxDict(1<<20), UncompressedSize(2<<20)); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("size above the limit: %v, want ErrLimit", err)
	}
	for _, size := range []int64{0, n - 1, n + 1} {
		want := errs.ErrCorrupt
		if size > n {
			want = errs.ErrTruncated
		}
		if _, err := decodeAll(t, b, UncompressedSize(size)); !errors.Is(err, want) {
			t.Fatalf("UncompressedSize(%d) for %d bytes: %v, want %v", size, n, err, want)
		}
	}
	// Across streams, and with filters (the WriteTo path through a buffer).
	for _, name := range []string{"concat-padded.xz", "filter-chain3.xz"} {
		b := readTestFile(t, name)
		n := int64(len(expected(t, name)))
		if _, err := decodeAll(t, b, UncompressedSize(n)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := decodeAll(t, b, UncompressedSize(n-1)); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("%s one byte short: %v", name, err)
		}
	}
	if _, err := NewReader(bytes.NewReader(b), MaxDict(-1)); err == nil {
		t.Fatal("MaxDict(-1) accepted")
	}
}

// TestClosed: a zero Reader and a closed one fail with ErrClosed instead
// of reading; Reset brings a closed one back.
func TestClosed(t *testing.T) {
	var z Reader
	if _, err := z.Read(make([]byte, 10)); !errors.Is(err, ErrClosed) {
		t.Fatalf("zero Reader: %v", err)
	}
	b := readTestFile(t, "check-crc32.xz")
	if err := z.Reset(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	z.Close()
	if _, err := z.WriteTo(io.Discard); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed Reader: %v", err)
	}
	if err := z.Reset(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(&z); err != nil || !bytes.Equal(got, expected(t, "check-crc32.xz")) {
		t.Fatalf("after Close and Reset: %d bytes, %v", len(got), err)
	}
	z.Close()
}

package lzma

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// stream is one row of testdata/lzma/streams.tsv (written by make.sh).
type stream struct {
	name, form string
	props      Props
	dict       int64
	size       int64
	sha        string
	data       []byte // the file
}

func loadStreams(t testutil.TB) []*stream {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "lzma")
	f, err := os.Open(filepath.Join(dir, "streams.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*stream
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 8 {
			t.Fatalf("bad streams.tsv row %q", sc.Text())
		}
		num := func(s string) int64 {
			if s == "-" {
				return -1
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		s := &stream{name: c[0], form: c[1], dict: num(c[5]), size: num(c[6]), sha: c[7]}
		s.props = Props{LC: int(num(c[2])), LP: int(num(c[3])), PB: int(num(c[4])), DictSize: uint32(s.dict)}
		if s.data, err = os.ReadFile(filepath.Join(dir, s.name)); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Fatal("no streams")
	}
	return out
}

// packed7z returns the packed stream of a single-folder 7z archive with
// plain headers: from the end of the 32-byte start header to the header.
func packed7z(t testutil.TB, b []byte) []byte {
	t.Helper()
	next := binary.LittleEndian.Uint64(b[12:20])
	if string(b[:6]) != "7z\xbc\xaf\x27\x1c" || next > uint64(len(b)-32) {
		t.Fatal("not a 7z archive")
	}
	return b[32 : 32+next]
}

// zipLZMA returns the data of the first entry of a ZIP file (APPNOTE
// 4.3.7 local header) and whether it has the end-marker flag.
func zipLZMA(t testutil.TB, b []byte) (data []byte, size int64, eos bool) {
	t.Helper()
	if binary.LittleEndian.Uint32(b) != 0x04034b50 || binary.LittleEndian.Uint16(b[8:]) != 14 {
		t.Fatal("not a ZIP LZMA entry")
	}
	flags := binary.LittleEndian.Uint16(b[6:])
	csize := int(binary.LittleEndian.Uint32(b[18:]))
	usize := int64(binary.LittleEndian.Uint32(b[22:]))
	start := 30 + int(binary.LittleEndian.Uint16(b[26:])) + int(binary.LittleEndian.Uint16(b[28:]))
	return b[start : start+csize], usize, flags&2 != 0
}

// opener returns the compressed input and a constructor for s, with size
// as the declared uncompressed size where the form has one.
func (s *stream) opener(t testutil.TB, opts ...Option) ([]byte, func(r io.Reader) (io.ReadCloser, error)) {
	switch s.form {
	case "lzma-alone":
		return s.data, func(r io.Reader) (io.ReadCloser, error) { return NewReaderLZMAHeader(r, opts...) }
	case "lzma2":
		return s.data, func(r io.Reader) (io.ReadCloser, error) { return NewReader2(r, s.dict, -1, opts...) }
	case "7z-lzma":
		return packed7z(t, s.data), func(r io.Reader) (io.ReadCloser, error) { return NewReader(r, s.props, s.size, opts...) }
	case "7z-lzma2":
		return packed7z(t, s.data), func(r io.Reader) (io.ReadCloser, error) { return NewReader2(r, s.dict, s.size, opts...) }
	case "zip-lzma":
		data, size, eos := zipLZMA(t, s.data)
		if eos {
			size = -1
		}
		hdr := s.data[:len(s.data)-len(data)]
		_ = hdr
		return data, func(r io.Reader) (io.ReadCloser, error) { return NewReaderZip(r, size, opts...) }
	}
	t.Fatalf("unknown form %q", s.form)
	return nil, nil
}

// TestStreams decodes every committed tool-made stream, byte for byte,
// through WriteTo and through small reads over trickling input.
func TestStreams(t *testing.T) {
	for _, s := range loadStreams(t) {
		t.Run(s.name, func(t *testing.T) {
			in, mk := s.opener(t)
			z, err := mk(bytes.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := z.(io.WriterTo).WriteTo(&out); err != nil {
				t.Fatal(err)
			}
			z.Close()
			sum := sha256.Sum256(out.Bytes())
			if int64(out.Len()) != s.size || hex.EncodeToString(sum[:]) != s.sha {
				t.Fatalf("decoded %d bytes with sha256 %x, want %d bytes %s", out.Len(), sum, s.size, s.sha)
			}
			readAllWays(t, s.name, out.Bytes(), mk, in)
		})
	}
}

// lzma2Chunks splits an LZMA2 stream into its chunks (without the end
// byte).
func lzma2Chunks(t testutil.TB, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 && b[0] != 0 {
		n := 3 + int(binary.BigEndian.Uint16(b[1:])) + 1
		if b[0] >= 0x80 {
			n = 5 + int(binary.BigEndian.Uint16(b[3:])) + 1
			if b[0] >= 0xC0 {
				n++
			}
		}
		if n > len(b) {
			t.Fatal("bad chunk")
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// TestLZMA2Spliced builds a stream holding every chunk kind from the
// chunks of the two tool-made streams: chunks2 (0xE0, 0x80), then chunks
// with its stored first chunk turned from 0x01 into 0x02 and its next
// chunk from new properties (0xC0, same properties) into a state reset
// (0xA0); with chunks itself (0x01, 0xC0) every kind is covered. Matches of that chunk reach back no further than the original
// stream had data, so the output is the two outputs concatenated.
func TestLZMA2Spliced(t *testing.T) {
	var a, b *stream
	for _, s := range loadStreams(t) {
		switch s.name {
		case "chunks.lzma2":
			b = s
		case "chunks2.lzma2":
			a = s
		}
	}
	want := decodeFull(t, a)
	want = append(want, decodeFull(t, b)...)
	var sp []byte
	for _, c := range lzma2Chunks(t, a.data) {
		sp = append(sp, c...)
	}
	bc := lzma2Chunks(t, b.data)
	if bc[0][0] != 0x01 || bc[1][0] < 0xC0 || bc[1][0] >= 0xE0 || bc[1][5] != a.data[5] {
		t.Fatalf("unexpected chunk layout of %s", b.name)
	}
	sp = append(sp, 0x02)
	sp = append(sp, bc[0][1:]...)
	sp = append(sp, bc[1][0]-0x20)
	sp = append(sp, bc[1][1:5]...)
	sp = append(sp, bc[1][6:]...)
	for _, c := range bc[2:] {
		sp = append(sp, c...)
	}
	sp = append(sp, 0)
	seen := map[byte]bool{}
	for _, c := range append(lzma2Chunks(t, sp), bc...) {
		k := c[0]
		if k >= 0x80 {
			k &= 0xE0
		}
		seen[k] = true
	}
	for _, k := range []byte{0x01, 0x02, 0x80, 0xA0, 0xC0, 0xE0} {
		if !seen[k] {
			t.Errorf("no chunk of kind %#x", k)
		}
	}
	readAllWays(t, "spliced", want, func(r io.Reader) (io.ReadCloser, error) {
		return NewReader2(r, 64<<10, -1)
	}, sp)
	readAllWays(t, "spliced-sized", want, func(r io.Reader) (io.ReadCloser, error) {
		return NewReader2(r, 64<<10, int64(len(want)))
	}, sp)
}

// decodeFull decodes s and checks its size and sum.
func decodeFull(t *testing.T, s *stream) []byte {
	t.Helper()
	in, mk := s.opener(t)
	z, err := mk(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != s.size || hex.EncodeToString(sum[:]) != s.sha {
		t.Fatalf("%s: wrong output", s.name)
	}
	return b
}

// TestTruncated checks that every prefix of a stream fails with an error
// matching io.ErrUnexpectedEOF and errs.ErrTruncated, never succeeding
// or panicking.
func TestTruncated(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, s := range loadStreams(t) {
		if s.size > 1<<20 || s.form == "zip-lzma" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			in, mk := s.opener(t)
			for n := 0; n < len(in); n += 1 + n/64 {
				z, err := mk(bytes.NewReader(in[:n]))
				if err == nil {
					_, err = z.(io.WriterTo).WriteTo(io.Discard)
					z.Close()
				}
				if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errs.ErrTruncated) {
					t.Fatalf("prefix %d of %d: err = %v, want truncation", n, len(in), err)
				}
			}
		})
	}
}

// TestPastSize declares a size one byte short: the decoder must report
// data past the declared size, not stop silently.
func TestPastSize(t *testing.T) {
	for _, s := range loadStreams(t) {
		var err error
		switch s.form {
		case "7z-lzma":
			var z *Reader
			z, err = NewReader(bytes.NewReader(packed7z(t, s.data)), s.props, s.size-1)
			if err == nil {
				_, err = z.WriteTo(io.Discard)
			}
		case "7z-lzma2":
			var z *Reader2
			z, err = NewReader2(bytes.NewReader(packed7z(t, s.data)), s.dict, s.size-1)
			if err == nil {
				_, err = z.WriteTo(io.Discard)
			}
		default:
			continue
		}
		if !errors.Is(err, ErrPastSize) || !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrPastSize", s.name, err)
		}
	}
}

// TestEndMarkerPolicy checks MarkerRequired and MarkerForbidden.
func TestEndMarkerPolicy(t *testing.T) {
	for _, s := range loadStreams(t) {
		var opt Option
		switch s.form {
		case "lzma-alone": // has a marker
			opt = EndMarker(MarkerForbidden)
		case "7z-lzma": // has none
			opt = EndMarker(MarkerRequired)
		default:
			continue
		}
		in, mk := s.opener(t, opt)
		z, err := mk(bytes.NewReader(in))
		if err == nil {
			_, err = z.(io.WriterTo).WriteTo(io.Discard)
		}
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: err = %v, want corrupt", s.name, err)
		}
	}
}

// TestLimit checks that windows above MaxDict fail with errs.ErrLimit
// before allocating, and that a huge declared dictionary allocates only
// what the data needs.
func TestLimit(t *testing.T) {
	var lz *stream
	for _, s := range loadStreams(t) {
		if s.name == "text.lzma" {
			lz = s
		}
	}
	huge := bytes.Clone(lz.data)
	binary.LittleEndian.PutUint32(huge[1:], 3<<29) // 1.5 GiB
	if _, err := NewReaderLZMAHeader(bytes.NewReader(huge), MaxDict(1<<30)); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("1.5 GiB dictionary under a 1 GiB limit: err = %v", err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	if _, err := NewReader2(bytes.NewReader(nil), 1<<32-1, -1, MaxDict(1<<20)); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("4 GiB LZMA2 dictionary under a 1 MiB limit: err = %v", err)
	}
	runtime.ReadMemStats(&m1)
	if d := m1.TotalAlloc - m0.TotalAlloc; d > 64<<10 {
		t.Errorf("refusing a window allocated %d bytes", d)
	}
	// Unknown size: the window grows with the data (40 KB).
	z, err := NewReaderLZMAHeader(bytes.NewReader(huge))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.WriteTo(io.Discard); err != nil {
		t.Fatal(err)
	}
	if c := cap(*z.w.p); c > 64<<10 {
		t.Errorf("window of %d bytes for a 40 KB stream with a 1.5 GiB dictionary", c)
	}
	// Known size: the window is the size.
	size := int64(binary.LittleEndian.Uint64(lz.data[5:13]))
	_ = size
	p, _ := DecodeProps(huge)
	z, err = NewReader(bytes.NewReader(huge[13:]), p, lz.size)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.WriteTo(io.Discard); err != nil {
		t.Fatal(err)
	}
	if c := cap(*z.w.p); c > 64<<10 {
		t.Errorf("window of %d bytes for a 40 KB stream of known size", c)
	}
}

// TestAllocs checks that decoding a stream with a warm reader allocates
// nothing, with Close and Reset between streams.
func TestAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	for _, s := range loadStreams(t) {
		if s.form != "7z-lzma2" && s.form != "7z-lzma" {
			continue
		}
		in := packed7z(t, s.data)
		var br bytes.Reader
		br.Reset(in)
		var z1 *Reader
		var z2 *Reader2
		var err error
		if s.form == "7z-lzma" {
			z1, err = NewReader(&br, s.props, s.size)
		} else {
			z2, err = NewReader2(&br, s.dict, s.size)
		}
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			br.Reset(in)
			var n int64
			if z1 != nil {
				err = z1.Reset(&br, s.props, s.size)
				n, err = z1.WriteTo(io.Discard)
				z1.Close()
			} else {
				err = z2.Reset(&br, s.dict, s.size)
				n, err = z2.WriteTo(io.Discard)
				z2.Close()
			}
			if err != nil || n != s.size {
				t.Fatalf("%s: %d bytes, %v", s.name, n, err)
			}
		}
		run()
		if a := testing.AllocsPerRun(5, run); a != 0 {
			t.Errorf("%s: %v allocations per stream", s.name, a)
		}
	}
}

// TestCorrupt flips bytes of each stream: decoding must end with a
// corrupt or truncated error or succeed, never panic or hang.
func TestCorrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	for _, s := range loadStreams(t) {
		in, mk := s.opener(t)
		for i := 0; i < len(in); i += 1 + len(in)/50 {
			bad := bytes.Clone(in)
			bad[i] ^= 0x55
			z, err := mk(bytes.NewReader(bad))
			if err == nil {
				_, err = z.(io.WriterTo).WriteTo(io.Discard)
				z.Close()
			}
			if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrLimit) {
				t.Fatalf("%s: byte %d: unexpected error %v", s.name, i, err)
			}
		}
	}
}

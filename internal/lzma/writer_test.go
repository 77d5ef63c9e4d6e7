package lzma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/testutil"
)

// encodeLZMA compresses data with a raw LZMA Writer and returns the
// stream and its properties.
func encodeLZMA(t testutil.TB, data []byte, opts ...WriterOption) ([]byte, Props) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.Props()
}

func encodeLZMA2(t testutil.TB, data []byte, opts ...WriterOption) ([]byte, byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.DictByte()
}

func decodeLZMA(t testutil.TB, packed []byte, p Props, size int64, opts ...Option) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(packed), p, size, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func decodeLZMA2(t testutil.TB, packed []byte, dictByte byte, size int64) []byte {
	t.Helper()
	d, err := DictSizeLZMA2(dictByte)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader2(bytes.NewReader(packed), d, size)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return out
}

func randomBytes(n int, seed byte) []byte {
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{seed}).Read(b)
	return b
}

// textBytes returns n bytes of English-like words.
func textBytes(n int, seed byte) []byte {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while archive encoders " +
		"compress every byte of text they are given into fewer bytes than before and back again")
	r := rand.New(rand.NewChaCha8([32]byte{seed}))
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		if r.IntN(12) == 0 {
			b = append(b, ".\n"...)
		} else {
			b = append(b, ' ')
		}
	}
	return b[:n]
}

// quick reports whether big inputs should shrink: -short under -race,
// where the encoder runs about ten times slower.
func quick() bool { return testing.Short() && testutil.RaceEnabled }

// skipRace skips a single-goroutine encoder test in the race pass: the
// detector finds nothing there that the normal run does not, and it
// multiplies their minutes of encoding tenfold (the CI race pass was
// dominated by them). The multi-threaded tests still run under it.
func skipRace(t *testing.T) {
	t.Helper()
	if testutil.RaceEnabled {
		t.Skip("single-goroutine encoder test: run without -race")
	}
}

// small options: a small dictionary keeps the tables small in tests.
var small = DictSize(1 << 16)

func checkBoth(t *testing.T, name string, data []byte, opts ...WriterOption) (int, int) {
	t.Helper()
	packed, p := encodeLZMA(t, data, opts...)
	if got := decodeLZMA(t, packed, p, int64(len(data))); !bytes.Equal(got, data) {
		t.Fatalf("%s: LZMA round trip differs at %d (got %d bytes, want %d)", name, diffAt(got, data), len(got), len(data))
	}
	packed2, db := encodeLZMA2(t, data, opts...)
	if got := decodeLZMA2(t, packed2, db, int64(len(data))); !bytes.Equal(got, data) {
		t.Fatalf("%s: LZMA2 round trip differs at %d (got %d bytes, want %d)", name, diffAt(got, data), len(got), len(data))
	}
	return len(packed), len(packed2)
}

func TestRoundTripInputs(t *testing.T) {
	skipRace(t)
	inputs := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one", []byte{'x'}},
		{"two", []byte("ab")},
		{"five", []byte("aaaaa")},
		{"zeros", make([]byte, 300000)},
		{"random", randomBytes(300000, 1)},
		{"text", textBytes(300000, 2)},
		{"mixed", genMixed(1, 1<<20)},
	}
	if quick() {
		inputs = inputs[:len(inputs)-1]
	}
	for _, in := range inputs {
		for _, lv := range []int{1, 5} {
			n1, n2 := checkBoth(t, fmt.Sprintf("%s/l%d", in.name, lv), in.data, Level(lv), KnownSize(int64(len(in.data))))
			t.Logf("%s/l%d: %d -> lzma %d, lzma2 %d", in.name, lv, len(in.data), n1, n2)
			// The compressible inputs must really compress.
			if len(in.data) >= 300000 && in.name != "random" && n1 > len(in.data)/2 {
				t.Errorf("%s/l%d: %d bytes to %d", in.name, lv, len(in.data), n1)
			}
		}
	}
}

func TestRoundTripLevels(t *testing.T) {
	skipRace(t)
	data := genMixed(3, 600000)
	if testing.Short() {
		data = data[:150000]
	}
	if quick() {
		data = data[:40000]
	}
	prev := 0
	for lv := range 10 {
		for _, mf := range []MatchFinderKind{HC4, BT4, HC5} {
			n1, n2 := checkBoth(t, fmt.Sprintf("l%d/mf%d", lv, mf), data, Level(lv), MatchFinder(mf), KnownSize(int64(len(data))))
			t.Logf("level %d mf %d: lzma %d lzma2 %d", lv, mf, n1, n2)
		}
		n, _ := encodeLZMA(t, data, Level(lv), KnownSize(int64(len(data))))
		if lv == 5 && prev > 0 && len(n) >= prev {
			t.Errorf("level 5 (%d bytes) is not smaller than level 4 (%d)", len(n), prev)
		}
		prev = len(n)
	}
}

func TestRoundTripLiteralBits(t *testing.T) {
	skipRace(t)
	data := genMixed(4, 30000) // 450 props x levels: each encode small
	if testing.Short() {
		data = data[:20000]
	}
	step := 1
	if testing.Short() {
		step = 2 // lc 0,2,4,6,8; lp and pb 0,2,4
	}
	for lc := 0; lc <= 8; lc += step {
		for lp := 0; lp <= 4; lp += step {
			for pb := 0; pb <= 4; pb += step {
				for _, lv := range []int{1, 6} {
					opts := []WriterOption{Level(lv), small, LiteralBits(lc, lp, pb)}
					packed, p := encodeLZMA(t, data, opts...)
					if p.LC != lc || p.LP != lp || p.PB != pb {
						t.Fatalf("Props %+v", p)
					}
					if got := decodeLZMA(t, packed, p, -1); !bytes.Equal(got, data) {
						t.Fatalf("lc=%d lp=%d pb=%d l%d: LZMA round trip differs", lc, lp, pb, lv)
					}
					if lc+lp > 4 {
						if _, err := NewWriter2(io.Discard, opts...); !errors.Is(err, errs.ErrInvalidOption) {
							t.Fatalf("LZMA2 lc=%d lp=%d: %v", lc, lp, err)
						}
						continue
					}
					packed2, db := encodeLZMA2(t, data, opts...)
					if got := decodeLZMA2(t, packed2, db, -1); !bytes.Equal(got, data) {
						t.Fatalf("lc=%d lp=%d pb=%d l%d: LZMA2 round trip differs", lc, lp, pb, lv)
					}
				}
			}
		}
	}
}

// TestOneByteWrites: writing byte by byte, or through ReadFrom, gives the
// same stream as one Write (the encoder's decisions do not depend on how
// the input arrives).
func TestOneByteWrites(t *testing.T) {
	data := genMixed(5, 200000)
	for _, lv := range []int{1, 5} {
		want, _ := encodeLZMA(t, data, Level(lv), small)
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Level(lv), small)
		if err != nil {
			t.Fatal(err)
		}
		for i := range data {
			if n, err := w.Write(data[i : i+1]); n != 1 || err != nil {
				t.Fatal(n, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("l%d: 1-byte writes give a different stream", lv)
		}
		buf.Reset()
		w2, _ := NewWriter2(&buf, Level(lv), small)
		if _, err := w2.ReadFrom(iotestOneByte{bytes.NewReader(data)}); err != nil {
			t.Fatal(err)
		}
		w2.Close()
		if got := decodeLZMA2(t, buf.Bytes(), w2.DictByte(), -1); !bytes.Equal(got, data) {
			t.Errorf("l%d: LZMA2 from 1-byte reads differs", lv)
		}
		want2, _ := encodeLZMA2(t, data, Level(lv), small)
		if !bytes.Equal(buf.Bytes(), want2) {
			t.Errorf("l%d: LZMA2 from 1-byte reads is a different stream", lv)
		}
	}
}

type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestWindowShift: a stream many times the window moves the window
// again and again; a 4 KiB dictionary makes that quick.
func TestWindowShift(t *testing.T) {
	skipRace(t)
	data := genMixed(6, 6<<20)
	if testing.Short() {
		data = data[:3<<20]
	}
	if quick() {
		data = data[:1200000] // still more than the 1 MiB LZMA window
	}
	for _, lv := range []int{1, 5} {
		checkBoth(t, fmt.Sprintf("l%d", lv), data, Level(lv), DictSize(MinDictSize))
	}
}

// TestNormalize starts the match finder's positions just below the
// overflow point, so they are normalised within the stream, as a stream
// beyond 4 GiB would have them.
func TestNormalize(t *testing.T) {
	skipRace(t)
	testStartPos = 0xFFFFFFFF - matchMaxLen - 100000
	defer func() { testStartPos = 0 }()
	data := genMixed(7, 1<<20)
	for _, lv := range []int{1, 5} {
		a, b := checkBoth(t, fmt.Sprintf("l%d", lv), data, Level(lv), small)
		testStartPos = 0
		c, d := checkBoth(t, fmt.Sprintf("l%d", lv), data, Level(lv), small)
		testStartPos = 0xFFFFFFFF - matchMaxLen - 100000
		if a != c || b != d {
			t.Errorf("l%d: normalised stream is %d/%d bytes, plain %d/%d", lv, a, b, c, d)
		}
	}
}

func TestHeaderForms(t *testing.T) {
	data := textBytes(100000, 9)
	for _, known := range []bool{false, true} {
		opts := []WriterOption{Level(3)}
		if known {
			opts = append(opts, KnownSize(int64(len(data))))
		}
		var buf bytes.Buffer
		w, err := NewWriterLZMAHeader(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		size := binary.LittleEndian.Uint64(buf.Bytes()[5:13])
		if known && size != uint64(len(data)) || !known && size != ^uint64(0) {
			t.Errorf("known=%v: header size %#x", known, size)
		}
		// Without the marker the decoder must find the end by the size.
		mo := EndMarker(MarkerRequired)
		if known {
			mo = EndMarker(MarkerForbidden)
		}
		r, err := NewReaderLZMAHeader(bytes.NewReader(buf.Bytes()), mo)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("known=%v: .lzma round trip: %v", known, err)
		}

		buf.Reset()
		wz, err := NewWriterZip(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		wz.Write(data)
		if err := wz.Close(); err != nil {
			t.Fatal(err)
		}
		rz, err := NewReaderZip(bytes.NewReader(buf.Bytes()), -1, EndMarker(MarkerRequired))
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(rz)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("known=%v: ZIP form round trip: %v", known, err)
		}
	}
	// WriteEndMarker with a known size writes the marker too.
	withM, p := encodeLZMA(t, data, small, KnownSize(int64(len(data))), WriteEndMarker(true))
	decodeLZMA(t, withM, p, -1, EndMarker(MarkerRequired))
	noM, _ := encodeLZMA(t, data, small, KnownSize(int64(len(data))))
	decodeLZMA(t, noM, p, int64(len(data)), EndMarker(MarkerForbidden))
}

func TestKnownSizeMismatch(t *testing.T) {
	w, _ := NewWriter(io.Discard, small, KnownSize(10))
	w.Write([]byte("abc"))
	if err := w.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("Close: %v", err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrWriterClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if err := w.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("second Close after a failed one: %v", err)
	}
	// A clean Close may be repeated; Write and Flush after it fail.
	for _, lzma2 := range []bool{false, true} {
		var c io.WriteCloser
		if lzma2 {
			c, _ = NewWriter2(io.Discard, small)
		} else {
			c, _ = NewWriter(io.Discard, small)
		}
		c.Write([]byte("abc"))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("lzma2=%v: second Close: %v", lzma2, err)
		}
		if _, err := c.Write([]byte("x")); !errors.Is(err, ErrWriterClosed) {
			t.Errorf("lzma2=%v: Write after Close: %v", lzma2, err)
		}
		if lzma2 {
			if err := c.(*Writer2).Flush(); !errors.Is(err, ErrWriterClosed) {
				t.Errorf("Flush after Close: %v", err)
			}
		}
	}
	w2, _ := NewWriter2(io.Discard, small, KnownSize(10))
	w2.Write([]byte("abc"))
	if err := w2.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("Writer2 Close: %v", err)
	}
	// More than declared fails at once, through Write or ReadFrom.
	data := textBytes(300000, 4)
	w, _ = NewWriter(io.Discard, small, KnownSize(100000))
	if _, err := w.Write(data); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("Write past KnownSize: %v", err)
	}
	w2, _ = NewWriter2(io.Discard, small, KnownSize(100000))
	if _, err := w2.ReadFrom(bytes.NewReader(data)); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("ReadFrom past KnownSize: %v", err)
	}
	// Exactly the size through ReadFrom is fine.
	w2, _ = NewWriter2(io.Discard, small, KnownSize(100000))
	if _, err := w2.ReadFrom(bytes.NewReader(data[:100000])); err != nil {
		t.Errorf("ReadFrom of KnownSize bytes: %v", err)
	}
	if err := w2.Close(); err != nil {
		t.Error(err)
	}
}

func TestWriterInvalidOptions(t *testing.T) {
	bad := []WriterOption{
		Level(-1), Level(10), DictSize(100), DictSize(2 << 30), LiteralBits(9, 0, 0),
		LiteralBits(0, 5, 0), LiteralBits(0, 0, 5), LiteralBits(-1, 0, 0), FastBytes(4), FastBytes(274),
		MatchFinder(0), MatchFinder(4), Depth(-1), Threads(0), BlockSize(-1), KnownSize(-2),
	}
	for _, o := range bad {
		if _, err := NewWriter(io.Discard, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewWriter(%+v): %v", o, err)
		}
		if _, err := NewWriter2(io.Discard, o); !errors.Is(err, errs.ErrInvalidOption) {
			t.Errorf("NewWriter2(%+v): %v", o, err)
		}
	}
	if _, err := NewWriter2(io.Discard, LiteralBits(4, 1, 2)); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("LZMA2 lc+lp=5: %v", err)
	}
	if _, err := NewWriter(io.Discard, LiteralBits(4, 1, 2), small); err != nil {
		t.Errorf("LZMA lc+lp=5: %v", err)
	}
}

// TestLevelSettings checks the level table against 7-Zip's mapping.
func TestLevelSettings(t *testing.T) {
	want := []struct {
		dict  uint32
		fb    int
		mf    MatchFinderKind
		depth int
		fast  bool
	}{
		{64 << 10, 32, HC5, 16, true}, {256 << 10, 32, HC5, 16, true}, {1 << 20, 32, HC5, 16, true},
		{4 << 20, 32, HC5, 16, true}, {16 << 20, 32, HC5, 16, true}, {32 << 20, 32, BT4, 32, false},
		{64 << 20, 32, BT4, 32, false}, {128 << 20, 64, BT4, 48, false}, {256 << 20, 64, BT4, 48, false},
		{256 << 20, 64, BT4, 48, false},
	}
	for lv, w := range want {
		var c encConfig
		if err := c.resolve([]WriterOption{Level(lv)}, true); err != nil {
			t.Fatal(err)
		}
		if c.dictSize != w.dict || c.fastBytes != w.fb || c.mf != w.mf || c.depth != w.depth || c.fast != w.fast {
			t.Errorf("level %d: %+v", lv, c)
		}
	}
	var c encConfig
	c.resolve([]WriterOption{DictSize(1 << 20), Level(9), FastBytes(100), Depth(7), MatchFinder(HC4)}, false)
	if c.dictSize != 1<<20 || c.fastBytes != 100 || c.depth != 7 || c.mf != HC4 || c.fast {
		t.Errorf("explicit settings: %+v", c)
	}
	c.resolve([]WriterOption{Level(9), KnownSize(5000)}, false)
	if c.dictSize != 5000 {
		t.Errorf("KnownSize(5000): dictionary %d", c.dictSize)
	}
}

// lzma2Parse splits an LZMA2 stream into chunks and checks their limits.
func lzma2Parse(t *testing.T, b []byte) (lz, stored int) {
	t.Helper()
	for len(b) > 0 {
		c := b[0]
		if c == 0 {
			if len(b) != 1 {
				t.Fatalf("%d bytes after the end byte", len(b)-1)
			}
			return
		}
		if c == 1 || c == 2 {
			u := int(b[1])<<8 | int(b[2]) + 1
			b = b[3+u:]
			stored++
			continue
		}
		u := int(c&0x1F)<<16 | int(b[1])<<8 | int(b[2]) + 1
		p := int(b[3])<<8 | int(b[4]) + 1
		h := 5
		if c >= 0xC0 {
			h = 6
		}
		if u > lzma2UnpackMax || p > lzma2PackMax {
			t.Fatalf("chunk %d/%d", u, p)
		}
		if p+2 >= u {
			t.Errorf("LZMA chunk of %d packed bytes for %d unpacked: should be stored", p, u)
		}
		b = b[h+p:]
		lz++
	}
	t.Fatal("no end byte")
	return
}

func TestLZMA2Chunks(t *testing.T) {
	skipRace(t)
	// Random data is stored; compressible data goes in LZMA chunks; a
	// long compressible run needs several chunks of at most 2 MiB.
	zeros := 5 << 20
	if quick() {
		zeros = 2<<20 + 1000 // two LZMA chunks
	}
	data := append(randomBytes(300000, 3), make([]byte, zeros)...)
	data = append(data, randomBytes(200000, 4)...)
	data = append(data, textBytes(500000, 5)...)
	for _, lv := range []int{1, 5} {
		packed, db := encodeLZMA2(t, data, Level(lv), small)
		if got := decodeLZMA2(t, packed, db, -1); !bytes.Equal(got, data) {
			t.Fatalf("l%d: round trip differs", lv)
		}
		lz, stored := lzma2Parse(t, packed)
		if stored < 6 || lz < 2 {
			t.Errorf("l%d: %d LZMA and %d stored chunks", lv, lz, stored)
		}
		if packed[0] != 0x01 {
			t.Errorf("l%d: first chunk %#x, want a stored chunk with dictionary reset", lv, packed[0])
		}
	}
	// Text first: the first chunk is LZMA with every reset.
	packed, _ := encodeLZMA2(t, textBytes(1000, 1), small)
	if packed[0]&0xE0 != 0xE0 {
		t.Errorf("first chunk %#x", packed[0])
	}
}

func TestFlush(t *testing.T) {
	data := genMixed(8, 400000)
	var buf bytes.Buffer
	w, _ := NewWriter2(&buf, Level(5), small)
	cut := []int{0, 1000, 1001, 150000, 400000}
	for i := 1; i < len(cut); i++ {
		w.Write(data[cut[i-1]:cut[i]])
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		// Everything written so far decodes from what is out (the end
		// byte is still missing).
		d, _ := DictSizeLZMA2(w.DictByte())
		r, _ := NewReader2(bytes.NewReader(buf.Bytes()), d, int64(cut[i]))
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data[:cut[i]]) {
			t.Fatalf("after Flush at %d: %v, %d bytes", cut[i], err, len(got))
		}
	}
	w.Close()
	if got := decodeLZMA2(t, buf.Bytes(), w.DictByte(), -1); !bytes.Equal(got, data) {
		t.Fatal("round trip with flushes differs")
	}
}

// TestReset: a Reset writer gives the same bytes as a new one, for both
// forms, after streams of other sizes.
func TestReset(t *testing.T) {
	skipRace(t)
	a, b := genMixed(9, 300000), textBytes(70000, 3)
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Level(5), small)
	w2, _ := NewWriter2(&buf, Level(5), small)
	for _, data := range [][]byte{a, b, a} {
		buf.Reset()
		w.Reset(&buf)
		w.Write(data)
		w.Close()
		want, _ := encodeLZMA(t, data, Level(5), small)
		if !bytes.Equal(buf.Bytes(), want) {
			t.Error("LZMA after Reset differs from a new writer")
		}
		buf.Reset()
		w2.Reset(&buf)
		w2.Write(data)
		w2.Close()
		want2, _ := encodeLZMA2(t, data, Level(5), small)
		if !bytes.Equal(buf.Bytes(), want2) {
			t.Error("LZMA2 after Reset differs from a new writer")
		}
	}
}

// TestBlockEncoder: independent blocks concatenate into one valid stream,
// and a block's bytes do not depend on what the encoder did before.
func TestBlockEncoder(t *testing.T) {
	skipRace(t)
	data := genMixed(10, 3<<20)
	if quick() {
		data = data[:2<<20+1000]
	}
	blocks := [][]byte{data[:1<<20], data[1<<20 : 1<<20+5], data[1<<20+5 : 2<<20], randomBytes(100000, 5), data[2<<20:]}
	var b block2Encoder
	if err := b.reset(Level(5), DictSize(1<<20)); err != nil {
		t.Fatal(err)
	}
	defer b.close()
	var all, want []byte
	var outs [][]byte
	for _, blk := range blocks {
		n := len(all)
		var err error
		all, err = b.encodeBlock(all, blk)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, all[n:])
		want = append(want, blk...)
	}
	all = append(all, 0)
	if got := decodeLZMA2(t, all, b.dictByte(), -1); !bytes.Equal(got, want) {
		t.Fatal("concatenated blocks do not decode")
	}
	// Again in reverse order with a fresh encoder: same bytes per block.
	var b2 block2Encoder
	b2.reset(Level(5), DictSize(1<<20))
	defer b2.close()
	for i := len(blocks) - 1; i >= 0; i-- {
		got, _ := b2.encodeBlock(nil, blocks[i])
		if !bytes.Equal(got, outs[i]) {
			t.Errorf("block %d differs when encoded in another order", i)
		}
	}
	if out, _ := b.encodeBlock(nil, nil); len(out) != 0 {
		t.Error("empty block wrote bytes")
	}
}

// TestAllocs: once warm, Reset + Write + Close allocates nothing.
func TestEncodeAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	data := genMixed(11, 500000)
	for _, lv := range []int{1, 5} {
		w, _ := NewWriter(io.Discard, Level(lv), small)
		w2, _ := NewWriter2(io.Discard, Level(lv), small)
		var br bytes.Reader
		run := func() {
			w.Reset(io.Discard)
			w.Write(data)
			w.Close()
			w2.Reset(io.Discard)
			br.Reset(data)
			w2.ReadFrom(&br)
			w2.Close()
		}
		run()
		if a := testing.AllocsPerRun(5, run); a > 0.5 { // a GC may empty a sync.Pool once
			t.Errorf("level %d: %.1f allocations per stream", lv, a)
		}
		var b block2Encoder
		b.reset(Level(lv), small)
		dst := make([]byte, 0, 1<<20)
		if a := testing.AllocsPerRun(5, func() { b.encodeBlock(dst[:0], data) }); a > 0.5 {
			t.Errorf("level %d: %.1f allocations per block", lv, a)
		}
		b.close()
	}
}

// TestWriter7zzLZMA: 7-Zip accepts the .lzma files we write.
func TestWriter7zzLZMA(t *testing.T) {
	skipRace(t)
	if _, err := exec.LookPath("7zz"); err != nil {
		t.Skip("7zz not installed")
	}
	dir := t.TempDir()
	data := genMixed(12, 2<<20)
	if quick() {
		data = data[:300000]
	}
	for _, lv := range []int{1, 5, 9} {
		for _, known := range []bool{false, true} {
			var buf bytes.Buffer
			opts := []WriterOption{Level(lv), DictSize(1 << 20)}
			if known {
				opts = append(opts, KnownSize(int64(len(data))))
			}
			w, _ := NewWriterLZMAHeader(&buf, opts...)
			w.Write(data)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, fmt.Sprintf("l%d-%v.lzma", lv, known))
			os.WriteFile(name, buf.Bytes(), 0o644)
			out, err := exec.Command("7zz", "t", name).CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte("Everything is Ok")) {
				t.Errorf("7zz t %s: %v\n%s", name, err, out)
			}
			out, err = exec.Command("7zz", "e", "-so", name).Output()
			if err != nil || !bytes.Equal(out, data) {
				t.Errorf("7zz e %s: %v, %d bytes", name, err, len(out))
			}
		}
	}
}

// TestEncoderMemory: EncoderMemory matches what a cold encoder really
// allocates, and MaxMemory refuses an encoder above it.
func TestEncoderMemory(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	data := genMixed(13, 300000)
	for _, tc := range []struct {
		lzma2 bool
		opts  []WriterOption
	}{
		{false, []WriterOption{Level(1), DictSize(1 << 20)}},
		{true, []WriterOption{Level(5), DictSize(4 << 20)}},
		{true, []WriterOption{Level(9), DictSize(8 << 20), LiteralBits(4, 0, 2)}},
	} {
		want, err := EncoderMemory(tc.lzma2, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		pool.Release()
		runtime.GC()
		runtime.GC() // empty the sync.Pools, victims included
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if tc.lzma2 {
			w, _ := NewWriter2(io.Discard, tc.opts...)
			w.Write(data)
			w.Close()
		} else {
			w, _ := NewWriter(io.Discard, tc.opts...)
			w.Write(data)
			w.Close()
		}
		runtime.ReadMemStats(&after)
		got := int64(after.TotalAlloc - before.TotalAlloc)
		if got < want*9/10 || got > want*11/10 {
			t.Errorf("%+v: allocated %d bytes, EncoderMemory says %d", tc.opts, got, want)
		}
		lim := append(tc.opts[:len(tc.opts):len(tc.opts)], MaxMemory(want-1))
		if _, err := NewWriter2(io.Discard, lim...); tc.lzma2 && !errors.Is(err, errs.ErrLimit) {
			t.Errorf("MaxMemory(%d): %v", want-1, err)
		}
		lim[len(lim)-1] = MaxMemory(want)
		if tc.lzma2 {
			if _, err := NewWriter2(io.Discard, lim...); err != nil {
				t.Errorf("MaxMemory(%d): %v", want, err)
			}
		} else if _, err := NewWriter(io.Discard, lim...); err != nil {
			t.Errorf("MaxMemory(%d): %v", want, err)
		}
	}
	// The level table's memory, as the Level documentation states it.
	for lv := range 10 {
		m1, _ := EncoderMemory(false, Level(lv))
		m2, _ := EncoderMemory(true, Level(lv))
		t.Logf("level %d: LZMA %d MiB, LZMA2 %d MiB", lv, m1>>20, m2>>20)
	}
}

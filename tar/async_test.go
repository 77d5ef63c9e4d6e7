package tar

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// streamOf reads data with the Reader and returns every entry's name and
// content in order, and the first error (nil at a clean end).
func streamOf(data []byte, workers int) ([]byte, error) {
	var out bytes.Buffer
	r, err := NewReader(bytes.NewReader(data), conf.Workers(workers))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return out.Bytes(), err
		}
		out.WriteString(e.Name + "\x00")
		if _, err := io.Copy(&out, r); err != nil {
			return out.Bytes(), err
		}
	}
}

func sentinel(err error) error {
	for _, s := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum,
		errs.ErrUnsupported, errs.ErrLimit} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// TestAheadSame: decoding ahead on another goroutine (Workers > 1)
// delivers the same bytes as one goroutine, and a damaged or cut stream
// fails with the same error after the same bytes.
func TestAheadSame(t *testing.T) {
	for _, name := range []string{"small.tar.gz", "small.tar.xz", "small.tar.lz", "small-members.tar.lz",
		"small.tar.lzma", "text.txt.gz", "text.txt.lz", "text.txt.lzma", "small.tar.zst", "small.tar.bz2"} {
		data := readTestdata(t, name)
		variants := map[string][]byte{"whole": data, "half": data[:len(data)/2], "cut": data[:len(data)-3]}
		for _, off := range []int{-8, -20, -30, len(data) / 2} {
			if off < len(data) && -off < len(data) {
				variants["flip"+string(rune('a'+(off&15)))] = flip(data, off)
			}
		}
		for v, d := range variants {
			want, werr := streamOf(d, 1)
			got, gerr := streamOf(d, 4)
			if !bytes.Equal(got, want) && !(zstdTail(name, werr) && bytes.HasPrefix(got, want)) {
				t.Errorf("%s %s: %d bytes with 4 workers, %d with 1", name, v, len(got), len(want))
			}
			if sentinel(gerr) != sentinel(werr) {
				t.Errorf("%s %s: error %v with 4 workers, %v with 1", name, v, gerr, werr)
			}
			if v == "whole" && werr != nil {
				t.Errorf("%s: %v", name, werr)
			}
			ae, re := readAll(d, conf.Workers(4))
			ae1, re1 := readAll(d, nil)
			if sentinel(ae) != sentinel(ae1) || sentinel(re) != sentinel(re1) {
				t.Errorf("%s %s: Archive %v, Reader %v with 4 workers; %v, %v with 1", name, v, ae, re, ae1, re1)
			}
		}
	}
}

// zstdTail: a damaged zstd stream read with Workers > 1 (klauspost's
// concurrent decoder) may hand over the last block of a frame before the
// frame's checksum error, where the one-goroutine decoder fails first; the
// error is the same and comes before the stream's end either way (as it
// does for every earlier block of a frame, whichever decoder).
func zstdTail(name string, err error) bool {
	return strings.HasSuffix(name, ".zst") && err != nil
}

// bigTarGz is a tar.gz of one entry of n pseudo-random-ish bytes, larger
// than the read-ahead ring.
func bigTarGz(t *testing.T, n int) []byte {
	t.Helper()
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "big", Size: int64(n), Mode: 0o644, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)})
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*2654435761>>13) & 0x3f
	}
	tw.Write(b)
	tw.Close()
	zw.Close()
	return out.Bytes()
}

func goroutinesBack(n int) bool {
	for range 200 {
		if runtime.NumGoroutine() <= n {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

// TestAheadGoroutine: with Workers > 1 the decoder runs on its own
// goroutine; Close ends it, mid-entry and with the ring full, for the
// Reader and for the Archive's entry readers.
func TestAheadGoroutine(t *testing.T) {
	data := bigTarGz(t, 8<<20)
	base := runtime.NumGoroutine()
	r, err := NewReader(bytes.NewReader(data), conf.Workers(4))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.NumGoroutine() <= base {
		t.Error("no goroutine decodes ahead with Workers 4")
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	var b [4096]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // let the ring fill
	r.Close()
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after Close, %d before", runtime.NumGoroutine(), base)
	}
	if _, err := r.Read(b[:]); err == nil {
		t.Error("read after Close")
	}

	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.Workers(4))
	if err != nil {
		t.Fatal(err)
	}
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after listing, %d before", runtime.NumGoroutine(), base)
	}
	rc, err := a.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(rc, b[:])
	rc.Close()
	a.Close()
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after the Archive's Close, %d before", runtime.NumGoroutine(), base)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Logf("goroutines %d > %d", n, base)
	}

	r, err = NewReader(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.NumGoroutine() > base {
		t.Error("a goroutine decodes ahead with Workers unset")
	}
	r.Close()
}

// TestAheadAllocs: a warm pass of a tar.gz read ahead allocates a few
// hundred bytes (the channels), not its buffers.
func TestAheadAllocs(t *testing.T) {
	data := bigTarGz(t, 3<<20)
	pass := func() {
		if _, err := streamOfDiscard(data, 4); err != nil {
			t.Fatal(err)
		}
	}
	pass()
	if testutil.RaceEnabled {
		return // sync.Pool drops items on purpose under -race
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	pass()
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Errorf("a warm pass allocated %d bytes", n)
	}
}

func streamOfDiscard(data []byte, workers int) (int64, error) {
	r, err := NewReader(bytes.NewReader(data), conf.Workers(workers))
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		m, err := io.Copy(io.Discard, r)
		n += m
		if err != nil {
			return n, err
		}
	}
}

// TestZstdPooled: with Workers > 1 zstd is klauspost's concurrent stream
// decoder (its goroutines decode literals, sequences and execute them
// while the caller reads), taken warm from a pool and Reset per stream,
// so a warm pass allocates little; Close releases its goroutines.
func TestZstdPooled(t *testing.T) {
	var out bytes.Buffer
	zw, _ := zstd.NewWriter(&out, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(8<<20))
	tw := tar.NewWriter(zw)
	const n = 16 << 20
	tw.WriteHeader(&tar.Header{Name: "big", Size: n, Mode: 0o644, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)})
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		if i&(1<<16) == 0 {
			b[i] = byte(rng.Uint32()) // incompressible chunks, as in mixed-200
		} else {
			b[i] = byte(i*2654435761>>13) & 0x3f
		}
	}
	tw.Write(b)
	tw.Close()
	zw.Close()
	data := out.Bytes()
	base := runtime.NumGoroutine()

	// Mid-stream: the concurrent decoder's goroutines run (the stream
	// decoder and its sequence decoding and executing stages; one
	// read-ahead goroutine would be one); Close ends them all.
	r, err := NewReader(bytes.NewReader(data), conf.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	var buf [4096]byte
	if _, err := io.ReadFull(r, buf[:]); err != nil {
		t.Fatal(err)
	}
	if g := runtime.NumGoroutine(); g < base+3 {
		t.Errorf("%d goroutines mid-stream with Workers 2, %d before: zstd does not decode concurrently", g, base)
	}
	r.Close()
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after Close mid-stream, %d before", runtime.NumGoroutine(), base)
	}

	if m, err := streamOfDiscard(data, 4); err != nil || m != n {
		t.Fatalf("read %d bytes, %v", m, err)
	}
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after Close, %d before", runtime.NumGoroutine(), base)
	}
	if testutil.RaceEnabled {
		return // sync.Pool drops items on purpose under -race
	}
	// The best of three warm passes: a GC between two passes empties the
	// pools (sync.Pool), which on a loaded machine happens now and then.
	least := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := streamOfDiscard(data, 4); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least > 16<<10 {
		t.Errorf("the best of three warm passes allocated %d bytes", least)
	}
	if !goroutinesBack(base) {
		t.Errorf("%d goroutines after the warm pass, %d before", runtime.NumGoroutine(), base)
	}
}

// TestAheadReadAfterStop: a read after stop fails at once instead of
// waiting on the stopped goroutine's channels.
func TestAheadReadAfterStop(t *testing.T) {
	var a ahead
	a.start(bytes.NewReader(bytes.Repeat([]byte("x"), 3<<20)))
	buf := make([]byte, 100)
	if _, err := a.Read(buf); err != nil {
		t.Fatal(err)
	}
	a.stop()
	done := make(chan error, 1)
	go func() { _, err := a.Read(buf); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read after stop returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read after stop hangs")
	}
}

// TestReadAheadCounted: the read-ahead ring and the concurrent zstd
// decoder's extra block count against MaxMemory on top of the window the
// decoder may hold; without room for both, the stream decodes on one
// goroutine (and still reads fine: the worker count never changes what
// the limits admit).
func TestReadAheadCounted(t *testing.T) {
	def := conf.MustLimits(arc.Limits{})
	tight := conf.MustLimits(arc.Limits{MaxMemory: 8 << 20}) // dictionary limit 4 GiB > MaxMemory
	small := conf.MustLimits(arc.Limits{MaxMemory: 8 << 20, MaxDictionary: 1 << 20})
	for _, c := range []struct {
		kind compKind
		lim  engine.Limits
		want bool
	}{
		{kindGzip, def, true}, {kindGzip, tight, true},
		{kindXZ, def, true}, {kindXZ, tight, false}, {kindXZ, small, true},
		{kindLzip, tight, false}, {kindLZMA, small, true},
	} {
		if got := aheadFits(c.kind, &c.lim); got != c.want {
			t.Errorf("aheadFits(%v, MaxMemory %d, MaxDictionary %d) = %v, want %v", c.kind, c.lim.MaxMemory, c.lim.MaxDictionary, got, c.want)
		}
	}
	data := readTestdata(t, "small.tar.zst")
	for _, c := range []struct {
		lim  engine.Limits
		want bool
	}{{def, true}, {tight, false}, {small, true}} {
		var d decomp
		if err := d.open(kindZstd, bytes.NewReader(data), int64(len(data)), &c.lim, 4); err != nil {
			t.Fatal(err)
		}
		if d.rd.(*zstdDecoder).conc != c.want {
			t.Errorf("zstd, MaxMemory %d, MaxDictionary %d: concurrent decoder %v, want %v", c.lim.MaxMemory, c.lim.MaxDictionary, d.rd.(*zstdDecoder).conc, c.want)
		}
		d.Close()
	}
	for _, name := range []string{"small.tar.zst", "small.tar.xz", "small.tar.gz"} {
		data := readTestdata(t, name)
		if ae, re := readAll(data, conf.Workers(4), arc.WithLimits(arc.Limits{MaxMemory: 8 << 20})); ae != nil || re != nil {
			t.Errorf("%s, MaxMemory 8 MiB, 4 workers: Archive %v, Reader %v", name, ae, re)
		}
	}
}

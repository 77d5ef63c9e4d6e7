package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/testutil"
)

// tBlock is the block size of most tests: big enough for the parsers to
// find long matches, small enough for several blocks per input.
const tBlock = 64 << 10

// mtEncode compresses data with an LZMA2 Writer2 made with opts, in
// writes of at most chunk bytes (0: one Write), and returns the stream
// and the dictionary byte.
func mtEncode(t testutil.TB, data []byte, chunk int, opts ...WriterOption) ([]byte, byte) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mtWriteAll(t, w, data, chunk)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.DictByte()
}

func mtWriteAll(t testutil.TB, w io.Writer, data []byte, chunk int) {
	t.Helper()
	if chunk <= 0 {
		chunk = max(len(data), 1)
	}
	for p := data; len(p) > 0; {
		k := min(chunk, len(p))
		n, err := w.Write(p[:k])
		if err != nil || n != k {
			t.Fatalf("Write: %d of %d bytes: %v", n, k, err)
		}
		p = p[k:]
	}
}

// mtDecode decodes an LZMA2 stream with our reader, checking that the
// stream ends exactly with its end byte.
func mtDecode(t testutil.TB, packed []byte, dictByte byte) []byte {
	t.Helper()
	d, err := DictSizeLZMA2(dictByte)
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) == 0 || packed[len(packed)-1] != ctrlEnd {
		t.Fatalf("stream of %d bytes does not end with the end byte", len(packed))
	}
	r, err := NewReader2(bytes.NewReader(packed), d, -1)
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

// mtBlocks splits an LZMA2 stream into its chunks and returns the offsets
// (in the decoded data) of the chunks that reset the dictionary.
func mtBlocks(t testutil.TB, packed []byte) []int64 {
	t.Helper()
	var resets []int64
	var pos int64
	for i := 0; i < len(packed); {
		c := packed[i]
		switch {
		case c == ctrlEnd:
			if i != len(packed)-1 {
				t.Fatalf("end byte at %d of %d", i, len(packed))
			}
			return resets
		case c == ctrlCopyDict || c == ctrlCopy:
			u := int(packed[i+1])<<8 | int(packed[i+2]) + 1
			if c == ctrlCopyDict {
				resets = append(resets, pos)
			}
			pos += int64(u)
			i += 3 + u
		case c >= ctrlLZMA:
			u := int(c&0x1F)<<16 | int(packed[i+1])<<8 | int(packed[i+2]) + 1
			p := int(packed[i+3])<<8 | int(packed[i+4]) + 1
			if c >= ctrlDict {
				resets = append(resets, pos)
			}
			h := 5
			if c >= ctrlProps {
				h = 6
			}
			pos += int64(u)
			i += h + p
		default:
			t.Fatalf("bad control byte %#x at %d", c, i)
		}
	}
	t.Fatal("no end byte")
	return nil
}

// TestMTRoundTrip encodes inputs that span several blocks with 1..4
// threads and several block sizes, in one Write and in small writes,
// and decodes them; each block must start with a dictionary reset at a
// multiple of the block size.
func TestMTRoundTrip(t *testing.T) {
	inputs := map[string][]byte{
		"empty":   nil,
		"one":     {42},
		"mixed":   genMixed(1, 300<<10),
		"zeros":   make([]byte, 300<<10),
		"blocks3": genMixed(2, 3*tBlock),
	}
	for name, data := range inputs {
		for _, bs := range []int64{tBlock, 200 << 10} {
			if testing.Short() && bs != tBlock {
				continue
			}
			for _, threads := range []int{1, 2, 3, 4} {
				for _, chunk := range []int{0, 1000} {
					if chunk == 1000 && len(data) > 200<<10 && testing.Short() {
						continue
					}
					tn := fmt.Sprintf("%s/bs%d/t%d/w%d", name, bs, threads, chunk)
					packed, db := mtEncode(t, data, chunk, Level(1), Threads(threads), BlockSize(bs))
					if got := mtDecode(t, packed, db); !bytes.Equal(got, data) {
						t.Fatalf("%s: decoded %d bytes, want %d, differ at %d", tn, len(got), len(data), diffAt(got, data))
					}
					resets := mtBlocks(t, packed)
					want := (int64(len(data)) + bs - 1) / bs
					if int64(len(resets)) != want {
						t.Fatalf("%s: %d dictionary resets, want %d blocks", tn, len(resets), want)
					}
					for i, r := range resets {
						if r != int64(i)*bs {
							t.Fatalf("%s: block %d starts at %d, want %d", tn, i, r, int64(i)*bs)
						}
					}
				}
			}
		}
	}
}

// TestMTAutoBlockSize checks 7-Zip's block size rule (Lzma2Enc.c,
// Lzma2EncProps_Normalize) and that Threads without BlockSize uses it.
func TestMTAutoBlockSize(t *testing.T) {
	for _, c := range []struct{ dict, want int64 }{
		{64 << 10, 1 << 20},
		{256 << 10, 1 << 20},
		{1 << 20, 4 << 20},
		{3 << 20, 12 << 20},
		{1<<20 + 1, 5 << 20}, // 4 MiB + 4 rounded up to whole MiB
		{32 << 20, 128 << 20},
		{64 << 20, 256 << 20},
		{256 << 20, 256 << 20},
		{384 << 20, 384 << 20}, // never below the dictionary
	} {
		if got := autoBlockSize(c.dict); got != c.want {
			t.Errorf("autoBlockSize(%d) = %d, want %d", c.dict, got, c.want)
		}
	}
	cfg := encConfig{}
	if err := cfg.resolve([]WriterOption{Level(1), Threads(2)}, true); err != nil {
		t.Fatal(err)
	}
	if got := mtBlockSize(&cfg); got != 1<<20 {
		t.Fatalf("level 1 with Threads(2): block size %d, want 1 MiB", got)
	}
	// Threads(1) alone is one solid stream; with Threads(2) the stream
	// resets the dictionary every 1 MiB (level 1's dictionary is 256 KiB).
	data := genMixed(3, 2<<20+5)
	solid, _ := mtEncode(t, data, 0, Level(1))
	if r := mtBlocks(t, solid); len(r) != 1 {
		t.Fatalf("solid stream: %d dictionary resets, want 1", len(r))
	}
	mt, db := mtEncode(t, data, 0, Level(1), Threads(2))
	if r := mtBlocks(t, mt); len(r) != 3 || r[1] != 1<<20 || r[2] != 2<<20 {
		t.Fatalf("Threads(2): dictionary resets at %v, want 0, 1 MiB, 2 MiB", r)
	}
	if !bytes.Equal(mtDecode(t, mt, db), data) {
		t.Fatal("Threads(2): round trip differs")
	}
}

// TestMTFlush: after Flush everything written so far is decodable from
// what reached the destination, with threads or without; the stream
// goes on in a new block.
func TestMTFlush(t *testing.T) {
	data := genMixed(4, 300<<10)
	for _, threads := range []int{1, 2, 4} {
		var buf bytes.Buffer
		w, err := NewWriter2(&buf, Level(1), Threads(threads), BlockSize(tBlock))
		if err != nil {
			t.Fatal(err)
		}
		cut := 100<<10 + 7
		mtWriteAll(t, w, data[:cut], 0)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		part := append(bytes.Clone(buf.Bytes()), ctrlEnd)
		if got := mtDecode(t, part, w.DictByte()); !bytes.Equal(got, data[:cut]) {
			t.Fatalf("threads %d: after Flush %d bytes decode, want %d", threads, len(got), cut)
		}
		mtWriteAll(t, w, data[cut:], 0)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := mtDecode(t, buf.Bytes(), w.DictByte()); !bytes.Equal(got, data) {
			t.Fatalf("threads %d: after Close: round trip differs", threads)
		}
		if _, err := w.Write([]byte{1}); !errors.Is(err, ErrWriterClosed) {
			t.Fatalf("Write after Close: %v, want ErrWriterClosed", err)
		}
	}
}

// TestMTReadFrom: ReadFrom reads into the block buffers and gives the
// same stream as Write.
func TestMTReadFrom(t *testing.T) {
	data := genMixed(5, 400<<10)
	want, _ := mtEncode(t, data, 0, Level(1), Threads(3), BlockSize(tBlock))
	var buf bytes.Buffer
	w, err := NewWriter2(&buf, Level(1), Threads(3), BlockSize(tBlock))
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.ReadFrom(&shortReader{data: data})
	if err != nil || n != int64(len(data)) {
		t.Fatalf("ReadFrom: %d bytes, %v", n, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("ReadFrom and Write give different streams")
	}
	// A source error is returned and the writer goes on.
	buf.Reset()
	if err := w.Reset(&buf); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("source failed")
	if _, err := w.ReadFrom(io.MultiReader(bytes.NewReader(data[:1000]), &errReader{bad})); err != bad {
		t.Fatalf("ReadFrom from a failing source: %v, want its error", err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data[1000:])); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatal("ReadFrom after a source error: stream differs")
	}
}

// shortReader returns at most 777 bytes per Read.
type shortReader struct{ data []byte }

func (r *shortReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 777)], r.data)
	r.data = r.data[n:]
	return n, nil
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// failWriter accepts ok bytes, then fails every Write.
type failWriter struct {
	mu     sync.Mutex
	ok     int
	n      int
	writes int
}

var errDest = errors.New("destination full")

func (f *failWriter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if f.n+len(p) > f.ok {
		k := max(f.ok-f.n, 0)
		f.n += k
		return k, errDest
	}
	f.n += len(p)
	return len(p), nil
}

// goroutinesBack waits (briefly) for the goroutine count to fall to base:
// a worker that has handed over its block exits right after.
func goroutinesBack(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), base, buf)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestMTWriteError: a failing destination stops the writer: the error is
// returned by the Write (or Flush/Close) that meets it and by every
// later call, nothing more is written, and after Close no goroutine is
// left.
func TestMTWriteError(t *testing.T) {
	data := genMixed(6, 12*tBlock)
	for _, threads := range []int{1, 2, 4} {
		for _, ok := range []int{0, 10, 2 * tBlock} {
			base := runtime.NumGoroutine()
			f := &failWriter{ok: ok}
			w, err := NewWriter2(f, Level(1), Threads(threads), BlockSize(tBlock))
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			for p := data; len(p) > 0 && werr == nil; {
				k := min(len(p), 10000)
				_, werr = w.Write(p[:k])
				p = p[k:]
			}
			if werr == nil {
				t.Fatalf("threads %d ok %d: every Write succeeded", threads, ok)
			}
			if !errors.Is(werr, errDest) {
				t.Fatalf("threads %d ok %d: Write: %v, want the destination's error", threads, ok, werr)
			}
			writes := f.writes
			if _, err := w.Write(data[:10]); !errors.Is(err, errDest) {
				t.Fatalf("Write after the error: %v", err)
			}
			if err := w.Flush(); !errors.Is(err, errDest) {
				t.Fatalf("Flush after the error: %v", err)
			}
			if err := w.Close(); !errors.Is(err, errDest) {
				t.Fatalf("Close after the error: %v", err)
			}
			if err := w.Close(); !errors.Is(err, errDest) {
				t.Fatalf("second Close after the error: %v", err)
			}
			if f.writes != writes {
				t.Fatalf("threads %d ok %d: %d writes after the failing one", threads, ok, f.writes-writes)
			}
			goroutinesBack(t, base)
		}
	}
}

// TestMTGoroutines: a writer's goroutines are gone after Close, after a
// Reset in the middle of a stream, and while the writer is idle between
// blocks none is waiting.
func TestMTGoroutines(t *testing.T) {
	base := runtime.NumGoroutine()
	data := genMixed(7, 9*tBlock+5)
	w, err := NewWriter2(io.Discard, Level(1), Threads(4), BlockSize(tBlock))
	if err != nil {
		t.Fatal(err)
	}
	mtWriteAll(t, w, data, 3000)
	if n := runtime.NumGoroutine(); n > base+4 {
		t.Fatalf("%d goroutines while encoding with 4 threads (base %d)", n, base)
	}
	// Reset in the middle drops the blocks in flight.
	if err := w.Reset(io.Discard); err != nil {
		t.Fatal(err)
	}
	goroutinesBack(t, base)
	mtWriteAll(t, w, data, 0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	goroutinesBack(t, base)
}

// TestMTOptions: block mode keeps the options' validation and reports
// the options' dictionary.
func TestMTOptions(t *testing.T) {
	if _, err := NewWriter2(io.Discard, Threads(0)); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("Threads(0): %v", err)
	}
	if _, err := NewWriter2(io.Discard, BlockSize(-1)); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("BlockSize(-1): %v", err)
	}
	w, err := NewWriter2(io.Discard, DictSize(1<<20), Threads(2))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := DictSizeLZMA2(w.DictByte()); d != 1<<20 {
		t.Fatalf("DictByte says %d, want 1 MiB", d)
	}
	w.Close()
	if got := mtBlockSize(&encConfig{blockSize: 1}); got != MinBlockSize {
		t.Fatalf("BlockSize(1) gives %d-byte blocks, want MinBlockSize", got)
	}
	if !strings.Contains(fmt.Sprint(mtBlockSize(&encConfig{blockSize: 1 << 40})), fmt.Sprint(maxBlockBytes)) {
		t.Fatal("a huge BlockSize is not capped")
	}
}

// TestMTAllocs: once the pools are warm, encoding a stream through Reset
// allocates nothing, on one thread or several, and so does each block
// (the stream here has several per slot).
//
// Two checks: testing.AllocsPerRun counts every allocation of the
// process (the idiom of the standard library; it averages, so a rare
// allocation by the runtime itself, such as a new M when ReadMemStats
// restarts the world, does not fail it), and a memory profile that
// counts only allocations made by this module's code: ten streams
// after a GC may allocate no more than one stream after a GC (a GC
// empties the sync.Pools, and the first stream after it refills them).
func TestMTAllocs(t *testing.T) {
	if testing.CoverMode() != "" || testutil.RaceEnabled {
		t.Skip("allocation counts differ under -cover and -race")
	}
	data := genMixed(8, 5*tBlock+100)
	for _, threads := range []int{1, 2, 4} {
		w, err := NewWriter2(io.Discard, Level(1), Threads(threads), BlockSize(tBlock))
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			if err := w.Reset(io.Discard); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(20, run); n != 0 {
			t.Errorf("Threads(%d): %v allocations per stream after warm-up, want 0", threads, n)
		}
		one, twenty := ownAllocs(t, 1, run), ownAllocs(t, 10, run)
		if twenty.objects > one.objects || twenty.bytes > one.bytes {
			t.Errorf("Threads(%d): our code allocated %d objects (%d bytes) in 10 streams after a GC, %d (%d bytes) in one: it allocates per stream or per block",
				threads, twenty.objects, twenty.bytes, one.objects, one.bytes)
		}
	}
}

type allocCount struct{ objects, bytes int64 }

// allocEntry reports whether fn is one of the runtime functions that
// user code calls to allocate.
func allocEntry(fn string) bool {
	for _, p := range []string{"runtime.malloc", "runtime.new", "runtime.make", "runtime.grow",
		"runtime.conv", "runtime.map", "runtime.raw", "runtime.concat", "runtime.slice", "runtime.string"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// ownAllocs runs f n times after a GC and returns what this module's
// non-test code allocated meanwhile: the records of a memory profile
// taken at rate 1 whose allocation (make, new, append, a map insert, a
// conversion to an interface) is in our code. What the runtime and the
// sync package allocate for themselves (sudogs for a blocking channel
// operation, timer heaps, M structures, sync.Pool's chains) warms up per
// P and is not the encoder's.
func ownAllocs(t *testing.T, n int, f func()) allocCount {
	t.Helper()
	defer func(r int) { runtime.MemProfileRate = r }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	before := ownProfile()
	for range n {
		f()
	}
	after := ownProfile()
	return allocCount{after.objects - before.objects, after.bytes - before.bytes}
}

func ownProfile() allocCount {
	// The profile is complete as of the last finished GC cycle.
	runtime.GC()
	runtime.GC()
	recs := make([]runtime.MemProfileRecord, 4096)
	n, ok := runtime.MemProfile(recs, true)
	for !ok {
		recs = make([]runtime.MemProfileRecord, n+1024)
		n, ok = runtime.MemProfile(recs, true)
	}
	var c allocCount
	for _, r := range recs[:n] {
		frames := runtime.CallersFrames(r.Stack())
		for {
			fr, more := frames.Next()
			if allocEntry(fr.Function) && more {
				continue
			}
			if strings.HasPrefix(fr.Function, "github.com/go-unarc/unarc/") && !strings.HasSuffix(fr.File, "_test.go") {
				c.objects += r.AllocObjects
				c.bytes += r.AllocBytes
			}
			break
		}
	}
	return c
}

// TestMTMaxMemory: MaxMemory caps the block mode's memory, all threads
// together, and the estimate covers what an encode really allocates
// from cold pools.
func TestMTMaxMemory(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	opts := []WriterOption{Level(1), Threads(4), BlockSize(1 << 20)}
	var cfg encConfig
	if err := cfg.resolve(opts, true); err != nil {
		t.Fatal(err)
	}
	need := cfg.mtMemory()
	if _, err := NewWriter2(io.Discard, append(opts, MaxMemory(need-1))...); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("MaxMemory(%d) below the %d bytes of 4 threads: %v, want ErrLimit", need-1, need, err)
	}
	// One thread needs a quarter: a limit between passes with Threads(1).
	if _, err := NewWriter2(io.Discard, Level(1), Threads(1), BlockSize(1<<20), MaxMemory(need/2)); err != nil {
		t.Fatalf("one thread under MaxMemory(%d): %v", need/2, err)
	}
	data := genMixed(30, 4<<20)
	pool.Release()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	w, err := NewWriter2(io.Discard, append(opts, MaxMemory(need))...)
	if err != nil {
		t.Fatal(err)
	}
	mtWriteAll(t, w, data, 0)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	t.Logf("4 threads: %d bytes allocated, %d estimated", int64(m1.TotalAlloc-m0.TotalAlloc), need)
	if got := int64(m1.TotalAlloc - m0.TotalAlloc); got > need {
		t.Fatalf("4 threads allocated %d bytes from cold pools, above the %d the limit check assumes", got, need)
	}
}

// TestMTKnownSize: the block mode holds the caller to KnownSize as the
// one-stream Writer2 does: more bytes fail the Write (or ReadFrom) that
// brings them, fewer fail Close.
func TestMTKnownSize(t *testing.T) {
	data := genMixed(31, 3*tBlock+9)
	n := int64(len(data))
	opts := []WriterOption{Level(1), Threads(2), BlockSize(tBlock)}
	packed, db := mtEncode(t, data, 1000, append(opts, KnownSize(n))...)
	if !bytes.Equal(mtDecode(t, packed, db), data) {
		t.Fatal("round trip with KnownSize differs")
	}
	w, err := NewWriter2(io.Discard, append(opts, KnownSize(n-1))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("Write past KnownSize: %v", err)
	}
	if err := w.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("Close after writing past KnownSize: %v", err)
	}
	if err := w.Reset(io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data)); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("ReadFrom past KnownSize: %v", err)
	}
	w.Close()
	w, err = NewWriter2(io.Discard, append(opts, KnownSize(n+1))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, errs.ErrInvalidOption) {
		t.Fatalf("Close short of KnownSize: %v", err)
	}
}

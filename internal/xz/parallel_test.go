package xz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/iotest"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// mtdir holds the multi-block streams of testdata/mt/make.sh.
var mtdir = filepath.Join("testdata", "mt")

func readMT(tb testutil.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(mtdir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mtResult is one decoding: its output, its error (nil at the end), and
// the blocks decoded on workers.
type mtResult struct {
	out     []byte
	err     error
	decoded int
}

// decodeWays decodes b with opts through Read (7-byte reads over a
// one-byte-at-a-time source) when read is set, else through WriteTo,
// at most limit bytes (0: no limit).
func decodeWays(b []byte, read bool, limit int, opts ...Option) mtResult {
	var src io.Reader = bytes.NewReader(b)
	if read {
		src = iotest.OneByteReader(src)
	}
	z, err := NewReader(src, opts...)
	if err != nil {
		return mtResult{err: err}
	}
	defer z.Close()
	var r mtResult
	var buf bytes.Buffer
	if read {
		p := make([]byte, 7)
		for limit == 0 || buf.Len() < limit {
			n, err := z.Read(p)
			buf.Write(p[:n])
			if err != nil {
				if err != io.EOF {
					r.err = err
				}
				break
			}
		}
	} else {
		var w io.Writer = &buf
		if limit > 0 {
			w = &testutil.LimitWriter{W: &buf, N: limit}
		}
		_, r.err = z.WriteTo(w)
		if errors.Is(r.err, testutil.ErrLimitWriter) {
			r.err = nil
		}
	}
	r.out = buf.Bytes()
	if limit > 0 && len(r.out) > limit {
		r.out = r.out[:limit]
	}
	if z.mt != nil {
		r.decoded = z.mt.decoded
	}
	return r
}

// sameResult fails t unless a parallel decoding gave the serial one's
// output and error (text and class).
func sameResult(t testutil.TB, what string, serial, par mtResult) {
	t.Helper()
	if !bytes.Equal(serial.out, par.out) {
		t.Fatalf("%s: parallel output %d bytes, serial %d (first difference at %d)", what, len(par.out), len(serial.out), firstDiff(par.out, serial.out))
	}
	if (serial.err == nil) != (par.err == nil) || serial.err != nil && serial.err.Error() != par.err.Error() {
		t.Fatalf("%s: parallel error %v, serial %v", what, par.err, serial.err)
	}
	for _, c := range []error{errs.ErrFormat, errs.ErrCorrupt, errs.ErrTruncated, errs.ErrChecksum, errs.ErrUnsupported, errs.ErrLimit} {
		if errors.Is(serial.err, c) != errors.Is(par.err, c) {
			t.Fatalf("%s: parallel error %v, serial %v: not the same class", what, par.err, serial.err)
		}
	}
}

// TestParallelFiles: every multi-block stream of testdata/mt (and every
// file of testdata/xz) decodes with 2 and 3 workers to what one worker
// gives, through Read and WriteTo; xz -T2's blocks go to the workers,
// xz -T1's (no sizes in their headers) do not; and all of testdata/mt
// holds the same data.
func TestParallelFiles(t *testing.T) {
	want := decodeWays(readMT(t, "t1-blocks.xz"), false, 0)
	if want.err != nil || len(want.out) == 0 {
		t.Fatalf("t1-blocks.xz: %d bytes, %v", len(want.out), want.err)
	}
	paths := append(testutil.Glob(t, filepath.Join(mtdir, "*.xz")), testutil.Glob(t, filepath.Join(testdir, "*.xz"))...)
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			serial := decodeWays(b, false, 0)
			if serial.err != nil {
				t.Fatal(serial.err)
			}
			if filepath.Dir(path) == mtdir {
				w := want.out
				if name == "concat.xz" {
					w = bytes.Repeat(w, 3)
				}
				if !bytes.Equal(serial.out, w) {
					t.Fatalf("decodes to %d bytes, want %d", len(serial.out), len(w))
				}
			}
			for _, n := range []int{2, 3} {
				for _, read := range []bool{false, true} {
					par := decodeWays(b, read, 0, Workers(n))
					sameResult(t, fmt.Sprintf("Workers(%d) read=%v", n, read), serial, par)
					switch {
					case name == "t1-blocks.xz" && par.decoded != 0:
						t.Fatalf("%d blocks without sizes decoded on workers", par.decoded)
					case filepath.Dir(path) == mtdir && name != "t1-blocks.xz" && par.decoded < 3:
						t.Fatalf("only %d blocks decoded on workers", par.decoded)
					}
				}
			}
		})
	}
}

// TestParallelDamage: a stream damaged anywhere (a flipped byte in a
// header, a block's data, its check, the index, the footer) or cut
// anywhere decodes with workers to the output and the error (text and
// class) of one worker.
func TestParallelDamage(t *testing.T) {
	for _, name := range []string{"t2-crc64.xz", "t2-crc32-x86.xz", "t2-sha256-delta.xz", "t2-none.xz", "t2-list.xz", "concat.xz"} {
		b := readMT(t, name)
		t.Run(name, func(t *testing.T) {
			step := 29
			if testing.Short() {
				step = 97
			}
			try := func(what string, d []byte) {
				serial := decodeWays(d, false, 0)
				sameResult(t, what, serial, decodeWays(d, false, 0, Workers(2)))
				sameResult(t, what+" (Read)", serial, decodeWays(d, true, 0, Workers(3)))
			}
			d := make([]byte, len(b))
			for off := 0; off < len(b); off += step {
				copy(d, b)
				d[off] ^= 0x55
				try(fmt.Sprintf("byte %d flipped", off), d)
			}
			for off := max(len(b)-80, 0); off < len(b); off++ { // index and footer
				copy(d, b)
				d[off] ^= 0x01
				try(fmt.Sprintf("byte %d flipped", off), d)
			}
			for n := 0; n < len(b); n += step {
				try(fmt.Sprintf("cut at %d", n), b[:n])
			}
			// A read error inside a block read ahead.
			for _, n := range []int{len(b) / 3, len(b) / 2} {
				src := io.MultiReader(bytes.NewReader(b[:n]), iotest.ErrReader(errBoom))
				z, err := NewReader(src, Workers(2))
				if err != nil {
					t.Fatal(err)
				}
				_, err = io.Copy(io.Discard, z)
				z.Close()
				if !errors.Is(err, errBoom) {
					t.Fatalf("read error at %d: got %v", n, err)
				}
			}
		})
	}
}

var errBoom = errors.New("boom")

// mtStream makes a stream of n blocks of size bytes each with xz -T2
// (skips without xz).
func mtStream(t testutil.TB, blocks, size int) (data, xzData []byte) {
	data = codeLike(7, blocks*size)
	return data, compress(t, data, "xz", "-T2", fmt.Sprintf("--block-size=%d", size), "-6", "-c", "{in}")
}

// goroutinesBack waits until the goroutine count is back to base.
func goroutinesBack(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestParallelClose: Close in the middle of a stream (blocks in flight)
// stops the workers and returns the buffers; the reader then fails with
// ErrClosed, and decodes again after Reset. Run it with -race.
func TestParallelClose(t *testing.T) {
	data, b := mtStream(t, 8, 256<<10)
	base := runtime.NumGoroutine()
	z, err := NewReader(bytes.NewReader(b), Workers(3))
	if err != nil {
		t.Fatal(err)
	}
	for _, stop := range []int{1, 100 << 10, 700 << 10, len(data) - 1} {
		if err := z.Reset(bytes.NewReader(b), Workers(3)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, stop)
		if _, err := io.ReadFull(z, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[:stop]) {
			t.Fatalf("first %d bytes differ", stop)
		}
		if z.mt == nil || !z.mt.running {
			t.Fatal("no workers running")
		}
		z.Close()
		goroutinesBack(t, base)
		if _, err := z.Read(got[:1]); err != ErrClosed {
			t.Fatalf("Read after Close: %v", err)
		}
	}
	// Reset in the middle of a stream drops the queue, keeps the workers.
	z.Reset(bytes.NewReader(b), Workers(2))
	io.ReadFull(z, make([]byte, 1000))
	z.Reset(bytes.NewReader(b), Workers(2))
	var out bytes.Buffer
	if _, err := z.WriteTo(&out); err != nil || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("after Reset: %d bytes, %v", out.Len(), err)
	}
	if z.mt.decoded != 8 {
		t.Fatalf("%d blocks on workers, want 8", z.mt.decoded)
	}
	z.Close()
	goroutinesBack(t, base)
}

// TestParallelMemory: MaxMemory bounds the blocks in flight, and a
// block of which two do not fit is decoded serially.
func TestParallelMemory(t *testing.T) {
	data, b := mtStream(t, 6, 128<<10)
	for _, tc := range []struct {
		maxMem  int64
		workers bool
	}{
		{0, true}, {8 << 20, true}, {1 << 20, true}, {400 << 10, false},
	} {
		z, err := NewReader(bytes.NewReader(b), Workers(4), MaxMemory(tc.maxMem))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		peak := int64(0)
		p := make([]byte, 16<<10)
		for {
			n, err := z.Read(p)
			out.Write(p[:n])
			if z.mt != nil {
				peak = max(peak, z.mt.inflight)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("MaxMemory %d: output differs", tc.maxMem)
		}
		if tc.maxMem > 0 && peak > tc.maxMem {
			t.Fatalf("MaxMemory %d: %d bytes in flight", tc.maxMem, peak)
		}
		if got := z.mt.decoded > 0; got != tc.workers {
			t.Fatalf("MaxMemory %d: %d blocks on workers", tc.maxMem, z.mt.decoded)
		}
		z.Close()
	}
}

// TestParallelAllocs: a warm reader decodes a multi-block stream on its
// workers with no allocation, through WriteTo and through Read.
func TestParallelAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	buf := make([]byte, 4096)
	for _, name := range []string{"t2-crc64.xz", "t2-sha256-delta.xz", "concat.xz"} {
		b := readMT(t, name)
		src := bytes.NewReader(b)
		z := new(Reader)
		run := func(useRead bool) {
			src.Reset(b)
			if err := z.Reset(src, Workers(2)); err != nil {
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
		if z.mt.decoded == 0 {
			t.Errorf("%s: no block on the workers", name)
		}
		z.Close()
	}
}

// TestWorkersOption: a negative Workers fails; ResetAt is serial.
func TestWorkersOption(t *testing.T) {
	if _, err := NewReader(bytes.NewReader(nil), Workers(-1)); err == nil {
		t.Fatal("Workers(-1) accepted")
	}
}

package zstdframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// windowFrame is a hostile frame in the spirit of issue 30's 41 bytes:
// window descriptor wd (21<<3 is 2 GiB), content size fcs when fcs >= 0
// (8-byte field), then a raw block of body and a last RLE block of rle
// bytes 'x'.
func windowFrame(wd byte, fcs int64, body []byte, rle int) []byte {
	fhd := byte(0)
	if fcs >= 0 {
		fhd |= 3 << 6
	}
	b := binary.LittleEndian.AppendUint32(nil, Magic)
	b = append(b, fhd, wd)
	if fcs >= 0 {
		b = binary.LittleEndian.AppendUint64(b, uint64(fcs))
	}
	bh := uint32(len(body))<<3 | blockRaw<<1
	b = append(b, byte(bh), byte(bh>>8), byte(bh>>16))
	b = append(b, body...)
	bh = uint32(rle)<<3 | blockRLE<<1 | 1
	return append(b, byte(bh), byte(bh>>8), byte(bh>>16), 'x')
}

// decodeBounded decodes src through a continuous Reader held to b, with
// a decoder that allows any window, and reports the output, the error
// and the bytes allocated meanwhile.
func decodeBounded(t *testing.T, src []byte, b Bound) ([]byte, uint64, error) {
	t.Helper()
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(1<<41), zstd.WithDecoderMaxMemory(1<<41))
	if err != nil {
		t.Fatal(err)
	}
	defer zd.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var fr Reader
	fr.SetBound(b)
	fr.SetContinuous(true)
	fr.Reset(bytes.NewReader(src), false)
	var out []byte
	if err = zd.Reset(&fr); err == nil {
		out, err = io.ReadAll(zd)
	}
	if fe := fr.Err(); fe != nil {
		err = fe
	}
	runtime.ReadMemStats(&ms)
	return out, ms.TotalAlloc - before, err
}

// TestBoundWindow: a frame's window is refused or lowered before the
// decoder allocates it (issue 30: a 41-byte frame declaring 2 GiB made
// klauspost allocate 2 GiB, twice). Lowered windows decode the same.
func TestBoundWindow(t *testing.T) {
	const gib2 = 21 << 3 // window descriptor of 2 GiB
	body := []byte("hello, window")
	small := windowFrame(gib2, -1, body, 1000)
	want := append(append([]byte{}, body...), bytes.Repeat([]byte("x"), 1000)...)
	withFCS := windowFrame(gib2, int64(len(want)), body, 1000)
	lying := windowFrame(gib2, 3<<30, body, 1000)
	cli := Bound{MaxWindow: 4 << 30, MaxRatio: 500, RatioFloor: 16 << 20}
	long := rawFrame(gib2, 3, 100<<10)
	for _, c := range []struct {
		name    string
		src     []byte
		b       Bound
		wantErr error
	}{
		{"no bound known size", small, Bound{Size: int64(len(small))}, nil},
		{"no bound unknown size", small, Bound{Size: -1}, nil},
		{"content size, no size", withFCS, Bound{Size: -1, MaxWindow: 1 << 41}, nil},
		{"above MaxWindow", small, Bound{MaxWindow: 1 << 30, Size: -1}, errs.ErrLimit},
		{"ratio, known size", small, withSize(cli, len(small)), errs.ErrLimit},
		{"ratio, read ahead", small, withSize(cli, -1), errs.ErrLimit},
		{"content size above what the bytes hold", lying, Bound{Size: int64(len(lying))}, errs.ErrCorrupt},
		{"lifted ratio", small, Bound{MaxWindow: 4 << 30, MaxRatio: math.Inf(1), Size: -1}, nil},
		// 300 KiB: more than the input bound reads ahead, less than 2 GiB
		// needs at MaxRatio 500; read forward, it is judged as a file.
		{"ratio, long, known size", long, withSize(cli, len(long)), errs.ErrLimit},
		{"ratio, long, read ahead", long, withSize(cli, -1), errs.ErrLimit},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, alloc, err := decodeBounded(t, c.src, c.b)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
			} else if err != nil || !bytes.Equal(out, want) {
				t.Fatalf("err %v, output %q", err, out)
			}
			if alloc > 16<<20 {
				t.Errorf("%d bytes allocated for a %d-byte frame", alloc, len(c.src))
			}
		})
	}
}

// rawFrame is a frame with window descriptor wd and n raw blocks of
// size bytes each.
func rawFrame(wd byte, n, size int) []byte {
	src := binary.LittleEndian.AppendUint32(nil, Magic)
	src = append(src, 0, wd)
	body := bytes.Repeat([]byte{'r'}, size)
	for i := range n {
		bh := uint32(size)<<3 | blockRaw<<1
		if i == n-1 {
			bh |= 1
		}
		src = append(src, byte(bh), byte(bh>>8), byte(bh>>16))
		src = append(src, body...)
	}
	return src
}

func withSize(b Bound, n int) Bound {
	b.Size = int64(n)
	return b
}

// TestBoundRealStreams: the tightest bound (the input's exact size, the
// CLI's ratio) leaves real streams' output unchanged, read at once or
// through a Stream frame by frame.
func TestBoundRealStreams(t *testing.T) {
	for _, name := range realStreams {
		src := readStream(t, name)
		zd := newDecoder(t)
		want, err := zd.DecodeAll(src, nil)
		zd.Close()
		if err != nil {
			t.Fatal(name, err)
		}
		for _, size := range []int64{int64(len(src)), -1} {
			out, _, err := decodeBounded(t, src, Bound{MaxWindow: 64 << 20, MaxRatio: 500, RatioFloor: 1 << 10, Size: size})
			if err != nil || !bytes.Equal(out, want) {
				t.Errorf("%s, size %d: err %v, %d bytes, want %d", name, size, err, len(out), len(want))
			}
		}
	}
}

// TestLowerWindow: lower picks the smallest descriptor holding the want.
func TestLowerWindow(t *testing.T) {
	for _, want := range []uint64{1, 1 << 10, 1<<10 + 1, 128 << 10, 1000000, 3 << 29} {
		var r Reader
		r.hdr[5] = 255
		r.head.Window = windowOf(255)
		r.lower(want)
		w := windowOf(r.hdr[5])
		if w < want || w != r.head.Window || (r.hdr[5] > 0 && windowOf(r.hdr[5]-1) >= want) {
			t.Errorf("want %d: descriptor %d, window %d", want, r.hdr[5], w)
		}
	}
}

// FuzzBound: holding frames to a Bound (the input's size known or
// learnt by reading ahead) never changes what a stream decodes to: on
// any input that klauspost decodes whole with a 64 MiB window, decoding
// through a bounded Reader gives the same bytes, and on any other input
// it fails without a panic. Seeded with the real streams and hostile
// windows.
func FuzzBound(f *testing.F) {
	for _, name := range realStreams {
		if b := readStream(f, name); len(b) < 20<<10 {
			f.Add(b)
		}
	}
	f.Add(windowFrame(21<<3, -1, []byte("text"), 100))
	f.Add(windowFrame(16<<3, 300, []byte("text"), 296))
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		zd := newDecoder(t)
		want, werr := zd.DecodeAll(b, nil)
		zd.Close()
		for _, size := range []int64{int64(len(b)), -1} {
			got, _, err := decodeBounded(t, b, Bound{MaxWindow: 64 << 20, Size: size})
			if werr == nil && (err != nil || !bytes.Equal(got, want)) {
				t.Fatalf("size %d: %d bytes, %v; DecodeAll %d bytes", size, len(got), err, len(want))
			}
		}
	})
}

// TestBoundTotal: a window above MaxTotalSize is lowered to it, not
// refused (output past it is refused anyway): a frame declaring 2 GiB
// with 200 KiB of raw blocks (enough bytes to fill 2 GiB, so the input
// does not lower it) decodes under MaxTotalSize 1 MiB without the 2 GiB.
func TestBoundTotal(t *testing.T) {
	src := rawFrame(21<<3, 2, 100<<10)
	lim := conf.MustLimits(arc.Limits{MaxTotalSize: 1 << 20})
	b := BoundOf(&lim, int64(len(src)), 0)
	out, alloc, err := decodeBounded(t, src, b)
	if err != nil || !bytes.Equal(out, bytes.Repeat([]byte{'r'}, 200<<10)) {
		t.Fatalf("err %v, %d bytes", err, len(out))
	}
	if alloc > 16<<20 {
		t.Errorf("%d bytes allocated", alloc)
	}
}

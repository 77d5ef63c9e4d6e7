package zip

import (
	stdzip "archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
	"github.com/go-unarc/unarc/internal/zipcrypto"
)

// framesWriter is a method-93 compressor that ends a zstd frame every
// `every` bytes of input and puts a skippable frame (pzstd's kind:
// 4 bytes of data) before every third one.
type framesWriter struct {
	w      io.Writer
	enc    *zstd.Encoder
	every  int
	n      int
	frames int
}

func (f *framesWriter) Write(p []byte) (int, error) {
	done := 0
	for len(p) > 0 {
		if f.every > 0 && f.n == f.every {
			if err := f.enc.Close(); err != nil {
				return done, err
			}
			f.frames++
			if f.frames%3 == 0 {
				var skip [12]byte
				binary.LittleEndian.PutUint32(skip[:], 0x184D2A5E)
				binary.LittleEndian.PutUint32(skip[4:], 4)
				if _, err := f.w.Write(skip[:]); err != nil {
					return done, err
				}
			}
			f.enc.Reset(f.w)
			f.n = 0
		}
		k := len(p)
		if f.every > 0 {
			k = min(k, f.every-f.n)
		}
		m, err := f.enc.Write(p[:k])
		done += m
		f.n += m
		if err != nil {
			return done, err
		}
		p = p[k:]
	}
	return done, nil
}

func (f *framesWriter) Close() error { return f.enc.Close() }

// zstdWords is words.txt of the zstd checkpoint archives: 300 KB of
// numbered rows.
func zstdWords() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 300<<10; i++ {
		fmt.Fprintf(&b, "row %06d %x\n", i/3, i*2654435761%99991)
	}
	return b.Bytes()
}

var zstdZips sync.Map // zstdZipKey -> []byte

type zstdZipKey struct {
	every int
	pw    string
}

// zcWriter enciphers with ZipCrypto keys behind the 12-byte header,
// written first (archive/zip makes the compressor before it writes the
// local header).
type zcWriter struct {
	w    io.Writer
	k    zipcrypto.Keys
	head bool
}

func (z *zcWriter) Write(p []byte) (int, error) {
	if !z.head {
		z.head = true
		h := []byte("some random\x00") // the check byte: the DOS time's high byte
		z.k.Encrypt(h)
		if _, err := z.w.Write(h); err != nil {
			return 0, err
		}
	}
	b := bytes.Clone(p)
	z.k.Encrypt(b)
	return z.w.Write(b)
}

// zstdFramesZip is a ZIP of words.txt and a.txt, both method 93, words.txt
// in frames of `every` bytes of input (0: one frame); with pw, both are
// ZipCrypto-encrypted (archive/zip writes a data descriptor, so the
// header's check byte is the DOS time's high byte, 0 here).
func zstdFramesZip(t testutil.TB, every int, pw string) []byte {
	key := zstdZipKey{every, pw}
	if b, ok := zstdZips.Load(key); ok {
		return b.([]byte)
	}
	var buf bytes.Buffer
	w := stdzip.NewWriter(&buf)
	w.RegisterCompressor(methodZstd, func(out io.Writer) (io.WriteCloser, error) {
		if pw != "" {
			zw := &zcWriter{w: out}
			zw.k.Init(pw)
			out = zw
		}
		enc, err := zstd.NewWriter(out, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(1<<20))
		return &framesWriter{w: out, enc: enc, every: every}, err
	})
	for _, e := range []struct {
		name string
		data []byte
	}{{"words.txt", zstdWords()}, {"a.txt", []byte("a small second entry\n")}} {
		fh := &stdzip.FileHeader{Name: e.name, Method: methodZstd}
		if pw != "" {
			fh.Flags |= 1
		}
		fw, err := w.CreateHeader(fh)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zstdZips.Store(key, buf.Bytes())
	return buf.Bytes()
}

// TestZstdCheckpointDecodesLess: a read after the first pass starts at a
// frame boundary at or before it and decodes no more than the rest of
// that frame (counted: the bytes read from the resumed reader), while a
// single-frame entry has no checkpoint and restarts from its start.
func TestZstdCheckpointDecodesLess(t *testing.T) {
	pol := engine.CheckpointPolicy{Interval: 64 << 10, MaxMemory: 1 << 20}
	for _, every := range []int{40 << 10, 0} {
		b := zstdFramesZip(t, every, "")
		a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		a.caps().SetCheckpoints(pol)
		i := entryNamed(t, a, "words.txt")
		want := readAllAt(t, a, i)
		st := a.caps().CheckpointStats()
		if every == 0 {
			if st.Count != 0 {
				t.Fatalf("single frame: %+v", st)
			}
		} else if int64(st.Count) < int64(len(want))/pol.Interval-1 {
			t.Fatalf("frames of %d: %+v", every, st)
		}
		for _, cp := range a.cps.Snapshot() {
			if cp.Out%int64(every) != 0 || cp.Kind != "zstd" {
				t.Fatalf("checkpoint at %d, not at a frame boundary (frames of %d)", cp.Out, every)
			}
			if in := cpInByte(cp); !bytes.Contains(b, []byte("\x28\xb5\x2f\xfd")) || in <= 0 {
				t.Fatalf("checkpoint input offset %d", in)
			}
		}
		offs := []int64{int64(len(want)) - 1, 100000, 70000, 5}
		if testing.Short() {
			offs = offs[:2]
		}
		for _, off := range offs {
			rc, start, err := a.caps().OpenAt(i, off)
			if err != nil {
				t.Fatal(err)
			}
			if every == 0 && start != 0 || every > 0 && off >= pol.Interval && (start > off || off-start > int64(every)+pol.Interval) {
				t.Fatalf("frames of %d: a read at %d starts at %d", every, off, start)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, want[start:]) {
				t.Fatalf("frames of %d: from %d: %v", every, start, err)
			}
		}
	}
}

// TestZstdCheckpointRandom: ReadAt at many offsets gives the plain bytes,
// through the frames of a multi-frame entry and the single-frame one.
func TestZstdCheckpointRandom(t *testing.T) {
	everys := []int{40 << 10, 7 << 10, 0}
	if testing.Short() {
		everys = everys[:1] // -short: the frames the kind tests read too
	}
	for _, every := range everys {
		b := zstdFramesZip(t, every, "")
		a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(&arc.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 16 << 10, MaxMemory: 1 << 20})
		i := entryNamed(t, a, "words.txt")
		want := readAllAt(t, a, i)
		for k := 0; k < cpReads(); k++ {
			off := int64(k*7919*31) % int64(len(want))
			got, start, err := testutil.ReadAt(engineView(a), i, off, 3000)
			if err != nil || !bytes.Equal(got, want[off:min(off+3000, int64(len(want)))]) {
				t.Fatalf("frames of %d: at %d (from %d): %v", every, off, start, err)
			}
		}
	}
}

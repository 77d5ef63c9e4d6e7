package zstdframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// realStreams are zstd streams made by the zstd CLI (testdata/tar):
// eight frames with a skippable one (seek.tar.zst), several frames
// (small-frames.tar.zst), one frame with and without a checksum.
var realStreams = []string{"seek.tar.zst", "small-frames.tar.zst", "small.tar.zst", "text.txt.zst", "text-nocheck.txt.zst"}

func readStream(t testutil.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tar", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newDecoder(t testutil.TB) *zstd.Decoder {
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20), zstd.WithDecoderMaxWindow(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	return zd
}

// point is a checkpoint a Stream took.
type point struct{ out, in int64 }

// decodeFrames decodes b through a Stream with a pause at every frame
// boundary and returns the output and the boundaries.
func decodeFrames(zd *zstd.Decoder, b []byte, bufLen int) ([]byte, []point, error) {
	var s Stream
	s.PauseAt(1)
	if err := s.Reset(zd, bytes.NewReader(b), 0, 0, nil); err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	var pts []point
	buf := make([]byte, bufLen)
	for {
		n, err := s.Read(buf)
		out.Write(buf[:n])
		if s.CanCheckpoint() {
			st, o, in := s.Checkpoint(nil)
			if len(st) != s.CheckpointSize() || o != int64(out.Len()) || o != s.Total() {
				return nil, nil, errors.New("checkpoint disagrees with the output")
			}
			if len(pts) == 0 || pts[len(pts)-1].in != in {
				pts = append(pts, point{o, in})
			}
		}
		if err == io.EOF {
			return out.Bytes(), pts, nil
		}
		if err != nil {
			return out.Bytes(), pts, err
		}
	}
}

// TestStreamFrames: decoding frame by frame gives klauspost's output;
// every boundary is at a frame's magic, and decoding from it (a fresh
// decoder, as a restore does) gives the rest of the output.
func TestStreamFrames(t *testing.T) {
	zd := newDecoder(t)
	defer zd.Close()
	for _, name := range realStreams {
		b := readStream(t, name)
		want, err := zd.DecodeAll(b, nil)
		if err != nil {
			t.Fatal(name, err)
		}
		for _, bufLen := range []int{1, 1000, 1 << 20} {
			if bufLen == 1 && len(want) > 100<<10 {
				continue
			}
			got, pts, err := decodeFrames(zd, b, bufLen)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s (reads of %d): %v", name, bufLen, err)
			}
			frames := bytes.Count(b, []byte("\x28\xb5\x2f\xfd"))
			if len(pts) != frames-1 {
				t.Fatalf("%s: %d boundaries, %d frames", name, len(pts), frames)
			}
			for _, p := range pts {
				if binary.LittleEndian.Uint32(b[p.in:]) != Magic {
					t.Fatalf("%s: boundary at %d is not a frame", name, p.in)
				}
				var s Stream
				if err := s.Reset(zd, bytes.NewReader(b[p.in:]), p.in, p.out, []byte{stateVersion}); err != nil {
					t.Fatal(err)
				}
				rest, err := io.ReadAll(&s)
				if err != nil || !bytes.Equal(rest, want[p.out:]) || s.Total() != int64(len(want)) {
					t.Fatalf("%s: from %d/%d: %v", name, p.out, p.in, err)
				}
			}
		}
	}
}

// TestStreamResumeChecked: a resume at an offset that is not a frame's
// magic, or with a state of another version, is ErrCorrupt.
func TestStreamResumeChecked(t *testing.T) {
	zd := newDecoder(t)
	defer zd.Close()
	b := readStream(t, "seek.tar.zst")
	_, pts, err := decodeFrames(zd, b, 4096)
	if err != nil || len(pts) == 0 {
		t.Fatal(len(pts), err)
	}
	p := pts[len(pts)/2]
	for _, tc := range []struct {
		at    int64
		state []byte
	}{{p.in + 1, []byte{stateVersion}}, {p.in - 1, []byte{stateVersion}}, {p.in, []byte{2}}, {p.in, []byte{1, 0}},
		{int64(bytes.Index(b, []byte("\x50\x2a\x4d\x18"))), []byte{stateVersion}}, {int64(len(b)), []byte{stateVersion}}} {
		var s Stream
		err := s.Reset(zd, bytes.NewReader(b[tc.at:]), tc.at, p.out, tc.state)
		if err == nil {
			_, err = io.ReadAll(&s)
		}
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("resume at %d with state %x: %v", tc.at, tc.state, err)
		}
	}
}

// TestReaderTruncated: every prefix of a stream that does not end
// between two frames (where klauspost decodes it whole) is ErrTruncated
// (io.ErrUnexpectedEOF).
func TestReaderTruncated(t *testing.T) {
	b := readStream(t, "small-frames.tar.zst") // it starts with a skippable frame
	zd := newDecoder(t)
	defer zd.Close()
	step := 1
	if testutil.Short() {
		step = 7
	}
	ends := 0
	for n := 0; n < len(b); n += step {
		_, _, err := decodeFrames(zd, b[:n], 512)
		if _, whole := zd.DecodeAll(b[:n], nil); whole == nil {
			ends++
			if err != nil {
				t.Fatalf("prefix %d (a frame boundary): %v", n, err)
			}
		} else if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("prefix %d of %d: %v", n, len(b), err)
		}
	}
	if ends < 2 && step == 1 {
		t.Fatalf("%d prefixes end between frames", ends)
	}
}

// TestReaderCorrupt: framing errors are ErrCorrupt.
func TestReaderCorrupt(t *testing.T) {
	b := readStream(t, "text.txt.zst")
	h, err := ParseHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	blk := h.Len // the first block header
	for _, tc := range []struct {
		name string
		mod  func([]byte)
	}{
		{"reserved bit", func(b []byte) { b[4] |= fhdReserved }},
		{"reserved block type", func(b []byte) { b[blk] |= 6 }},
		{"block above 128 KiB", func(b []byte) { b[blk+2] = 0x80 }},
		{"magic", func(b []byte) { b[0] ^= 1 }},
		{"garbage after the frame", func(b []byte) {}},
	} {
		bad := bytes.Clone(b)
		tc.mod(bad)
		if tc.name == "garbage after the frame" {
			bad = append(bad, "garbage"...)
		}
		zd := newDecoder(t)
		_, _, err := decodeFrames(zd, bad, 4096)
		zd.Close()
		if !errors.Is(err, errs.ErrCorrupt) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestParseHeader: the fields of a hand-made header, each size of each
// field.
func TestParseHeader(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		want Header
	}{
		// Window descriptor 0x00: 1 KiB; no dictionary, no size.
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00}, Header{Len: 6, Window: 1 << 10, ContentSize: Unknown}},
		// Exponent 3, mantissa 5: 8 KiB + 5 KiB; dictionary id of 2 bytes; checksum.
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0x06, 0x1d, 0x34, 0x12}, Header{Len: 8, Window: 13 << 10, DictID: 0x1234, ContentSize: Unknown, Checksum: true}},
		// Single segment, size of 1 byte (the window at least 1 KiB).
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05}, Header{Len: 6, Window: 1 << 10, ContentSize: 5}},
		// Size of 2 bytes: plus 256; dictionary id of 1 byte.
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0x61, 0x07, 0x00, 0x10}, Header{Len: 8, Window: 1<<10 + 0x1000 + 256 - 1<<10, DictID: 7, ContentSize: 0x1000 + 256}},
		// Size of 8 bytes, dictionary id of 4.
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0xe3, 1, 2, 3, 4, 0, 0, 0, 0, 1, 0, 0, 0}, Header{Len: 17, Window: 1 << 32, DictID: 0x04030201, ContentSize: 1 << 32}},
	} {
		if got, err := ParseHeader(tc.b); err != nil || got != tc.want {
			t.Errorf("% x: %+v, %v; want %+v", tc.b, got, err, tc.want)
		}
		if HeaderLen(tc.b[4]) != len(tc.b) {
			t.Errorf("% x: length %d", tc.b, HeaderLen(tc.b[4]))
		}
	}
}

// FuzzReader: the walker never panics or hangs; what it hands on is
// the input without its skippable frames; and on any input klauspost's
// decoder decodes whole (in one go, DecodeAll), decoding frame by frame
// gives the same bytes without an error, with every boundary at a
// frame's magic. Seeded with the real streams.
func FuzzReader(f *testing.F) {
	for _, name := range realStreams {
		if b := readStream(f, name); len(b) < 20<<10 {
			f.Add(b)
		}
	}
	f.Add([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'h', 'i', 0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x01, 0x01, 0, 0, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		var r Reader
		r.Reset(bytes.NewReader(b), false)
		var passed bytes.Buffer
		for {
			_, err := io.Copy(&passed, &r)
			if err == nil && r.Stopped() {
				r.Resume()
				continue
			}
			if err != nil && !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("walker error %v", err)
			}
			break
		}
		if r.Offset() > int64(len(b)) || passed.Len() > len(b) {
			t.Fatalf("passed %d, offset %d of %d bytes", passed.Len(), r.Offset(), len(b))
		}
		zd := newDecoder(t)
		defer zd.Close()
		want, err := zd.DecodeAll(b, nil)
		if err != nil {
			return
		}
		got, pts, err := decodeFrames(zd, b, 777)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("frame by frame: %d bytes, %v; DecodeAll %d bytes", len(got), err, len(want))
		}
		for _, p := range pts {
			if binary.LittleEndian.Uint32(b[p.in:]) != Magic {
				t.Fatalf("boundary at %d is not a frame", p.in)
			}
		}
	})
}

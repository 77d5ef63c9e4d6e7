package ppmd

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// cpFuzzStream is a stream the restore fuzzer resumes: its packed bytes,
// how to decode it from the start and how to resume it from a state.
type cpFuzzStream struct {
	packed []byte
	open   func(r io.Reader) (cpDecoder, func(), error)
	resume func(r io.Reader, st []byte, out, in int64) (io.Reader, func(), error)
}

func cpFuzzStreams(t testing.TB) []cpFuzzStream {
	var streams []cpFuzzStream
	for _, fa := range loadFacts(t, "7z") {
		if fa.Mem > 1<<20 {
			continue
		}
		streams = append(streams, cpFuzzStream{packed7z(t, fa.Archive),
			func(r io.Reader) (cpDecoder, func(), error) {
				z, err := NewReader7z(r, fa.Order, fa.Mem, fa.Size)
				if err != nil {
					return nil, func() {}, err
				}
				return z, func() { z.Close() }, nil
			},
			func(r io.Reader, st []byte, out, in int64) (io.Reader, func(), error) {
				z := new(Reader7z)
				err := z.ResetAt7z(r, fa.Order, fa.Mem, fa.Size, st, out, in)
				return z.Guarded(), func() { z.Close() }, err
			}})
	}
	for _, name := range []string{"ppmd-o2-mem1m.zip", "ppmd-cutoff.zip", "ppmd-o16.zip"} {
		e := ppmdEntries(t, zipTestdata(name))[0]
		streams = append(streams, cpFuzzStream{e.Packed,
			func(r io.Reader) (cpDecoder, func(), error) {
				z, err := NewReaderZip(r, e.Size, 0)
				if err != nil {
					return nil, func() {}, err
				}
				return z, func() { z.Close() }, nil
			},
			func(r io.Reader, st []byte, out, in int64) (io.Reader, func(), error) {
				z := new(ReaderZip)
				err := z.ResetAt(r, zipHdr(e), e.Size, 1<<20, st, out, in)
				return z.Guarded(), func() { z.Close() }, err
			}})
	}
	if len(streams) < 4 {
		t.Fatalf("%d streams", len(streams))
	}
	return streams
}

// earlyState decodes s to at least at bytes and returns a checkpoint
// there.
func earlyState(t testing.TB, s cpFuzzStream, at int) ([]byte, int64, int64) {
	t.Helper()
	z, done, err := s.open(bytes.NewReader(s.packed))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	buf := make([]byte, 100)
	for n := 0; n < at; {
		m, err := z.Read(buf)
		n += m
		if err != nil {
			t.Fatal(err)
		}
	}
	if !z.CanCheckpoint() {
		t.Fatal("no checkpoint")
	}
	return z.Checkpoint(nil)
}

// FuzzCheckpointRestore restores mutated model states, taken early
// along real 7z PPMd7 and ZIP PPMd8 streams (small: the used part of
// the arena is a few KiB then), and decodes up to 8 KiB from them. It
// must not panic (outside the Guarded reader, whose recovery is the
// last line) or hang, and every error is corrupt, truncated or a limit.
// kind picks the stream; out and in are mutated too.
func FuzzCheckpointRestore(f *testing.F) {
	streams := cpFuzzStreams(f)
	for k, s := range streams {
		for _, at := range []int{700, 2500} {
			st, out, in := earlyState(f, s, at)
			f.Add(uint8(k), st, out, in)
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, st []byte, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		s := streams[int(kind)%len(streams)]
		if in < 0 || in > int64(len(s.packed)) {
			in = int64(len(s.packed))
		}
		r, done, err := s.resume(bytes.NewReader(s.packed[in:]), st, out, in)
		defer done()
		if err != nil {
			checkClass(t, err)
			return
		}
		_, err = io.Copy(io.Discard, io.LimitReader(r, 8<<10))
		checkClass(t, err)
	})
}

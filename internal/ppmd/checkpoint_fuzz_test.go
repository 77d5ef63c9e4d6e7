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

func cpFuzzStreams(t testutil.TB) []cpFuzzStream {
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
func earlyState(t testutil.TB, s cpFuzzStream, at int) ([]byte, int64, int64) {
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

// FuzzCheckpointRestore restores altered model states, taken early
// along real 7z PPMd7 and ZIP PPMd8 streams (small: the used part of
// the arena is a few KiB then), and decodes up to 8 KiB from them. It
// must not panic (outside the Guarded reader, whose recovery is the
// last line) or hang, and every error is corrupt, truncated or a limit.
// kind picks the stream and which of its two states; the state is
// patch XORed in at pos, then cut to cut bytes when cut is below its
// length; out and in are mutated too. The states are 17-73 KB: fuzzing
// them whole made every input that long, and Go's fuzzer spent its
// minute minimizing each new one (a few dozen executions in minutes).
func FuzzCheckpointRestore(f *testing.F) {
	streams := cpFuzzStreams(f)
	type seed struct {
		st      []byte
		out, in int64
	}
	var seeds [][2]seed
	var plain [][]byte // each stream decoded from its start
	for _, s := range streams {
		var two [2]seed
		for j, at := range []int{700, 2500} {
			st, out, in := earlyState(f, s, at)
			two[j] = seed{st, out, in}
		}
		seeds = append(seeds, two)
		z, done, err := s.open(bytes.NewReader(s.packed))
		if err != nil {
			f.Fatal(err)
		}
		all, err := io.ReadAll(z)
		done()
		if err != nil {
			f.Fatal(err)
		}
		plain = append(plain, all)
	}
	for k, two := range seeds {
		for j, sd := range two {
			f.Add(uint8(k*2+j), uint32(0), []byte{}, uint32(len(sd.st)), sd.out, sd.in)
			f.Add(uint8(k*2+j), uint32(len(sd.st)/2), []byte{0x80}, uint32(len(sd.st)), sd.out, sd.in)
			f.Add(uint8(k*2+j), uint32(9), []byte{1, 2, 3, 4}, uint32(len(sd.st)-1), sd.out, sd.in)
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, pos uint32, patch []byte, cut uint32, out, in int64) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		k := int(kind/2) % len(streams)
		s, sd := streams[k], seeds[k][kind%2]
		st := bytes.Clone(sd.st)
		for i, b := range patch {
			st[(int(pos)+i)%len(st)] ^= b
		}
		if int(cut) < len(st) {
			st = st[:cut]
		}
		if in < 0 || in > int64(len(s.packed)) {
			in = int64(len(s.packed))
		}
		r, done, err := s.resume(bytes.NewReader(s.packed[in:]), st, out, in)
		defer done()
		if err != nil {
			checkClass(t, err)
			return
		}
		got, err := io.ReadAll(io.LimitReader(r, 8<<10))
		checkClass(t, err)
		if len(patch) == 0 && int(cut) >= len(sd.st) && out == sd.out && in == sd.in {
			// The state as taken: it resumes to the stream's own bytes.
			want := plain[k][out:min(out+8<<10, int64(len(plain[k])))]
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("an unaltered state resumed to %d bytes (want %d), err %v", len(got), len(want), err)
			}
		}
	})
}

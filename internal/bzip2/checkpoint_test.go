package bzip2

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

type cpAt struct {
	state   []byte
	out, in int64
}

// checkpointsOf decodes data serially and takes a checkpoint at every
// block boundary where one can be taken.
func checkpointsOf(t *testing.T, data []byte, opts ...Option) ([]byte, []cpAt) {
	t.Helper()
	z, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	z.Serial()
	var out bytes.Buffer
	var cps []cpAt
	buf := make([]byte, 7001)
	for {
		if z.CanCheckpoint() {
			st, o, in := z.Checkpoint(nil)
			if o != int64(out.Len()) {
				t.Fatalf("checkpoint at %d, %d bytes read", o, out.Len())
			}
			cps = append(cps, cpAt{st, o, in})
		}
		n, err := z.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if z.Total() != int64(out.Len()) {
		t.Fatalf("Total %d, read %d", z.Total(), out.Len())
	}
	return out.Bytes(), cps
}

// resume decodes from checkpoint c to the end.
func resume(data []byte, c cpAt, opts ...Option) ([]byte, error) {
	var z Reader
	defer z.Close()
	if err := z.ResetAt(bytes.NewReader(data[c.in/8:]), c.state, c.out, c.in, opts...); err != nil {
		return nil, err
	}
	got, err := io.ReadAll(&z)
	if err == nil && z.Total() != c.out+int64(len(got)) {
		return got, errors.New("Total does not count from the checkpoint")
	}
	return got, err
}

// TestCheckpointResume: checkpoints at every block boundary of
// multi-block streams (bzip2 -1, 7zz, concatenated streams, a
// randomised stream of the test encoder) resume to the same bytes, the
// block CRCs and the stream CRC checked to the end.
func TestCheckpointResume(t *testing.T) {
	files := map[string][]byte{}
	for _, f := range testFiles(t) {
		files[f.name] = f.data
	}
	files["randomised"] = testEncode(randBytes(20000, 5), encOpts{randomise: true, blockRaw: 3000})
	total := 0
	for name, data := range files {
		for _, opts := range [][]Option{nil, {Workers(4)}, {MaxMemory(Memory(9))}} {
			want, cps := checkpointsOf(t, data, opts...)
			for _, c := range cps {
				got, err := resume(data, c, opts...)
				if err != nil {
					t.Fatalf("%s from %d (bit %d): %v", name, c.out, c.in, err)
				}
				if !bytes.Equal(got, want[c.out:]) {
					t.Fatalf("%s from %d: bytes differ", name, c.out)
				}
			}
			total += len(cps)
		}
	}
	if total < 20 {
		t.Fatalf("only %d checkpoints over the test files", total)
	}
}

// TestCheckpointTampered: a checkpoint moved off its block, with a bad
// level or version, or with another stream CRC is refused or fails the
// stream CRC at the end, never passing bad data as good.
func TestCheckpointTampered(t *testing.T) {
	data := readFile(t, "text-l1.bz2")
	_, cps := checkpointsOf(t, data)
	if len(cps) < 2 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	c := cps[1]
	mod := func(f func(*cpAt)) cpAt {
		d := cpAt{append([]byte(nil), c.state...), c.out, c.in}
		f(&d)
		return d
	}
	for _, tc := range []struct {
		name string
		cp   cpAt
		want error
	}{
		{"bit+1", mod(func(d *cpAt) { d.in++ }), errs.ErrCorrupt},
		{"bit-3", mod(func(d *cpAt) { d.in -= 3 }), errs.ErrCorrupt},
		{"level 0", mod(func(d *cpAt) { d.state[1] = 0 }), errs.ErrCorrupt},
		{"level 10", mod(func(d *cpAt) { d.state[1] = 10 }), errs.ErrCorrupt},
		{"version", mod(func(d *cpAt) { d.state[0] = 2 }), errs.ErrCorrupt},
		{"short", mod(func(d *cpAt) { d.state = d.state[:5] }), errs.ErrCorrupt},
		{"crc", mod(func(d *cpAt) { d.state[3] ^= 1 }), errs.ErrChecksum},
	} {
		_, err := resume(data, tc.cp)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if err != nil {
			oneSentinel(t, err)
		}
	}
	// A level above MaxMemory is a limit, before anything is allocated.
	d := mod(func(d *cpAt) { d.state[1] = 9 })
	if _, err := resume(data, d, MaxMemory(Memory(1))); !errors.Is(err, errs.ErrLimit) {
		t.Errorf("level 9 under MaxMemory(Memory(1)): %v", err)
	}
	// No checkpoint is offered before the end-of-stream record.
	z, _ := NewReader(bytes.NewReader(data))
	defer z.Close()
	z.Serial()
	io.Copy(io.Discard, io.LimitReader(z, int64(len(data))*100))
	if z.CanCheckpoint() {
		t.Error("CanCheckpoint at the end of the stream")
	}
}

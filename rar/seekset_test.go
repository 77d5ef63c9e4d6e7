package rar

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/engine/conf"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
)

// The seek tests RAR5 (seek5_test.go) and RAR 2.9 (seek29_test.go)
// share, run over each family's archives.

// openCPIn opens dir+name with checkpoints every 4 KiB.
func openCPIn(t *testing.T, dir, name string, mem int64) *Archive {
	t.Helper()
	f, err := os.Open(dir + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, _ := f.Stat()
	a, err := Open(f, st.Size(), conf.From(config(t, dir+name, "seek")))
	if err != nil {
		t.Fatal(err)
	}
	a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 4096, MaxMemory: mem})
	t.Cleanup(func() { a.Close() })
	return a
}

// seekSets are the families' seek archives: solid (with a c.txt), plain
// and multi-volume solid.
var seekSets = []struct {
	kind              string
	open              func(t *testing.T, name string, mem int64) *Archive
	solid, plain, vol string
}{
	{"rar5", openCP, "r5-solid.rar", "r5-plain.rar", "r5-vol.part1.rar"},
	{"rar29", openCP4, "r4-solid.rar", "r4-plain.rar", "r4-vol.part1.rar"},
}

// TestSeekEvict: under a cache that holds about one checkpoint the
// reads stay right and checkpoints are evicted.
func TestSeekEvict(t *testing.T) {
	for _, s := range seekSets {
		b := s.open(t, s.solid, 64<<20)
		want := contents(t, b)
		st := b.caps().CheckpointStats()
		one := st.Bytes/int64(st.Count) + 1000
		a := s.open(t, s.solid, one)
		for k := 0; k < 2; k++ {
			for i := range want {
				for off := int64(0); off < int64(len(want[i])); off += 5003 {
					got, _, err := readAt(a, i, off, 100)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
						t.Fatalf("%s: entry %d at %d: bytes differ", s.kind, i, off)
					}
				}
			}
		}
		st = a.caps().CheckpointStats()
		if st.Evicted == 0 || st.Bytes > one {
			t.Fatalf("%s: stats %+v with MaxMemory %d", s.kind, st, one)
		}
	}
}

// TestSeekBadCheckpoint: a cut checkpoint fails with ErrCorrupt.
func TestSeekBadCheckpoint(t *testing.T) {
	for _, s := range seekSets {
		a := s.open(t, s.plain, 64<<20)
		contents(t, a)
		cp, ok := a.cps.Find(0, 1<<40)
		if !ok {
			t.Fatalf("%s: no checkpoint of entry 0", s.kind)
		}
		bad := cp
		bad.State = bytes.Clone(cp.State[:len(cp.State)-1])
		a.cps.Clear()
		a.cps.Add(bad)
		if _, _, err := a.caps().OpenAt(0, cp.Out); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("%s: cut checkpoint: %v", s.kind, err)
		}
	}
}

// TestSeekSolidStart: a solid entry read at an offset before its first
// Interval resumes from the checkpoint at its start, without decoding
// the entries before it in the run.
func TestSeekSolidStart(t *testing.T) {
	for _, s := range seekSets {
		a := s.open(t, s.solid, 64<<20)
		want := contents(t, a)
		i := len(want) - 1
		for i >= 0 && a.Entries()[i].Name != "c.txt" {
			i--
		}
		r0, d0 := resumed.Load(), redecoded.Load()
		got, start, err := readAt(a, i, 100, 1000)
		if err != nil || start != 0 || !bytes.Equal(got, want[i][100:1100]) {
			t.Fatalf("%s: c.txt at 100: start %d, %v", s.kind, start, err)
		}
		if resumed.Load() != r0+1 || redecoded.Load() != d0 {
			t.Fatalf("%s: %d resumes, %d predecessors decoded", s.kind, resumed.Load()-r0, redecoded.Load()-d0)
		}
	}
}

// TestSeekOpenTakesNone: ordinary reading (Open) takes no checkpoint.
func TestSeekOpenTakesNone(t *testing.T) {
	for _, s := range seekSets {
		for _, name := range []string{s.solid, s.plain} {
			a := s.open(t, name, 64<<20)
			for i := range a.Entries() {
				rc, err := a.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					t.Fatal(err)
				}
				rc.Close()
			}
			if st := a.caps().CheckpointStats(); st.Taken != 0 {
				t.Fatalf("%s: Open took %+v", name, st)
			}
		}
	}
}

// TestSeekAcrossVolumes: in the multi-volume solid archives some
// checkpoint resumes in a later volume than its entry's first, and the
// reads from it are right.
func TestSeekAcrossVolumes(t *testing.T) {
	for _, s := range seekSets {
		a := s.open(t, s.vol, 64<<20)
		want := contents(t, a)
		n := 0
		for i, f := range a.files {
			if len(f.parts) < 2 {
				continue
			}
			for off := int64(1); off < f.e.Size; off += 997 {
				cp, ok := a.peekCP(i, f, off)
				if !ok || cp.In>>3 < f.parts[0].size {
					continue
				}
				got, start, err := readAt(a, i, off, 2000)
				if err != nil || start != cp.Out || !bytes.Equal(got, want[i][off:off+int64(len(got))]) {
					t.Fatalf("%s: %s at %d from %d: %v", s.kind, f.e.Name, off, start, err)
				}
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: no checkpoint past an entry's first volume", s.kind)
		}
	}
}

package unpack50

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// cpData reads name from testdata/rar5u, or testdata/NAME when it has
// a directory.
func cpData(t *testing.T, name string) []byte {
	if !strings.Contains(name, "/") {
		return testdata(t, name)
	}
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type testCP = testutil.EntryCP

// decodeWithCheckpoints decodes ents as one stream (solid when they say
// so), taking a checkpoint every `every` bytes of each entry's output.
func decodeWithCheckpoints(t *testing.T, ents []*testEntry, every int64) ([][]byte, []testCP) {
	t.Helper()
	d := NewDecoder()
	defer d.Close()
	return testutil.DecodeEntries(t, d, len(ents), every, func(i int) (bool, error) {
		e := ents[i]
		if e.method == 0 || e.dir || e.redirect {
			return false, nil
		}
		return true, d.ResetVersion(bytes.NewReader(e.packed), e.version, e.dict, e.size, e.solid)
	})
}

// TestCheckpointResume resumes from every checkpoint of several streams
// (solid, wrapped windows, E8 filters, a large dictionary) and compares
// the rest of the entry with the sequential decode.
func TestCheckpointResume(t *testing.T) {
	for _, name := range []string{"solid-m3.rar", "solid-wrap.rar", "md128k-wrap.rar", "text-m5.rar", "seek/r5-solid.rar", "seek/r5-m5.rar"} {
		t.Run(name, func(t *testing.T) {
			ents, err := parseRAR5(cpData(t, name))
			if err != nil {
				t.Fatal(err)
			}
			outs, cps := decodeWithCheckpoints(t, ents, 4096)
			if len(cps) == 0 {
				t.Fatal("no checkpoint taken")
			}
			for _, cp := range cps {
				e := ents[cp.Entry]
				if cp.Off <= 0 {
					t.Fatalf("checkpoint at entry offset %d", cp.Off)
				}
				d := NewDecoder()
				if err := d.ResetAt(bytes.NewReader(e.packed[cp.Bits>>3:]), e.version, e.dict, e.size, cp.State); err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(d)
				d.Close()
				if err != nil {
					t.Fatalf("entry %d from %d: %v", cp.Entry, cp.Off, err)
				}
				if want := outs[cp.Entry][cp.Off:]; !bytes.Equal(got, want) {
					t.Fatalf("entry %d from %d: %d bytes differ from the sequential %d", cp.Entry, cp.Off, len(got), len(want))
				}
			}
			t.Logf("%d checkpoints", len(cps))
		})
	}
}

// TestCheckpointFilters checks that the filter stream takes checkpoints
// between its filters (none is pending when one is taken) and that
// filters still run after a resume.
func TestCheckpointFilters(t *testing.T) {
	ents, err := parseRAR5(cpData(t, "seek/r5-solid.rar"))
	if err != nil {
		t.Fatal(err)
	}
	_, cps := decodeWithCheckpoints(t, ents, 4096)
	ran := 0
	for _, cp := range cps {
		e := ents[cp.Entry]
		d := NewDecoder()
		if err := d.ResetAt(bytes.NewReader(e.packed[cp.Bits>>3:]), e.version, e.dict, e.size, cp.State); err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, d)
		// and on through the rest of the solid stream
		for _, g := range ents[cp.Entry+1:] {
			if g.method == 0 || g.dir || g.size == 0 {
				continue
			}
			if err := d.ResetVersion(bytes.NewReader(g.packed), g.version, g.dict, g.size, true); err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, d); err != nil {
				t.Fatal(err)
			}
		}
		ran += d.filtersRun[filterE8] + d.filtersRun[filterE8E9]
		d.Close()
	}
	if ran == 0 {
		t.Fatal("no filter ran after any resume")
	}
}

// TestCheckpointCorrupt feeds damaged states to ResetAt: ErrCorrupt,
// never a panic; every cut length and a sweep of flipped bytes.
func TestCheckpointCorrupt(t *testing.T) {
	ents, err := parseRAR5(testdata(t, "solid-m3.rar"))
	if err != nil {
		t.Fatal(err)
	}
	_, cps := decodeWithCheckpoints(t, ents, 4096)
	cp := cps[len(cps)-1]
	e := ents[cp.Entry]
	try := func(state []byte) error {
		d := NewDecoder()
		defer d.Close()
		err := d.ResetAt(bytes.NewReader(e.packed[min(cp.Bits>>3, int64(len(e.packed))):]), e.version, e.dict, e.size, state)
		if err == nil {
			_, err = io.Copy(io.Discard, d)
		}
		return err
	}
	for n := 0; n < cpHeader+10; n++ {
		if err := try(cp.State[:n]); !errors.Is(err, errs.ErrCorrupt) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
	if err := try(cp.State[:len(cp.State)-1]); !errors.Is(err, errs.ErrCorrupt) {
		t.Fatalf("one byte short: %v", err)
	}
	for i := 0; i < cpHeader+300; i++ {
		s := bytes.Clone(cp.State)
		s[i] ^= 0xa5
		try(s) // any error or a wrong result, but no panic or hang
	}
	if err := try(cp.State); err != nil {
		t.Fatalf("intact state: %v", err)
	}
	_ = math.MaxInt64
}

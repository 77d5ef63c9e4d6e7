package sevenzip

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/lzma"
)

// TestLZMA2BlocksWorkers reads the entry 7zz -mmt4 wrote in independent
// LZMA2 blocks with one and with several goroutines: the same verified
// bytes, and with Workers (or SetEntryWorkers) above 1 the folder decodes
// through lzma.Reader2MT; MaxMemory too small for two blocks keeps one.
func TestLZMA2BlocksWorkers(t *testing.T) {
	data, err := os.ReadFile("../testdata/parallel/lzma2-blocks.7z")
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, c := range []struct {
		workers, set int
		mem          int64
		mt           bool
	}{
		{1, 0, 0, false},
		{3, 0, 0, true},
		{3, 1, 0, false},
		{1, 3, 0, true},
		{3, 0, 3 << 20, false}, // two 1 MiB blocks need 2 × (2 MiB + 64 KiB + 64 KiB)
	} {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.Workers(c.workers), arc.WithLimits(arc.Limits{MaxMemory: c.mem}))
		if err != nil {
			t.Fatal(err)
		}
		if c.set > 0 {
			a.caps().SetEntryWorkers(c.set)
		}
		rc, err := a.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		first := make([]byte, 1)
		if _, err := io.ReadFull(rc, first); err != nil {
			t.Fatal(err)
		}
		mt := false
		for _, cl := range rc.(*entryRC).er.fr.env.closers {
			_, ok := cl.(*lzma.Reader2MT)
			mt = mt || ok
		}
		rest, err := io.ReadAll(rc)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		got := append(first, rest...)
		rc.Close()
		a.Close()
		if mt != c.mt {
			t.Errorf("%+v: Reader2MT used: %v", c, mt)
		}
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("%+v: different bytes", c)
		}
	}
	if len(want) < 1<<20 {
		t.Errorf("%d bytes", len(want))
	}
}

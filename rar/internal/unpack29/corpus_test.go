package unpack29

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// TestCorpus decodes every unencrypted, single-volume v29 entry of the
// shared corpus's RAR 1.5-4.x archives and checks them against the
// manifest (rar4test.Corpus).
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (tens of seconds under -race); the run without -short covers it")
	}
	rar4test.Corpus(t, "v29", func() rar4test.Decoder { return NewDecoder() },
		func(ver byte) bool { return ver == 29 }, func(archive string, rd rar4test.Decoder) {
			if d := rd.(*Decoder); d.flt.runs != [len(d.flt.runs)]int{} {
				t.Logf("%s: filter runs by kind (E8, E8E9, Itanium, Delta, RGB, Audio): %v", archive, d.flt.runs[1:])
			}
		})
}

package unpack20

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// TestCheckpointResume: rar4test.CheckResume over the testdata streams.
func TestCheckpointResume(t *testing.T) { rar4test.CheckResume(t, NewDecoder, streams(t)) }

// TestCheckpointTampered: a checkpoint cut, grown or with a field out
// of range (the shared header's and RAR 2.0's own) is ErrCorrupt from
// ResetAt, never a panic.
func TestCheckpointTampered(t *testing.T) {
	const (
		oFlags = 32
		oDist  = 35
		oPtr   = oDist + 16
		oLastD = oPtr + 4
		oLastL = oLastD + 4
		oTable = oLastL + 8 + 4*avSize
	)
	rar4test.CheckTampered(t, NewDecoder, streams(t), cpHeader, map[string]func([]byte) []byte{
		"flags":       func(s []byte) []byte { s[oFlags] = 8; return s },
		"no tables":   func(s []byte) []byte { s[oFlags] = 4; return s },
		"channels 0":  func(s []byte) []byte { s[oFlags+1] = 0; return s },
		"channels 5":  func(s []byte) []byte { s[oFlags+1] = 5; return s },
		"channel":     func(s []byte) []byte { s[oFlags+2] = s[oFlags+1]; return s },
		"distance":    rar4test.Set32(oDist+8, 1<<30),
		"ring":        rar4test.Set32(oPtr, 4),
		"last dist":   rar4test.Set32(oLastD, 1<<30),
		"last length": rar4test.Set32(oLastL, 1000),
		"code length": func(s []byte) []byte { s[oTable+5] = 16; return s },
		"oversubscribe": func(s []byte) []byte {
			clear(s[oTable : oTable+mainSyms])
			s[oTable], s[oTable+1], s[oTable+2] = 1, 1, 1
			return s
		},
	})
}

// TestCheckpointCorpus resumes every v20 stream of the shared corpus
// (rar4test.CheckCorpus), audio blocks among them when the corpus has
// any.
func TestCheckpointCorpus(t *testing.T) {
	var audio int
	rar4test.CheckCorpus(t, NewDecoder, func(v byte) bool { return v == 20 || v == 26 }, func(cp rar4test.CP) {
		if cp.State[32]&4 != 0 {
			audio++
		}
	})
	t.Logf("%d in audio blocks", audio)
}

// FuzzCheckpoint20: rar4test.FuzzCheckpoint seeded with the testdata
// streams.
func FuzzCheckpoint20(f *testing.F) {
	body := rar4test.FuzzCheckpoint(f, NewDecoder(), streams(f))
	f.Fuzz(func(t *testing.T, state, packed []byte, sel byte) { body(t, state, packed, sel) })
}

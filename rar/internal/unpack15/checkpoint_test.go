package unpack15

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// TestCheckpointResume: rar4test.CheckResume over the testdata streams.
func TestCheckpointResume(t *testing.T) { rar4test.CheckResume(t, NewDecoder, streams(t)) }

// TestCheckpointTampered: a checkpoint cut, grown or with a field out
// of range (the shared header's and RAR 1.5's own) is ErrCorrupt from
// ResetAt, never a panic.
func TestCheckpointTampered(t *testing.T) {
	const (
		oFlags = 32
		oWords = 33 + 2*4*256 + 3*256
		oBuf60 = oWords + 6*4
		oDist  = oWords + 10*4
		oPtr   = oDist + 16
		oLastD = oPtr + 4
		oLastL = oLastD + 4
		oCnt   = oLastL + 12
	)
	rar4test.CheckTampered(t, NewDecoder, streams(t), cpHeader, map[string]func([]byte) []byte{
		"flags":       func(s []byte) []byte { s[oFlags] = 4; return s },
		"buf60":       rar4test.Set32(oBuf60, 2),
		"distance":    rar4test.Set32(oDist+8, 1<<30),
		"ring":        rar4test.Set32(oPtr, 4),
		"last dist":   rar4test.Set32(oLastD, 1<<30),
		"last length": rar4test.Set32(oLastL, 1<<20),
		"flag count":  rar4test.Set32(oCnt, 99),
	})
}

// TestCheckpointCorpus resumes every v15 stream of the shared corpus
// (rar4test.CheckCorpus).
func TestCheckpointCorpus(t *testing.T) {
	rar4test.CheckCorpus(t, NewDecoder, func(v byte) bool { return v <= 15 }, func(rar4test.CP) {})
}

// FuzzCheckpoint15: rar4test.FuzzCheckpoint seeded with the testdata
// streams.
func FuzzCheckpoint15(f *testing.F) {
	body := rar4test.FuzzCheckpoint(f, NewDecoder(), streams(f))
	f.Fuzz(func(t *testing.T, state, packed []byte, sel byte) { body(t, state, packed, sel) })
}

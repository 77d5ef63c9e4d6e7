package unpack15

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// TestCorpus decodes every unencrypted, single-volume v15 entry of the
// shared corpus's RAR 1.5-4.x archives and checks them against the
// manifest (rar4test.Corpus).
func TestCorpus(t *testing.T) {
	rar4test.Corpus(t, "v15", func() rar4test.Decoder { return NewDecoder() },
		func(ver byte) bool { return ver == 15 }, nil)
}

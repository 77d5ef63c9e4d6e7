package unpack15

import (
	"testing"

	"github.com/go-unarc/unarc/rar/internal/rar4test"
)

// BenchmarkDecode decodes the committed testdata streams (no tool here
// writes RAR 1.5), for comparing changes to the decoder in one run.
func BenchmarkDecode(b *testing.B) {
	d := NewDecoder()
	defer d.Close()
	rar4test.Bench(b, d, streams(b))
}

package implode

import (
	"bytes"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAgainst7zz: 7-Zip decodes what the test encoder writes, for every
// flag variant, to the same bytes our decoder gives, so the encoder (and
// with it the round trips) follows the format as 7-Zip reads it, not
// just as this package does.
func TestAgainst7zz(t *testing.T) {
	testutil.Against7zz(t, map[string][]byte{
		"text":   textish(40_000, 21),
		"random": randomData(5_000, 22),
		"run":    bytes.Repeat([]byte("ab"), 3000),
	}, legacyVariants())
}

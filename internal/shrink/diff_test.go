package shrink

import (
	"bytes"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAgainst7zz: 7-Zip decodes what the test encoder writes, partial
// clears included, to the same bytes our decoder gives, so the encoder
// (and with it the round trips) follows the format as 7-Zip reads it.
// (Info-ZIP's unzip 6.0 reads streams whose table only clears when full,
// but not ones with earlier clears that leave strings pointing at freed
// codes; 7-Zip, hwzip and this package give such strings the freed
// code's later value.)
func TestAgainst7zz(t *testing.T) {
	testutil.Against7zz(t, map[string][]byte{
		"text":   textish(60_000, 21),
		"random": randomData(20_000, 22),
		"run":    bytes.Repeat([]byte("a"), 3000),
	}, legacyVariants(clearRate{0, "clear every 0"}, clearRate{3, "clear every 3"}, clearRate{50, "clear every 50"}, clearRate{1000, "clear every 1000"}))
}

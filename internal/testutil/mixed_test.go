package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestMixedGenerator checks the workload generator against the published
// sums (DESIGN.md); a drift here would make every benchmark meaningless.
func TestMixedGenerator(t *testing.T) {
	n := MixedFiles
	if testing.Short() {
		n = 1
	}
	for i := 0; i < n; i++ {
		sum := sha256.Sum256(Mixed(i))
		if got := hex.EncodeToString(sum[:]); got != MixedSHA256[i] {
			t.Errorf("%s: sha256 %s, want %s", MixedName(i), got, MixedSHA256[i])
		}
	}
}

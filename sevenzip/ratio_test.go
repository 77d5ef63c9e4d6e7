package sevenzip

import (
	"bytes"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestChainRatio (issue 9): in a folder of chained coders every coder's
// output is held to MaxRatio against the folder's packed input, not only
// the folder's final output (all the root sees): a small high-ratio
// inner coder feeding others must fail with ErrLimit quickly, where it
// used to burn CPU on output nobody counted. (The folder's main output
// is the root's account to measure: it stops the whole archive at once.) The ratio floor is lowered to 1 MiB so that the test does not
// spend its time below the floor (PPMd of garbage is slow); without the
// per-coder check nothing stops these folders before their declared GiB.
func TestChainRatio(t *testing.T) {
	if testing.Short() {
		// 2-3 s on a quiet machine, 10-25 s at load 10-40: the outer
		// coder's output is not measured here (only the root measures the
		// folder's main output), so it runs on until the inner check fires.
		t.Skip("slow: the outer coder runs unmeasured until the inner coder trips")
	}
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz not installed")
	}
	lz := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{0x5D, 0, 0, 0, 0x01}} // 16 MiB dictionary
	cmd := exec.Command("xz", "--format=raw", "--lzma1=dict=16MiB", "-c")
	cmd.Stdin = bytes.NewReader(make([]byte, 16<<20))
	zeros, err := cmd.Output() // 16 MiB of zeros in a few KiB
	if err != nil {
		t.Fatal(err)
	}
	safe := arc.SafeLimits
	safe.RatioFloor = 1 << 20
	for name, data := range map[string][]byte{
		"LZMA into LZMA": oneFileArchive(zeros, []coderSpec{lz, lz}, []uint64{1 << 30, 16 << 20}, 0),
	} {
		for lname, l := range map[string]arc.Limits{"SafeLimits": safe, "DefaultLimits+MaxRatio": {MaxRatio: 100, RatioFloor: 1 << 20}} {
			start := testutil.CPUTime()
			_, err := readEntry0(data, l)
			d := testutil.CPUSince(start)
			if !errors.Is(err, errs.ErrLimit) {
				t.Errorf("%s, %s: err = %v, want ErrLimit", name, lname, err)
			}
			if d > timeBudget(30*time.Second) { // the outer coder, unmeasured here (the root measures it), runs on meanwhile
				t.Errorf("%s, %s: took %v", name, lname, d)
			}
		}
	}
	// A lifted ratio checks nothing (and real chains, BCJ2 + LZMA, pass
	// under SafeLimits: TestRoundTrip's filter archives).
	if _, err := readEntry0(oneFileArchive(zeros, []coderSpec{copyCoder, lz}, []uint64{16 << 20, 16 << 20}, 0), arc.Limits{MaxRatio: arc.Unlimited}); errors.Is(err, errs.ErrLimit) {
		t.Errorf("lifted ratio: %v", err)
	}
}

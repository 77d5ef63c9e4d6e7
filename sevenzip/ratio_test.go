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

// TestChainRatio (issue 9): in a folder of chained coders an inner
// coder's output (one feeding another coder) is held to MaxRatio against
// the folder's packed input once it passes both RatioFloor and the
// folder's declared size: the root measures only the folder's final
// output, so a small high-ratio inner coder feeding a coder that eats it
// without output (Deflate's empty stored blocks) would otherwise burn
// CPU on output nobody counts. Inner output within the folder's declared
// size is declared output (BCJ2's streams, 7zAES feeding LZMA) and is
// not measured by the ratio. The ratio floor is lowered to 1 MiB so that
// the test does not spend its time below it.
func TestChainRatio(t *testing.T) {
	if _, err := exec.LookPath("xz"); err != nil {
		t.Skip("xz not installed")
	}
	lz := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{0x5D, 0, 0, 0, 0x01}} // 16 MiB dictionary
	deflate := coderSpec{id: []byte{0x04, 0x01, 0x08}}
	// Empty stored Deflate blocks (BFINAL 0, LEN 0, NLEN 0xFFFF): 16 MiB
	// of input that Deflate consumes without producing a byte.
	empty := bytes.Repeat([]byte{0, 0, 0, 0xFF, 0xFF}, 16<<20/5)
	cmd := exec.Command("xz", "--format=raw", "--lzma1=dict=16MiB", "-c")
	cmd.Stdin = bytes.NewReader(empty)
	packed, err := cmd.Output() // in a few KiB
	if err != nil {
		t.Fatal(err)
	}
	safe := arc.SafeLimits
	safe.RatioFloor = 1 << 20
	bomb := oneFileArchive(packed, []coderSpec{deflate, lz}, []uint64{1 << 20, uint64(len(empty))}, 0)
	for lname, l := range map[string]arc.Limits{"SafeLimits": safe, "DefaultLimits+MaxRatio": {MaxRatio: 100, RatioFloor: 1 << 20}} {
		start := testutil.CPUTime()
		_, err := readEntry0(bomb, l)
		d := testutil.CPUSince(start)
		if !errors.Is(err, errs.ErrLimit) {
			t.Errorf("%s: err = %v, want ErrLimit", lname, err)
		}
		if d > timeBudget(10*time.Second) {
			t.Errorf("%s: took %v", lname, d)
		}
	}
	// The same inner output within the folder's declared size is not
	// measured: Deflate eats all of it and finds no end (not a limit).
	within := oneFileArchive(packed, []coderSpec{deflate, lz}, []uint64{uint64(len(empty)), uint64(len(empty))}, 0)
	if _, err := readEntry0(within, safe); err == nil || errors.Is(err, errs.ErrLimit) {
		t.Errorf("inner output within the declared size: %v, want an error other than ErrLimit", err)
	}
	// A lifted ratio checks nothing (and real chains, BCJ2 + LZMA, pass
	// under SafeLimits: TestRoundTrip's filter archives).
	if _, err := readEntry0(bomb, arc.Limits{MaxRatio: arc.Unlimited}); errors.Is(err, errs.ErrLimit) {
		t.Errorf("lifted ratio: %v", err)
	}
}

//go:build linux

package pool

import (
	"os"
	"testing"
)

func skipNoTHP(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
}

// TestAdviseHuge checks that AdviseHuge marks a big buffer's memory for
// huge pages, as HugeAdvised (which the decoders' tests use) reads
// from /proc/self/smaps. (Plain memory is not checked to be unadvised: the
// heap may hand out memory an earlier run advised.)
func TestAdviseHuge(t *testing.T) {
	skipNoTHP(t)
	b := make([]byte, 16<<20)
	AdviseHuge(b)
	if !HugeAdvised(b) {
		t.Fatal("16 MiB buffer not advised for huge pages after AdviseHuge")
	}
	// Below two huge pages nothing is advised (no aligned interior worth it).
	small := make([]byte, 1<<20)
	AdviseHuge(small)
	AdviseHuge(nil)
}

//go:build linux

package ppmd

import (
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/pool"
)

// TestArenaHugePageAdvice checks that a model's arena is advised for
// transparent huge pages (pool.HugeAdvised reads the "hg" flag the
// kernel shows in /proc/self/smaps whether or not it could hand out huge
// pages, so the test does not depend on free memory).
func TestArenaHugePageAdvice(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	m := NewModel()
	if err := m.Init(6, 16<<20); err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	if !pool.HugeAdvised(m.mem) {
		t.Fatal("arena not advised for huge pages (no hg in its VmFlags)")
	}
}

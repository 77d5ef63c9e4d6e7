//go:build linux

package lzma

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/pool"
)

// TestWindowHugePageAdvice checks that a big window is advised for
// transparent huge pages, both when it is allocated at once (size known)
// and when it grows to the dictionary (size unknown): match copies read
// it at random, and with 4 KiB pages an 8 MiB window spans 2048 of them.
func TestWindowHugePageAdvice(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	const dict = 8 << 20
	const n = dict + 1<<20
	stream := copyChunks(bytes.Repeat([]byte("window "), n/7+1)[:n], 0)
	for _, size := range []int64{n, -1} {
		pool.Release() // no window advised by an earlier test
		z, err := NewReader2(bytes.NewReader(stream), dict, size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, z); err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if len(z.w.buf) < dict {
			t.Fatalf("size %d: window of %d bytes, want the dictionary", size, len(z.w.buf))
		}
		if !pool.HugeAdvised(z.w.buf) {
			t.Errorf("size %d: the %d-byte window is not advised for huge pages", size, len(z.w.buf))
		}
		z.Close()
	}
}

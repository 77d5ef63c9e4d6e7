package sevenzip

import (
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
)

// TestManyWideLiteralFolders: 20,000 folders, each an LZMA stream of one
// byte declaring lc=8, lp=4 (4,096 literal coders, 6 MiB of
// probabilities). A decoder's reset fills a literal coder only when the
// data first uses it, so reading every entry costs what the data holds;
// filling the whole table per folder took 4 s.
func TestManyWideLiteralFolders(t *testing.T) {
	const n = 20000
	// (pb*5+lp)*9+lc with pb=2, lp=4, lc=8; a 4 KiB dictionary. With the
	// range coder's code 0 every bit decodes as 0: one literal 0x00.
	lz := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{(2*5+4)*9 + 8, 0, 0x10, 0, 0}}
	folders := make([]folderSpec, n)
	for i := range folders {
		folders[i] = folderSpec{lz, make([]byte, 8), 1}
	}
	a, err := openWith(multiFolderArchive(folders), arc.Limits{MaxEntries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	start := time.Now()
	for i := range n {
		b, err := readIndex(a, i)
		if err != nil || len(b) != 1 || b[0] != 0 {
			t.Fatalf("entry %d: %x, %v", i, b, err)
		}
	}
	d := time.Since(start)
	t.Logf("%d folders read in %v", n, d)
	if d > 2*time.Second {
		t.Errorf("%d folders of one byte took %v", n, d)
	}
}

package sevenzip

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestAddTreeSpecialFiles: named pipes, sockets and character devices
// are stored as `7zz a` stores them (7zz l -slt shows the same path,
// size and attributes), never opened, and the archive passes 7zz t.
// (os.DirFS cannot open names that are not UTF-8; `unarc a` walks with
// its own FS, and TestAddSpecialAndBadNames covers those.)
func TestAddTreeSpecialFiles(t *testing.T) {
	dir, _ := testutil.SpecialTree(t)
	var m memFile
	zw, _ := NewWriter(&m)
	done := make(chan error, 1)
	go func() { done <- zw.AddTree(os.DirFS(dir), "src", nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("AddTree: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("AddTree blocks (opened the FIFO?)")
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	need7zz(t)
	testutil.SameAs7zz(t, dir, writeTemp(t, m.b), 4)
}

package sevenzip

import (
	"bytes"
	"hash/crc32"
	"io"
	"sync"
	"testing"
)

// contents reads every entry of a in index order with fresh Opens.
func contents(t *testing.T, a *Archive, order []int) map[int][]byte {
	t.Helper()
	out := map[int][]byte{}
	for _, i := range order {
		if a.Entries()[i].IsDir() {
			continue
		}
		rc, err := a.Open(i)
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		out[i] = b
	}
	return out
}

// TestSolidInOrderDecodesOnce checks that reading a solid folder's
// entries in order starts its decoder once, and that any other order
// still gives the same bytes.
func TestSolidInOrderDecodesOnce(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/lzma2.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if len(a.si.folders) != 1 {
		t.Fatalf("want one solid folder, have %d", len(a.si.folders))
	}
	n := len(a.Entries())
	order := make([]int, n)
	rev := make([]int, n)
	for i := range order {
		order[i], rev[i] = i, n-1-i
	}
	start := a.folderStarts
	fwd := contents(t, a, order)
	if got := a.folderStarts - start; got != 1 {
		t.Errorf("in-order read started %d decoders, want 1", got)
	}
	back := contents(t, a, rev)
	for i, b := range fwd {
		if !bytes.Equal(b, back[i]) {
			t.Errorf("entry %d differs between orders", i)
		}
	}
	// Opening only a middle entry decodes up to it, and works alone.
	b, err := openFile(t, "../testdata/7z/lzma2.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mid := n / 2
	for b.Entries()[mid].IsDir() || b.Entries()[mid].Size == 0 {
		mid++
	}
	got := contents(t, b, []int{mid})
	if !bytes.Equal(got[mid], fwd[mid]) {
		t.Error("middle entry differs")
	}
}

// TestConcurrentFolders reads the entries of a non-solid archive from
// several goroutines at once.
func TestConcurrentFolders(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/lzma2_nonsolid.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, e := range a.Entries() {
				if e.IsDir() {
					continue
				}
				rc, err := a.Open(i)
				if err != nil {
					errc <- err
					return
				}
				h := crc32.NewIEEE()
				_, err = io.Copy(h, rc)
				rc.Close()
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

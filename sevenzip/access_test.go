package sevenzip

import (
	"bytes"
	"hash/crc32"
	"io"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
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

// TestSolidLateCloseOneWindow (issue 9): reading the entries of a solid
// folder one after another keeps one decoder and so one window, even
// when each reader is closed only later (a deferred Close in a loop):
// an entry read to its end hands its decoder on at once. Before, every
// OpenEntry after an unclosed reader started a new decoder with a window
// of its own (and decoded the folder from its start). Bytes allocated
// are measured with runtime.MemStats; the window is 8 MiB.
func TestSolidLateCloseOneWindow(t *testing.T) {
	const n, each = 6, 2 << 20
	var data, sizes []byte
	for i := 0; i < n; i++ {
		data = append(data, bytes.Repeat([]byte{byte('a' + i)}, each)...)
	}
	for i := 0; i < n-1; i++ {
		sizes = append(sizes, num(each)...)
	}
	pack := lzma2Stored(data)
	names := []byte{0}
	for i := 0; i < n; i++ {
		names = append(names, byte('a'+i), 0, 0, 0)
	}
	f, u := folderRecord([]coderSpec{lzma2Coder(22)}, []uint64{uint64(len(data))}) // 8 MiB dictionary
	hdr := cat([]byte{idHeader, idMainStreamsInfo, idPackInfo}, num(0), num(1), []byte{idSize}, num(uint64(len(pack))), []byte{idEnd},
		[]byte{idUnpackInfo, idFolder}, num(1), []byte{0}, f, []byte{idCodersUnpackSize}, u, []byte{idEnd},
		[]byte{idSubStreamsInfo, idNumUnpackStream}, num(n), []byte{idSize}, sizes, []byte{idEnd, idEnd},
		[]byte{idFilesInfo}, num(n), []byte{idName}, num(uint64(len(names))), names, []byte{idEnd, idEnd})
	archive := build7z(pack, hdr)
	lifted := arc.Limits{MaxDictionary: arc.Unlimited, MaxMemory: arc.Unlimited, MaxRatio: arc.Unlimited}
	run := func() (starts int) {
		a, err := Open(bytes.NewReader(archive), int64(len(archive)), conf.From(&arc.Config{Limits: lifted}))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		var open []io.Closer
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, rc)
			if m, err := io.Copy(io.Discard, rc); err != nil || m != each {
				t.Fatalf("entry %d: %d bytes, %v", i, m, err)
			}
		}
		for _, c := range open {
			c.Close()
		}
		return a.folderStarts
	}
	run() // warm the pools
	var starts int
	alloc := allocDuring(func() { starts = run() })
	if starts != 1 {
		t.Errorf("%d decoders started for one folder, want 1", starts)
	}
	if alloc > 4<<20 {
		t.Errorf("reading the folder allocated %d bytes (the window is 8 MiB), want under 4 MiB", alloc)
	}
}

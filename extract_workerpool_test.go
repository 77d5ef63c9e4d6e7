package unarc

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/testutil"
)

// poolFake is a fake archive that shares a worker budget (engine.SharedWorkers)
// and records the pools it is given.
type poolFake struct {
	*fakeArchive
	mu    sync.Mutex
	set   []*engine.WorkerPool
	inUse *engine.WorkerPool
	opens int // entries opened while a pool was set
}

func (f *poolFake) SetWorkerPool(p *engine.WorkerPool) {
	f.mu.Lock()
	f.set = append(f.set, p)
	f.inUse = p
	f.mu.Unlock()
}

func (f *poolFake) Open(i int) (io.ReadCloser, error) {
	f.mu.Lock()
	if f.inUse != nil {
		f.opens++
	}
	f.mu.Unlock()
	return f.fakeArchive.Open(i)
}

// TestSharedWorkerPool: a parallel Extract and Verify hand a format that
// can share workers one pool for the run, which gets a token for each
// worker slot as it runs out of units (so at the end it holds them all),
// and take it back afterwards; a sequential run hands none.
func TestSharedWorkerPool(t *testing.T) {
	var list []fakeEntry
	for i := range 7 {
		list = append(list, file(fmt.Sprintf("f%d", i), fmt.Sprintf("content %d", i)))
	}
	for _, workers := range []int{1, 2, 3, 8} {
		for _, verify := range []bool{false, true} {
			a := newFakeOpts([]Option{WithWorkers(workers)}, list...)
			pf := &poolFake{fakeArchive: a.a.(*fakeArchive)}
			a.a, a.view = pf, engine.View(pf)
			var err error
			if verify {
				_, err = a.Verify(context.Background())
			} else {
				err = a.Extract(context.Background(), t.TempDir())
			}
			if err != nil {
				t.Fatal(err)
			}
			if workers == 1 {
				if len(pf.set) != 0 {
					t.Fatalf("sequential run: pools %v set", pf.set)
				}
				continue
			}
			if len(pf.set) != 2 || pf.set[0] == nil || pf.set[1] != nil {
				t.Fatalf("workers %d, verify %v: pools set %v, want one then nil", workers, verify, pf.set)
			}
			if pf.opens != len(list) {
				t.Fatalf("workers %d: %d of %d entries opened with the pool set", workers, pf.opens, len(list))
			}
			if got := pf.set[0].Free(); got != workers {
				t.Fatalf("workers %d, verify %v: the pool holds %d tokens at the end, want %d", workers, verify, got, workers)
			}
		}
	}
}

// TestZipBZip2Parallel extracts and verifies a ZIP of BZip2 entries
// (streams made by bzip2 and 7zz, several blocks each, one of two
// streams) on several workers, where the entries left alone at the end
// decode their blocks on the workers the others leave idle: every file
// is right, whatever the workers (run it with -race).
func TestZipBZip2Parallel(t *testing.T) {
	var b testutil.ZipBuilder
	want := map[string][]byte{}
	names := []string{"text-l1.bz2", "mixed-l1.bz2", "concat.bz2", "text-7zz-mx1.bz2", "mixed-7zz.bz2"}
	if testing.Short() {
		names = names[:3]
	}
	for _, name := range names {
		packed, err := os.ReadFile(filepath.Join("internal/bzip2/testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(stdbzip2.NewReader(bytes.NewReader(packed)))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = raw
		b.Add(testutil.ZipFile{Name: name, Method: 12, Packed: packed, CRC: crc32.ChecksumIEEE(raw), Size: uint64(len(raw))})
	}
	data := b.Bytes()
	ws := []int{1, 2, 3, 8}
	if testing.Short() {
		ws = []int{3} // -race -short: one run with the tail on the pool
	}
	for _, workers := range ws {
		a, err := Open(bytes.NewReader(data), int64(len(data)), WithWorkers(workers))
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Verify(context.Background())
		if err != nil || len(res) != len(want) {
			t.Fatalf("workers %d: verify %v (%d results)", workers, err, len(res))
		}
		dir := t.TempDir()
		if err := a.Extract(context.Background(), dir); err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		for name, raw := range want {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("workers %d: %s: %v (%d of %d bytes)", workers, name, err, len(got), len(raw))
			}
		}
		a.Close()
	}
}

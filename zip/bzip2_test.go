package zip

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestBZip2Workers: method 12 decodes through the bzip2 package, with
// Config.Workers and MaxMemory passed on (a level-9 stream under a limit
// below its block table is ErrLimit from the decoder itself).
func TestBZip2Workers(t *testing.T) {
	packed, err := os.ReadFile("../internal/bzip2/testdata/text-l1.bz2")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(stdbzip2.NewReader(bytes.NewReader(packed)))
	if err != nil {
		t.Fatal(err)
	}
	var b testutil.ZipBuilder
	f := testutil.ZipFile{Name: "text.txt", Method: 12, Packed: packed, CRC: crc32.ChecksumIEEE(want), Size: uint64(len(want))}
	b.Add(f)
	data := b.Bytes()
	for _, w := range []int{0, 1, 4} {
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.Workers(w))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := a.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("workers %d: %v", w, err)
		}
	}
	l9, err := os.ReadFile("../internal/bzip2/testdata/text-l9.bz2")
	if err != nil {
		t.Fatal(err)
	}
	var b9 testutil.ZipBuilder
	f.Packed = l9
	b9.Add(f)
	data = b9.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: arc.Limits{MaxMemory: memBZip2}}))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a.Open(0)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("level 9 under MaxMemory %d: %v, want ErrLimit", memBZip2, err)
	}
}

// bzip2Workers counts the goroutines running the bzip2 block workers.
func bzip2Workers() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return bytes.Count(buf, []byte("bzip2.(*parallel).worker("))
}

// TestBZip2WorkerPool: with a worker pool set (engine.SharedWorkers, as the
// root's parallel Extract does), a BZip2 entry takes its extra goroutines
// from the pool, up to Config.Workers, whatever SetEntryWorkers said: none
// when the pool is empty, some when it has tokens, all given back.
func TestBZip2WorkerPool(t *testing.T) {
	packed, err := os.ReadFile("../internal/bzip2/testdata/text-l1.bz2")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(stdbzip2.NewReader(bytes.NewReader(packed)))
	if err != nil {
		t.Fatal(err)
	}
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "text.txt", Method: 12, Packed: packed, CRC: crc32.ChecksumIEEE(want), Size: uint64(len(want))})
	data := b.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.Workers(4))
	if err != nil {
		t.Fatal(err)
	}
	a.caps().SetEntryWorkers(1) // four units on four workers
	for _, free := range []int{0, 3} {
		wp := engine.NewWorkerPool(free)
		a.caps().SetWorkerPool(wp)
		rc, err := a.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 1000)
		if _, err := io.ReadFull(rc, head); err != nil {
			t.Fatal(err)
		}
		w := bzip2Workers()
		rest, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(append(head, rest...), want) {
			t.Fatalf("pool of %d: %v", free, err)
		}
		if free == 0 && w != 0 {
			t.Fatalf("empty pool: %d block workers running", w)
		}
		if free > 0 && w == 0 {
			t.Fatalf("pool of %d: no block worker ran", free)
		}
		if wp.Free() != free {
			t.Fatalf("pool of %d: %d free after Close", free, wp.Free())
		}
	}
	a.caps().SetWorkerPool(nil)
	rc, err := a.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1000)
	io.ReadFull(rc, head)
	w := bzip2Workers()
	rc.Close()
	if w != 0 {
		t.Fatalf("no pool, one entry worker: %d block workers running", w)
	}
}

package sevenzip

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/pool"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestReleaseMemoryFreesWindows: after an extraction, the LZMA window
// is held only by internal/pool, so pool.Release (unarc.ReleaseMemory)
// gives it back.
func TestReleaseMemoryFreesWindows(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("sync.Pool drops items under -race")
	}
	content := make([]byte, 8<<20)
	rand.NewChaCha8([32]byte{7}).Read(content)
	data := oneFileArchive(lzma2Stored(content), []coderSpec{lzma2Coder(23)}, []uint64{uint64(len(content))}, crc32.ChecksumIEEE(content))
	got, err := readEntry0(data, arc.Limits{})
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read: %v", err)
	}
	got, content = nil, nil
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	pool.Release()
	after := heap()
	t.Logf("heap %d before Release, %d after", before, after)
	if before < after+6<<20 {
		t.Errorf("Release freed %d bytes, want the 8 MiB window", int64(before)-int64(after))
	}
}

// TestCloseInvalidatesReaders: closing an Archive while its entry
// readers are open makes them fail with fs.ErrClosed; readers of another
// archive in the same process are unaffected, and no reader ever sees
// bytes that are not its entry's.
func TestCloseInvalidatesReaders(t *testing.T) {
	open := func(path string) (*Archive, map[int][]byte) {
		a, err := openFile(t, path, "")
		if err != nil {
			t.Fatal(err)
		}
		want := map[int][]byte{}
		for i, e := range a.Entries() {
			if !e.IsDir() {
				rc, err := a.Open(i)
				if err != nil {
					t.Fatal(err)
				}
				want[i], err = io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		return a, want
	}
	for round := 0; round < 4; round++ {
		a, wantA := open("../testdata/7z/lzma2_nonsolid.7z")
		b, wantB := open("../testdata/7z/lzma2.7z")
		var wg sync.WaitGroup
		errc := make(chan error, 64)
		started := make(chan struct{}, 16)
		read := func(x *Archive, want map[int][]byte, mayClose bool) {
			defer wg.Done()
			for pass := 0; pass < 3; pass++ {
				for i, w := range want {
					rc, err := x.Open(i)
					if err != nil {
						if mayClose && errors.Is(err, fs.ErrClosed) {
							return
						}
						errc <- err
						return
					}
					select {
					case started <- struct{}{}:
					default:
					}
					var got []byte
					buf := make([]byte, 7)
					for {
						n, err := rc.Read(buf)
						got = append(got, buf[:n]...)
						if !bytes.HasPrefix(w, got) {
							errc <- errors.New("a reader saw bytes not of its entry")
							rc.Close()
							return
						}
						if err == io.EOF {
							break
						}
						if err != nil {
							rc.Close()
							if mayClose && errors.Is(err, fs.ErrClosed) {
								return
							}
							errc <- err
							return
						}
					}
					rc.Close()
				}
			}
		}
		for g := 0; g < 3; g++ {
			wg.Add(2)
			go read(a, wantA, true)
			go read(b, wantB, false)
		}
		<-started
		a.Close()
		wg.Wait()
		b.Close()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		if _, err := a.Open(0); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("Open after Close: %v", err)
		}
	}
}

// TestReaderAfterClose: an entry reader whose Archive is closed mid-read
// fails with fs.ErrClosed instead of reading on.
func TestReaderAfterClose(t *testing.T) {
	a, err := openFile(t, "../testdata/7z/lzma2.7z", "")
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for a.Entries()[i].Size < 2 {
		i++
	}
	rc, err := a.Open(i)
	if err != nil {
		t.Fatal(err)
	}
	var one [1]byte
	if _, err := rc.Read(one[:]); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := io.ReadAll(rc); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("read after Archive.Close: %v, want fs.ErrClosed", err)
	}
	rc.Close()
	if _, err := rc.Read(one[:]); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("read after Close: %v, want fs.ErrClosed", err)
	}
}

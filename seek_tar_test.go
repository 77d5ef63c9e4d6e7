package unarc_test

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc"
)

// seekTarballs: compressed tarballs whose seekable entries resume from
// checkpoints of the stream (testdata/tar/make-seek.sh).
var seekTarballs = []string{"seek.tar.gz", "seek.tar.bz2", "seek.tar.lz", "seek.tar.lzma", "seek.tar.xz", "small-multimember.tar.gz"}

// TestSeekableTar: Seek, Read and ReadAt at random offsets of every
// entry of compressed tarballs give the sequential bytes, with
// checkpoints (taken across entries: one stream) and without.
func TestSeekableTar(t *testing.T) {
	for _, name := range seekTarballs {
		for _, cp := range []int64{64 << 10, 0} {
			if cp == 0 && name != "seek.tar.gz" {
				continue // each backward seek decodes the stream from its start: slow
			}
			t.Run(name+"/cp="+map[bool]string{true: "64k", false: "off"}[cp > 0], func(t *testing.T) {
				a, err := unarc.OpenFile(filepath.Join("testdata", "tar", name), unarc.WithCheckpoints(cp, 64<<20))
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				want := sequential(t, a)
				for _, e := range a.Entries() {
					w, ok := want[e.Index]
					if !ok || len(w) < 20000 { // the largest few: the stream is decoded again per backward seek
						continue
					}
					s, err := a.OpenSeekable(e)
					if err != nil {
						t.Fatal(err)
					}
					if int64(len(w)) == e.Size { // SeekEnd needs the size
						checkSeekOps(t, s, w, uint64(e.Index), seekOps(20))
					}
					s.Close()
				}
				if st := a.CheckpointStats(); cp == 0 && st.Taken != 0 {
					t.Fatalf("checkpoints off, but %+v", st)
				}
			})
		}
	}
}

// TestSeekableTarClose: SeekableEntries of a tarball read at random on
// several goroutines while one of them and the Archive are closed
// (go test -race): reads fail with fs.ErrClosed or give the bytes.
func TestSeekableTarClose(t *testing.T) {
	for _, name := range []string{"seek.tar.gz", "seek.tar.bz2"} {
		a, err := unarc.OpenFile(filepath.Join("testdata", "tar", name), unarc.WithCheckpoints(64<<10, 64<<20))
		if err != nil {
			t.Fatal(err)
		}
		want := sequential(t, a)
		var wg sync.WaitGroup
		errc := make(chan error, 8)
		var first *unarc.SeekableEntry
		for g, e := range a.Entries() {
			w := want[e.Index]
			if len(w) < 4096 || g > 8 {
				continue
			}
			s, err := a.OpenSeekable(e)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = s
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.Close()
				r := rand.New(rand.NewPCG(uint64(g), 4))
				p := make([]byte, 3000)
				for range 50 {
					off := r.Int64N(int64(len(w)))
					n, err := s.ReadAt(p, off)
					if err != nil && err != io.EOF {
						if !errors.Is(err, fs.ErrClosed) {
							errc <- err
						}
						return
					}
					if string(p[:n]) != string(w[off:off+int64(n)]) {
						errc <- errors.New(e.Name + ": bytes differ")
						return
					}
				}
			}()
		}
		first.Close()
		a.Close()
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
	}
}

package unarc_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc"
)

// seekArchives are testdata/seek's archives (made by its make.sh).
var seekArchives = []string{
	"lzma2.7z", "lzma2-aes.7z", "lzma.7z", "lzma-big.7z", "lzma-big-aes.7z", "delta-lzma2.7z", "copy.7z", "copy-aes.7z",
	"store.zip", "store-zipcrypto.zip", "store-aes.zip", "deflate.zip", "deflate-words.zip", "deflate-words-aes.zip",
	"solid.rar", "store.rar", "store-aes.rar", "solid4.rar", "store-aes4.rar", "solid4-big.rar", "solid4-ppm.rar",
	"r5-solid.rar", "r5-solid-aes.rar", "r5-plain-aes.rar", "r5-m5.rar", "r5-words.rar",
	"bzip2-7zz.zip", "bzip2-infozip.zip", "bzip2-aes.zip", "bzip2-solid.7z", "bzip2-solid-aes.7z",
	"ppmd-o8.zip", "ppmd-o8-aes.zip", "ppmd-cut.zip", "ppmd-solid.7z", "ppmd-solid-aes.7z",
}

func openSeekTestdata(t testutil.TB, name string, opts ...unarc.Option) *unarc.Archive {
	t.Helper()
	opts = append([]unarc.Option{unarc.WithPassword("seek")}, opts...)
	a, err := unarc.OpenFile(filepath.Join("testdata", "seek", name), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// sequential reads every regular entry of a through OpenEntry.
func sequential(t testutil.TB, a *unarc.Archive) map[int][]byte {
	t.Helper()
	es := a.Entries()
	return testutil.ReadEach(t, len(es), func(i int) bool { return !es[i].IsDir() }, func(i int) (io.ReadCloser, error) { return a.OpenEntry(es[i]) })
}

// checkSeekOps runs a fixed-seed sequence of ReadAt, Seek+Read and
// SeekEnd reads on s and compares each with want.
func checkSeekOps(t *testing.T, s *unarc.SeekableEntry, want []byte, seed uint64, ops int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	size := int64(len(want))
	buf := make([]byte, 40<<10)
	for op := range ops {
		off := r.Int64N(size + 2)
		n := r.IntN(len(buf)) + 1
		if r.IntN(5) == 0 {
			n = r.IntN(16) + 1
		}
		p := buf[:n]
		var got int
		var err error
		switch r.IntN(3) {
		case 0:
			got, err = s.ReadAt(p, off)
			wantN := int(max(0, min(int64(n), size-off)))
			if got != wantN || (wantN < n) != (err == io.EOF) || err != nil && err != io.EOF {
				t.Fatalf("op %d: ReadAt(%d bytes at %d) = %d, %v; want %d", op, n, off, got, err, wantN)
			}
		case 1:
			if _, err := s.Seek(off, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			got, err = io.ReadFull(s, p)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
		case 2:
			back := r.Int64N(size + 1)
			pos, err2 := s.Seek(-back, io.SeekEnd)
			if err2 != nil || pos != size-back {
				t.Fatalf("op %d: Seek(-%d, end) = %d, %v", op, back, pos, err2)
			}
			off = pos
			got, err = io.ReadFull(s, p)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
		}
		if err != nil && err != io.EOF {
			t.Fatalf("op %d at %d: %v", op, off, err)
		}
		if off > size {
			off = size
		}
		if !bytes.Equal(p[:got], want[off:off+int64(got)]) {
			t.Fatalf("op %d: %d bytes at %d differ from a sequential read", op, got, off)
		}
		if off+int64(got) < size && err == io.EOF {
			t.Fatalf("op %d: EOF at %d of %d", op, off+int64(got), size)
		}
	}
}

// seekOps is n, or a quarter of it under -short (the race run).
func seekOps(n int) int {
	if testing.Short() {
		return n / 4
	}
	return n
}

// slowPPMd: the seek archives that decode PPMd (seconds per seek
// sequence under the race detector).
func slowPPMd(name string) bool {
	return strings.HasPrefix(name, "ppmd-") || strings.HasSuffix(name, "-ppm.rar")
}

// TestSeekableEntries: every method's random seek/read sequence equals
// the sequential read, with checkpoints every 64 KiB and without.
func TestSeekableEntries(t *testing.T) {
	for _, name := range seekArchives {
		for _, cp := range []int64{64 << 10, 0} {
			t.Run(name+"/cp="+map[bool]string{true: "64k", false: "off"}[cp > 0], func(t *testing.T) {
				if testing.Short() && raceOnExt && slowPPMd(name) && (cp == 0 || name != "ppmd-o8.zip" && name != "ppmd-solid.7z") {
					t.Skip("PPMd under the race detector: two archives with checkpoints under -short")
				}
				a := openSeekTestdata(t, name, unarc.WithCheckpoints(cp, 64<<20))
				want := sequential(t, a)
				if len(want) < 1 {
					t.Fatalf("%d entries", len(want))
				}
				for _, e := range a.Entries() {
					w, ok := want[e.Index]
					if !ok {
						continue
					}
					s, err := a.OpenSeekable(e)
					if err != nil {
						t.Fatal(err)
					}
					if int64(len(w)) == e.Size && e.Size > 0 {
						checkSeekOps(t, s, w, uint64(e.Index), seekOps(40))
					}
					s.Close()
				}
				st := a.CheckpointStats()
				if cp > 0 && (name == "lzma2.7z" || name == "lzma2-aes.7z" || strings.HasPrefix(name, "lzma-big") || strings.HasPrefix(name, "deflate-words")) && st.Taken == 0 {
					t.Fatalf("no checkpoint taken: %+v", st)
				}
				if cp == 0 && st.Taken != 0 {
					t.Fatalf("checkpoints off, but %+v", st)
				}
			})
		}
	}
}

// TestSeekableVerifies: a sequential read through a SeekableEntry
// verifies the CRC; a damaged entry read to its end through it fails
// with ErrChecksum.
func TestSeekableVerifies(t *testing.T) {
	for _, name := range []string{"store.zip", "copy.7z", "store.rar"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "seek", name))
			if err != nil {
				t.Fatal(err)
			}
			// Flip a byte inside a.txt's content ("ok\n" lines of hex):
			// the first 8-hex-digit run after its name in the data.
			i := bytes.Index(b, []byte(" ok\n"))
			if i < 0 {
				t.Fatal("no content found")
			}
			b[i+1] ^= 0x20
			a, err := unarc.Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			var sawChecksum bool
			for _, e := range a.Entries() {
				s, err := a.OpenSeekable(e)
				if err != nil {
					t.Fatal(err)
				}
				_, err = io.Copy(io.Discard, s)
				s.Close()
				if errors.Is(err, unarc.ErrChecksum) {
					sawChecksum = true
				} else if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
			}
			if !sawChecksum {
				t.Fatal("damaged content read without ErrChecksum")
			}
		})
	}
}

// TestSeekableTinyCache: with a checkpoint cache (120 KiB) too small for more
// than one checkpoint, checkpoints are evicted and every read is still
// right.
func TestSeekableTinyCache(t *testing.T) {
	a := openSeekTestdata(t, "lzma2.7z", unarc.WithCheckpoints(64<<10, 120<<10))
	want := sequential(t, a)
	for _, e := range a.Entries() {
		w, ok := want[e.Index]
		if !ok || e.Size == 0 {
			continue
		}
		s, err := a.OpenSeekable(e)
		if err != nil {
			t.Fatal(err)
		}
		checkSeekOps(t, s, w, 7+uint64(e.Index), seekOps(50))
		s.Close()
	}
	st := a.CheckpointStats()
	if st.Evicted == 0 || st.Count > 1 || st.Bytes > 120<<10 {
		t.Fatalf("cache of 120 KiB: %+v", st)
	}
}

// TestSeekableConcurrent: concurrent ReadAt on one SeekableEntry and on
// several, with Close racing the readers (run it with -race).
func TestSeekableConcurrent(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "solid.rar", "copy-aes.7z", "store-aes.zip"} {
		t.Run(name, func(t *testing.T) {
			a := openSeekTestdata(t, name, unarc.WithCheckpoints(64<<10, 64<<20))
			want := sequential(t, a)
			var big *unarc.Entry
			for _, e := range a.Entries() {
				if big == nil || e.Size > big.Size {
					big = e
				}
			}
			w := want[big.Index]
			shared, err := a.OpenSeekable(big)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errc := make(chan error, 16)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					own, err := a.OpenSeekable(big)
					if err != nil {
						errc <- err
						return
					}
					defer own.Close()
					r := rand.New(rand.NewPCG(uint64(g), 9))
					p := make([]byte, 5000)
					for range 30 {
						off := r.Int64N(int64(len(w)))
						for _, s := range []*unarc.SeekableEntry{shared, own} {
							n, err := s.ReadAt(p, off)
							if errors.Is(err, fs.ErrClosed) && s == shared {
								continue // Close raced us: allowed
							}
							if err != nil && err != io.EOF {
								errc <- err
								return
							}
							if !bytes.Equal(p[:n], w[off:off+int64(n)]) {
								errc <- errors.New("concurrent ReadAt returned wrong bytes")
								return
							}
						}
					}
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := make([]byte, 100)
				shared.ReadAt(p, int64(len(w)/2))
				shared.Close()
			}()
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
			if _, err := shared.ReadAt(make([]byte, 1), 0); !errors.Is(err, fs.ErrClosed) {
				t.Fatalf("ReadAt after Close: %v", err)
			}
		})
	}
}

// TestSeekHTTPRange serves the solid 7z (LZMA2, checkpoints every 64
// KiB) and the solid RAR5 of testdata/seek with http.FileServer and
// checks random Range requests, sequential and concurrent, against a
// sequential read (run it with -race).
func TestSeekHTTPRange(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "solid.rar", "lzma2-aes.7z", "deflate-words-aes.zip"} {
		t.Run(name, func(t *testing.T) {
			a := openSeekTestdata(t, name, unarc.WithCheckpoints(64<<10, 64<<20))
			want := sequential(t, a)
			srv := httptest.NewServer(http.FileServer(http.FS(a)))
			defer srv.Close()
			get := func(r *rand.Rand) error {
				e := a.Entries()[r.IntN(len(a.Entries()))]
				w := want[e.Index]
				if len(w) == 0 {
					return nil
				}
				lo := r.IntN(len(w))
				hi := lo + r.IntN(min(len(w)-lo, 50000))
				req, _ := http.NewRequest("GET", srv.URL+"/"+e.Name, nil)
				req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", lo, hi))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return err
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					return err
				}
				if resp.StatusCode != http.StatusPartialContent {
					return fmt.Errorf("%s %d-%d: status %d", e.Name, lo, hi, resp.StatusCode)
				}
				if !bytes.Equal(body, w[lo:hi+1]) {
					return fmt.Errorf("%s %d-%d: wrong bytes", e.Name, lo, hi)
				}
				return nil
			}
			r := rand.New(rand.NewPCG(1, 2))
			for range seekOps(40) {
				if err := get(r); err != nil {
					t.Fatal(err)
				}
			}
			var wg sync.WaitGroup
			errc := make(chan error, 4)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(g), 3))
					for range seekOps(20) {
						if err := get(r); err != nil {
							errc <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
		})
	}
}

// TestSeekableArchiveClose: closing the Archive while SeekableEntry
// reads run makes them fail with fs.ErrClosed (or finish), never read
// freed state (run it with -race).
func TestSeekableArchiveClose(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "deflate-words.zip", "store-aes.rar"} {
		t.Run(name, func(t *testing.T) {
			a, err := unarc.OpenFile(filepath.Join("testdata", "seek", name), unarc.WithPassword("seek"), unarc.WithCheckpoints(64<<10, 64<<20))
			if err != nil {
				t.Fatal(err)
			}
			var big *unarc.Entry
			for _, e := range a.Entries() {
				if big == nil || e.Size > big.Size {
					big = e
				}
			}
			var wg sync.WaitGroup
			errc := make(chan error, 4)
			for g := range 3 {
				s, err := a.OpenSeekable(big)
				if err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer s.Close()
					r := rand.New(rand.NewPCG(uint64(g), 4))
					p := make([]byte, 3000)
					for range 200 {
						_, err := s.ReadAt(p, r.Int64N(big.Size))
						if err != nil && err != io.EOF {
							if !errors.Is(err, fs.ErrClosed) {
								errc <- err
							}
							return
						}
					}
				}()
			}
			a.Close()
			wg.Wait()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckpointMemoryLimit: Limits.MaxMemory caps the checkpoint cache.
func TestCheckpointMemoryLimit(t *testing.T) {
	a := openSeekTestdata(t, "deflate-words.zip", unarc.WithCheckpoints(64<<10, 64<<20), unarc.WithLimits(unarc.Limits{MaxMemory: 60 << 10}))
	e := a.Entries()[0]
	for _, x := range a.Entries() {
		if x.Size > e.Size {
			e = x
		}
	}
	s, err := a.OpenSeekable(e)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := io.Copy(io.Discard, s); err != nil {
		t.Fatal(err)
	}
	if st := a.CheckpointStats(); st.Bytes > 60<<10 || st.Evicted == 0 {
		t.Fatalf("MaxMemory 60 KiB: %+v", st)
	}
}

package rar

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/engine/conf"
)

// concurrentArchives are solid and non-solid archives of every decoder
// family, with their passwords.
var concurrentArchives = []string{
	"rar/rar5_solid.rar", "rar/rar5_m3.rar", "rar/rar4_solid.rar", "rar/rar4_m3.rar",
	"rar/rar5_hp_solid.rar", "rar29/solid.rar", "rar29/ppmd_solid.rar", "rar29/m3.rar",
	"rarcontract/copies100.rar",
}

type sums struct {
	a    *Archive
	want [][32]byte
	size []int
}

// openSums opens an archive and reads every entry once in order: the
// reference contents (TestTestdata checks them against unrar). Every
// entry must read without error.
func openSums(t *testing.T, rel string) *sums {
	t.Helper()
	path := filepath.Join("../testdata", rel)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err) // committed testdata: missing is a failure
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(config(t, path, testPassword(path))))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	s := &sums{a: a}
	total := 0
	for i := range a.Entries() {
		b, err := readAll(a, i)
		if err != nil {
			t.Fatalf("%s entry %d: %v", rel, i, err)
		}
		s.want = append(s.want, sha256.Sum256(b))
		s.size = append(s.size, len(b))
		total += len(b)
	}
	if total == 0 {
		t.Fatalf("%s: nothing to read", rel)
	}
	return s
}

// readChunks reads rc to the end in chunks of random sizes.
func readChunks(rc io.Reader, rng *rand.Rand) ([32]byte, int, error) {
	h := sha256.New()
	buf := make([]byte, 4096)
	n := 0
	for {
		k, err := rc.Read(buf[:1+rng.IntN(len(buf))])
		h.Write(buf[:k])
		n += k
		if err == io.EOF {
			return [32]byte(h.Sum(nil)), n, nil
		}
		if err != nil {
			return [32]byte{}, n, err
		}
	}
}

// TestConcurrentOpen reads every entry of each archive from 8 goroutines
// at once, each in its own random order and chunk sizes, some holding two
// readers open and alternating between them (run with -race). Every read
// must succeed with the right content: solid readers do not cancel each
// other.
func TestConcurrentOpen(t *testing.T) {
	for _, rel := range concurrentArchives {
		t.Run(rel, func(t *testing.T) {
			s := openSums(t, rel)
			defer s.a.Close()
			n := min(len(s.want), 12) // copies100: the source and some copies
			var wg sync.WaitGroup
			var reads sync.Map
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 7))
					order := rng.Perm(n)
					for k := 0; k < len(order); k++ {
						i := order[k]
						if g%2 == 1 && k+1 < len(order) {
							// Two readers open, read alternately.
							j := order[k+1]
							k++
							if err := alternate(s, i, j, rng); err != nil {
								t.Error(err)
								return
							}
							reads.Store(i, true)
							reads.Store(j, true)
							continue
						}
						rc, err := s.a.Open(i)
						if err != nil {
							t.Errorf("open %d: %v", i, err)
							return
						}
						sum, m, err := readChunks(rc, rng)
						rc.Close()
						if err != nil || sum != s.want[i] || m != s.size[i] {
							t.Errorf("entry %d: %d bytes, %v", i, m, err)
							return
						}
						reads.Store(i, true)
					}
				}()
			}
			wg.Wait()
			got := 0
			reads.Range(func(any, any) bool { got++; return true })
			if got != n {
				t.Errorf("%d of %d entries read", got, n)
			}
		})
	}
}

// alternate opens entries i and j and reads them a chunk at a time in
// turn, checking both.
func alternate(s *sums, i, j int, rng *rand.Rand) error {
	ri, err := s.a.Open(i)
	if err != nil {
		return err
	}
	defer ri.Close()
	rj, err := s.a.Open(j)
	if err != nil {
		return err
	}
	defer rj.Close()
	idx := []int{i, j}
	rcs := []io.Reader{ri, rj}
	hs := []*bytes.Buffer{{}, {}}
	done := []bool{false, false}
	buf := make([]byte, 1000)
	for !done[0] || !done[1] {
		for k := range 2 {
			if done[k] {
				continue
			}
			m, err := rcs[k].Read(buf[:1+rng.IntN(len(buf))])
			hs[k].Write(buf[:m])
			if err == io.EOF {
				done[k] = true
			} else if err != nil {
				return fmt.Errorf("entry %d alternating with %d: %w", idx[k], idx[1-k], err)
			}
		}
	}
	for k := range 2 {
		if sha256.Sum256(hs[k].Bytes()) != s.want[idx[k]] {
			return fmt.Errorf("entry %d alternating with %d: wrong content", idx[k], idx[1-k])
		}
	}
	return nil
}

// TestSolidRoundRobin opens every entry of a solid archive first, then
// reads all readers a few bytes at a time in turn: each gets its own
// bytes, also with memory for one decoder only.
func TestSolidRoundRobin(t *testing.T) {
	for _, rel := range []string{"rar/rar5_solid.rar", "rar/rar4_solid.rar", "rar29/ppmd_solid.rar"} {
		for _, mem := range []int64{0, 1} {
			if mem == 1 && rel == "rar29/ppmd_solid.rar" {
				continue // MaxMemory also bounds the PPMd model
			}
			t.Run(fmt.Sprintf("%s/mem%d", rel, mem), func(t *testing.T) {
				s := openSums(t, rel)
				s.a.Close()
				path := filepath.Join("../testdata", rel)
				cfg := config(t, path, "")
				if mem == 1 {
					cfg.Limits.MaxMemory = 1 // one slot; every switch re-decodes
				}
				data, _ := os.ReadFile(path)
				a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
				if err != nil {
					t.Fatal(err)
				}
				defer a.Close()
				n := len(s.want)
				rcs := make([]io.ReadCloser, n)
				for i := n - 1; i >= 0; i-- {
					if rcs[i], err = a.Open(i); err != nil {
						t.Fatalf("open %d: %v", i, err)
					}
				}
				out := make([]bytes.Buffer, n)
				done := make([]bool, n)
				buf := make([]byte, 97)
				for left := n; left > 0; {
					for i := range n {
						if done[i] {
							continue
						}
						m, err := rcs[i].Read(buf)
						out[i].Write(buf[:m])
						if err == io.EOF {
							done[i] = true
							left--
						} else if err != nil {
							t.Fatalf("entry %d: %v", i, err)
						}
					}
				}
				for i := range n {
					if sha256.Sum256(out[i].Bytes()) != s.want[i] {
						t.Errorf("entry %d: wrong content", i)
					}
					rcs[i].Close()
				}
				if mem == 1 && len(a.solid.slots) != 1 {
					t.Errorf("%d decoders with memory for one", len(a.solid.slots))
				}
			})
		}
	}
}

// TestParallelGets imitates an http.FS server answering 40 requests at
// once for the entries of a solid archive: every body must be complete.
func TestParallelGets(t *testing.T) {
	s := openSums(t, "rar/rar5_solid.rar")
	defer s.a.Close()
	var wg sync.WaitGroup
	errc := make(chan error, 40)
	for g := 0; g < 40; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(s.want)
			rc, err := s.a.Open(i)
			if err != nil {
				errc <- err
				return
			}
			defer rc.Close()
			// http.ServeContent copies through an io.LimitReader.
			h := sha256.New()
			n, err := io.Copy(h, io.LimitReader(rc, int64(s.size[i])))
			if err != nil || n != int64(s.size[i]) || [32]byte(h.Sum(nil)) != s.want[i] {
				errc <- fmt.Errorf("GET %d: %d of %d bytes, %v", i, n, s.size[i], err)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// TestCloseWhileReading closes a solid Archive while goroutines read it
// and another archive is read at the same time: the readers of the closed
// one fail with fs.ErrClosed (or finished correctly before), never return
// wrong bytes, and the other archive's readers are unaffected (-race).
func TestCloseWhileReading(t *testing.T) {
	for round := 0; round < 5; round++ {
		x := openSums(t, "rar/rar5_solid.rar")
		y := openSums(t, "rar/rar5_hp_solid.rar") // the same decoder family
		var wg sync.WaitGroup
		started := make(chan struct{}, 8)
		for g := 0; g < 4; g++ {
			wg.Add(2)
			go func() { // readers of x, which is closed under them
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), uint64(round)))
				first := true
				for k := 0; k < 50; k++ {
					i := rng.IntN(len(x.want))
					rc, err := x.a.Open(i)
					if first {
						started <- struct{}{}
						first = false
					}
					if err != nil {
						if !errors.Is(err, fs.ErrClosed) {
							t.Errorf("x open %d: %v", i, err)
						}
						return
					}
					sum, _, err := readChunks(rc, rng)
					rc.Close()
					if err != nil {
						if !errors.Is(err, fs.ErrClosed) {
							t.Errorf("x entry %d: %v", i, err)
						}
						return
					}
					if sum != x.want[i] {
						t.Errorf("x entry %d: wrong content", i)
						return
					}
				}
			}()
			go func() { // readers of y, which stays open
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 99))
				for k := 0; k < 6; k++ {
					i := rng.IntN(len(y.want))
					rc, err := y.a.Open(i)
					if err != nil {
						t.Errorf("y open %d: %v", i, err)
						return
					}
					sum, _, err := readChunks(rc, rng)
					rc.Close()
					if err != nil || sum != y.want[i] {
						t.Errorf("y entry %d: %v", i, err)
						return
					}
				}
			}()
		}
		<-started
		x.a.Close()
		wg.Wait()
		y.a.Close()
	}
}

// TestStaleReaderAfterClose: a reader left open on a closed solid archive
// fails with fs.ErrClosed; it never reads the decoder the next archive
// took from the pool, and that archive reads its own data.
func TestStaleReaderAfterClose(t *testing.T) {
	x := openSums(t, "rar/rar5_solid.rar")
	big := 0
	for i, n := range x.size {
		if n > x.size[big] {
			big = i
		}
	}
	stale, err := x.a.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	var p [10]byte
	if _, err := io.ReadFull(stale, p[:]); err != nil {
		t.Fatal(err)
	}
	x.a.Close()
	y := openSums(t, "rar/rar5_hp_solid.rar")
	defer y.a.Close()
	by := 0
	for i, n := range y.size {
		if n > y.size[by] {
			by = i
		}
	}
	ry, err := y.a.Open(by)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(ry, p[:]); err != nil {
		t.Fatal(err)
	}
	n, err := stale.Read(p[:])
	if n != 0 || !errors.Is(err, fs.ErrClosed) {
		t.Errorf("stale reader: %d bytes, %v", n, err)
	}
	if _, err := stale.(io.WriterTo).WriteTo(io.Discard); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("stale WriteTo: %v", err)
	}
	rest, err := io.ReadAll(ry)
	if err != nil || sha256.Sum256(append(p[:], rest...)) != y.want[by] {
		t.Errorf("other archive: %v", err)
	}
	stale.Close()
	ry.Close()
	if _, err := x.a.Open(0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Open after Close: %v", err)
	}
	// Non-solid readers fail the same way.
	z := openSums(t, "rar/rar5_m3.rar")
	rz, _ := z.a.Open(0)
	z.a.Close()
	if _, err := rz.Read(p[:]); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("non-solid reader after Close: %v", err)
	}
	rz.Close()
	if _, err := rz.Read(p[:]); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("reader after its Close: %v", err)
	}
}

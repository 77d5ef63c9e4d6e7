package rar

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// openS5 opens testdata/parallel/p20-rar5-s5.rar (rar -s5: solid groups
// of five files, so the stream starts afresh every five files) and
// returns it with its entries' contents read in order on one goroutine.
func openS5(t *testing.T, cfg *arc.Config) (*Archive, map[int][]byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "testdata", "parallel", "p20-rar5-s5.rar"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	es := ref.Entries()
	want := testutil.ReadEach(t, len(es), func(i int) bool { return !es[i].IsDir() && es[i].Link == arc.LinkNone }, ref.Open)
	ref.Close()
	a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return a, want
}

// runsOf groups the entries with content by solid run (Units).
func runsOf(a *Archive, want map[int][]byte) [][]int {
	byUnit := map[int][]int{}
	var order []int
	for i, u := range a.caps().Units() {
		if _, ok := want[i]; !ok {
			continue
		}
		if _, ok := byUnit[u]; !ok {
			order = append(order, u)
		}
		byUnit[u] = append(byUnit[u], i)
	}
	var runs [][]int
	for _, u := range order {
		runs = append(runs, byUnit[u])
	}
	return runs
}

// meetWriter is the destination of one solid run's first entry: its
// first Write waits until the other run's entry is writing too, so the
// test passes only when two solid decoders run at the same time (no
// timing involved unless it fails).
type meetWriter struct {
	bytes.Buffer
	in    chan struct{} // closed at the first Write
	other chan struct{}
	once  sync.Once
	err   error
}

func (w *meetWriter) Write(p []byte) (int, error) {
	w.once.Do(func() {
		close(w.in)
		select {
		case <-w.other:
		case <-time.After(20 * time.Second):
			w.err = io.ErrNoProgress
		}
	})
	return w.Buffer.Write(p)
}

// TestSolidRunsDecodeConcurrently: entries of two solid runs of one
// Archive decode at the same time, each on its own decoder.
func TestSolidRunsDecodeConcurrently(t *testing.T) {
	a, want := openS5(t, &arc.Config{})
	defer a.Close()
	runs := runsOf(a, want)
	if len(runs) < 3 {
		t.Fatalf("%d solid runs, want several", len(runs))
	}
	if !a.IsSolid() {
		t.Fatal("not a solid archive")
	}
	solidBusyMax.Store(0)
	w1 := &meetWriter{in: make(chan struct{})}
	w2 := &meetWriter{in: make(chan struct{})}
	w1.other, w2.other = w2.in, w1.in
	var wg sync.WaitGroup
	for k, w := range []*meetWriter{w1, w2} {
		i := runs[k+1][0]
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := a.Open(i)
			if err != nil {
				w.err = err
				return
			}
			defer rc.Close()
			if _, err := io.Copy(w, rc); err != nil && w.err == nil {
				w.err = err
			}
			if w.err == nil && !bytes.Equal(w.Bytes(), want[i]) {
				w.err = io.ErrShortWrite
			}
		}()
	}
	wg.Wait()
	for _, w := range []*meetWriter{w1, w2} {
		if w.err != nil {
			t.Fatalf("%v (io.ErrNoProgress: the other run's decoder never ran meanwhile)", w.err)
		}
	}
	if n := solidBusyMax.Load(); n < 2 {
		t.Fatalf("at most %d solid decoders at once", n)
	}
}

// TestSolidRunsParallelContent: every solid run read on its own
// goroutine, in order within the run, gives the contents of a plain
// in-order read, with the slots memory allows (one slot: readers wait
// for it or take it over between reads) and with decoders that pipeline.
func TestSolidRunsParallelContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  arc.Config
	}{
		{"default", arc.Config{}},
		{"one-slot", arc.Config{Limits: arc.Limits{MaxMemory: 1}}},
		{"workers", func() (c arc.Config) { c.Workers = 4; return c }()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, want := openS5(t, &tc.cfg)
			defer a.Close()
			runs := runsOf(a, want)
			errc := make(chan error, len(runs))
			for _, run := range runs {
				go func() {
					for _, i := range run {
						rc, err := a.Open(i)
						if err != nil {
							errc <- err
							return
						}
						var b bytes.Buffer
						// Small reads: many lock hand-overs between runs.
						_, err = io.CopyBuffer(&b, struct{ io.Reader }{rc}, make([]byte, 700))
						rc.Close()
						if err != nil {
							errc <- err
							return
						}
						if !bytes.Equal(b.Bytes(), want[i]) {
							errc <- io.ErrShortWrite
							return
						}
					}
					errc <- nil
				}()
			}
			for range runs {
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestSolidCloseWhileDecoding: Archive.Close while solid runs decode
// waits for their decoders; the readers then fail cleanly.
func TestSolidCloseWhileDecoding(t *testing.T) {
	a, want := openS5(t, &arc.Config{})
	runs := runsOf(a, want)
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range run {
				rc, err := a.Open(i)
				if err != nil {
					return
				}
				var b bytes.Buffer
				_, err = io.CopyBuffer(&b, struct{ io.Reader }{rc}, make([]byte, 300))
				rc.Close()
				if err == nil && !bytes.Equal(b.Bytes(), want[i]) {
					t.Errorf("entry %d: wrong content", i)
				}
				if err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(time.Millisecond)
	a.Close()
	wg.Wait()
}

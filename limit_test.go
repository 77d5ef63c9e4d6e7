package unarc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// countWriter counts what reaches the destination.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// readOnly hides WriteTo, so io.Copy takes the Read path.
type readOnly struct{ io.Reader }

// TestDeclaredSize: an entry whose data runs past its declared size is
// ErrCorrupt, and no byte past the declared size reaches the destination,
// through WriteTo (decoders writing from their window) and through Read.
func TestDeclaredSize(t *testing.T) {
	lie := file("lie.bin", "")
	lie.content = bytes.Repeat([]byte{'x'}, 4<<20)
	lie.e.Size = 10
	for _, path := range []string{"writeto", "read"} {
		t.Run(path, func(t *testing.T) {
			a := newFakeOpts([]Option{WithLimits(Limits{MaxRatio: Unlimited})}, lie)
			rc, err := a.OpenEntry(a.Entries()[0])
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			var w countWriter
			if path == "read" {
				_, err = io.Copy(&w, readOnly{rc})
			} else {
				_, err = io.Copy(&w, rc)
			}
			if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrLimit) {
				t.Fatalf("copy: %v, want only ErrCorrupt", err)
			}
			if w.n > 10 {
				t.Errorf("%d bytes reached the destination, declared 10", w.n)
			}
		})
	}
	t.Run("extract", func(t *testing.T) {
		dest := t.TempDir()
		a := newFake(lie, file("ok.txt", "fine"))
		err := a.Extract(context.Background(), dest)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Extract: %v, want ErrCorrupt", err)
		}
		if _, err := os.Stat(filepath.Join(dest, "ok.txt")); err != nil {
			t.Errorf("the next entry was not extracted: %v", err)
		}
		// Nothing, not even a temporary file, grew past 11 bytes.
		filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && fi.Size() > 11 {
				t.Errorf("%s has %d bytes", p, fi.Size())
			}
			return nil
		})
	})
}

// TestTotalSize: MaxTotalSize holds across the entries of one Archive,
// not per entry.
func TestTotalSize(t *testing.T) {
	mk := func(name string) fakeEntry {
		fe := file(name, "")
		fe.content = bytes.Repeat([]byte{'t'}, 600<<10)
		fe.e.PackedSize = int64(len(fe.content))
		return fe
	}
	a := newFakeOpts([]Option{WithLimits(Limits{MaxTotalSize: 1 << 20})}, mk("a"), mk("b"))
	read := func(i int) error {
		rc, err := a.OpenEntry(a.Entries()[i])
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(io.Discard, rc)
		return err
	}
	if err := read(0); err != nil {
		t.Fatalf("first entry: %v", err)
	}
	err := read(1)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("second entry: %v, want ErrLimit", err)
	}
	if !bytes.Contains([]byte(err.Error()), []byte("MaxTotalSize")) {
		t.Errorf("error does not name the limit: %v", err)
	}
	// A new Archive has a new account.
	b := newFakeOpts([]Option{WithLimits(Limits{MaxTotalSize: 1 << 20})}, mk("a"))
	rc, _ := b.OpenEntry(b.Entries()[0])
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Errorf("fresh archive: %v", err)
	}
}

// TestProgressiveRatio: the ratio is measured from what is produced and
// what was really read, so output no header declares (a streamed entry
// of unknown size) is bounded even without a packed size, and only once
// it passes RatioFloor; the same output from an entry that declares its
// size is held to that size instead and passes the ratio.
func TestProgressiveRatio(t *testing.T) {
	bomb := file("solid.bin", "")
	bomb.content = make([]byte, 3<<20)
	bomb.e.Size = -1       // no header declares it
	bomb.e.PackedSize = -1 // consumes nothing the fake counts
	lim := Limits{MaxRatio: 100, RatioFloor: 2 << 20}
	a := newFakeOpts([]Option{WithLimits(lim)}, bomb)
	rc, _ := a.OpenEntry(a.Entries()[0])
	var w countWriter
	_, err := io.Copy(&w, rc)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("copy: %v, want ErrLimit", err)
	}
	if w.n > lim.RatioFloor+64<<10 {
		t.Errorf("%d bytes written before the ratio stopped it", w.n)
	}
	// Declared, the same bytes are not measured by the ratio.
	declared := file("solid.bin", "")
	declared.content = make([]byte, 3<<20)
	declared.e.PackedSize = -1
	a = newFakeOpts([]Option{WithLimits(lim)}, declared)
	rc, _ = a.OpenEntry(a.Entries()[0])
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Errorf("declared output: %v", err)
	}
	// Under the floor nothing is checked.
	small := file("small.bin", "")
	small.content = make([]byte, 1<<20)
	small.e.Size = -1
	small.e.PackedSize = -1
	a = newFakeOpts([]Option{WithLimits(lim)}, small)
	rc, _ = a.OpenEntry(a.Entries()[0])
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Errorf("under the floor: %v", err)
	}
	// Enough input consumed: the same output passes.
	ok := file("ok.bin", "")
	ok.content = make([]byte, 3<<20)
	ok.e.PackedSize = 100 << 10
	a = newFakeOpts([]Option{WithLimits(lim)}, ok)
	rc, _ = a.OpenEntry(a.Entries()[0])
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Errorf("ratio 30 under 100: %v", err)
	}
}

// TestAccountConcurrent: entry readers of one Archive charge one account
// from several goroutines (run with -race).
func TestAccountConcurrent(t *testing.T) {
	var list []fakeEntry
	for i := 0; i < 8; i++ {
		fe := file(string(rune('a'+i)), "")
		fe.content = make([]byte, 256<<10)
		fe.e.PackedSize = 1
		list = append(list, fe)
	}
	a := newFakeOpts([]Option{WithLimits(Limits{MaxTotalSize: 8 * 256 << 10})}, list...)
	var wg sync.WaitGroup
	for _, e := range a.Entries() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := a.OpenEntry(e)
			if err != nil {
				t.Error(err)
				return
			}
			defer rc.Close()
			if _, err := io.Copy(io.Discard, readOnly{rc}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := a.acct.produced.Load(); got != 8*256<<10 {
		t.Errorf("produced %d, want %d", got, 8*256<<10)
	}
	rc, _ := a.OpenEntry(a.Entries()[0])
	if _, err := io.Copy(io.Discard, rc); !errors.Is(err, ErrLimit) {
		t.Errorf("past the total: %v, want ErrLimit", err)
	}
}

// TestLimitReaderAllocs: resetting and running the per-entry limiter
// with an account allocates nothing.
func TestLimitReaderAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	lim := conf.MustLimits(SafeLimits)
	acct := newAccount(&lim)
	acct.consumed.Add(1 << 30)
	data := make([]byte, 1<<20)
	e := &Entry{Size: int64(len(data))}
	var l limitReader
	var br bytes.Reader
	var w countWriter
	buf := make([]byte, 32<<10)
	allocs := testing.AllocsPerRun(20, func() {
		br.Reset(data)
		l.reset(&br, nil, e, &lim, acct)
		if _, err := l.WriteTo(&w); err != nil {
			t.Fatal(err)
		}
		br.Reset(data)
		l.reset(&br, nil, e, &lim, acct)
		for {
			if _, err := l.Read(buf); err != nil {
				break
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per entry", allocs)
	}
}

// TestAccountErrors: each limit names itself and wraps only ErrLimit;
// declared output counts toward MaxTotalSize but not toward MaxRatio.
func TestAccountErrors(t *testing.T) {
	lim := conf.MustLimits(Limits{MaxTotalSize: 100, MaxRatio: 2, RatioFloor: 10})
	a := newAccount(&lim)
	a.consumed.Add(1000)
	if err := a.charge(50, false); err != nil {
		t.Fatal(err)
	}
	err := a.charge(51, true)
	if !errors.Is(err, errs.ErrLimit) || LimitName(err) != "MaxTotalSize" || !bytes.Contains([]byte(err.Error()), []byte("MaxTotalSize (100")) {
		t.Errorf("total: %v", err)
	}
	lim = conf.MustLimits(Limits{MaxRatio: 2, RatioFloor: 10})
	a = newAccount(&lim)
	a.consumed.Add(10)
	if err := a.charge(20, false); err != nil {
		t.Errorf("ratio 2 at most 2: %v", err)
	}
	err = a.charge(1, false)
	if !errors.Is(err, errs.ErrLimit) || LimitName(err) != "MaxRatio" || !bytes.Contains([]byte(err.Error()), []byte("MaxRatio (2)")) {
		t.Errorf("ratio: %v", err)
	}
	// Declared output, however far past the ratio, is not measured by it.
	a = newAccount(&lim)
	a.consumed.Add(10)
	if err := a.charge(1<<20, true); err != nil {
		t.Errorf("declared output at ratio 100000: %v", err)
	}
	if err := a.charge(20, false); err != nil {
		t.Errorf("undeclared output at ratio 2 after declared output: %v", err)
	}
	if err := a.charge(1, false); LimitName(err) != "MaxRatio" {
		t.Errorf("undeclared output past the ratio after declared output: %v", err)
	}
	var nilAcct *account
	if err := nilAcct.charge(math.MaxInt, false); err != nil {
		t.Errorf("nil account: %v", err)
	}
}

// TestLiftedUnknownSize: with MaxEntrySize lifted (MaxInt64) and no
// declared size, the read bound must not overflow.
func TestLiftedUnknownSize(t *testing.T) {
	fe := file("s", "streamed")
	fe.e.Size = -1
	a := newFakeOpts([]Option{WithLimits(Limits{MaxEntrySize: Unlimited})}, fe)
	a.Entries()[0].Size = -1
	rc, err := a.OpenEntry(a.Entries()[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(readOnly{rc})
	if err != nil || string(got) != "streamed" {
		t.Errorf("%q, %v", got, err)
	}
}

// TestMaxEntriesRoot: the root holds MaxEntries for any format, in the
// Archive (after the format's own check) and in the stream Reader.
func TestMaxEntriesRoot(t *testing.T) {
	var b testutil.ZipBuilder
	for i := 0; i < 5; i++ {
		b.Add(testutil.ZipFile{Name: string(rune('a' + i)), Packed: []byte{}})
	}
	data := b.Bytes()
	lim := WithLimits(Limits{MaxEntries: 4})
	r, err := NewReader(bytes.NewReader(data), lim)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for ; ; n++ {
		if _, err = r.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrLimit) || n != 4 {
		t.Errorf("Reader: %d entries, then %v; want 4 and ErrLimit", n, err)
	}
	// The fake format does no check of its own.
	var list []fakeEntry
	for i := 0; i < 5; i++ {
		list = append(list, file(string(rune('a'+i)), "x"))
	}
	fa := newFake(list...).a
	if err := checkEntryCount(fa, bounds(Limits{MaxEntries: 4})); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxEntries (4)") {
		t.Errorf("Archive: %v, want ErrLimit", err)
	}
	if err := checkEntryCount(fa, bounds(Limits{MaxEntries: 5})); err != nil {
		t.Errorf("Archive at the limit: %v", err)
	}
}

// bounds resolves l as an Open does, for a check called directly.
func bounds(l Limits) *engine.Limits {
	b := conf.MustLimits(l)
	return &b
}

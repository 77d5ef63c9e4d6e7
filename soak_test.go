package unarc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-unarc/unarc"
)

// TestSoak holds the library under load: SOAK_WORKERS goroutines (32)
// open, read at random offsets, stream, extract and close archives of
// every format in testdata, with random cancellation and Close during
// reads, for $UNARC_SOAK (a duration: 10m for the long run, 1m under
// -race). Every byte read is checked against the content read once,
// alone, before the load starts. At the end the RSS and the goroutine
// count must be flat: the last part of the run (its last minute, or
// last fifth when shorter than five minutes) against the middle (the
// first is warm-up, logged beside them), and the goroutines once the
// workers have stopped against those before.
//
//	UNARC_SOAK=10m go test -run TestSoak -timeout 30m -v .
//	UNARC_SOAK=1m go test -race -run TestSoak -timeout 20m -v .
func TestSoak(t *testing.T) {
	v := os.Getenv("UNARC_SOAK")
	if v == "" {
		t.Skip("set UNARC_SOAK to a duration (e.g. 10m) to run the soak test")
	}
	dur, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("UNARC_SOAK=%q: %v", v, err)
	}
	workers := 32
	if s := os.Getenv("SOAK_WORKERS"); s != "" {
		if workers, err = strconv.Atoi(s); err != nil || workers < 1 {
			t.Fatalf("SOAK_WORKERS=%q", s)
		}
	}
	set := soakArchives(t)
	t.Logf("%d archives, %d entries with content", len(set), soakCount(set))

	runtime.GC()
	baseG := runtime.NumGoroutine()
	var samples []soakSample
	var smu sync.Mutex
	start := time.Now()
	sample := func() {
		smu.Lock()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		samples = append(samples, soakSample{time.Since(start), rssBytes(), runtime.NumGoroutine(), int64(ms.HeapAlloc), int64(ms.HeapSys - ms.HeapReleased)})
		smu.Unlock()
	}
	sample()

	var st soakStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	failures := make(chan string, 64)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			dir := t.TempDir()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				a := set[rng.IntN(len(set))]
				if msg := soakOne(rng, a, filepath.Join(dir, strconv.Itoa(n)), &st); msg != "" {
					select {
					case failures <- msg:
					default:
					}
				}
			}
		}()
	}
	tick := time.NewTicker(time.Second)
	deadline := time.After(dur)
loop:
	for {
		select {
		case <-tick.C:
			sample()
		case msg := <-failures:
			t.Error(msg)
		case <-deadline:
			break loop
		}
	}
	tick.Stop()
	if p := os.Getenv("SOAK_HEAPPROFILE"); p != "" {
		// What is live under load, for a run whose memory grows.
		if f, err := os.Create(p); err == nil {
			runtime.GC()
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	close(stop)
	for i, x := range samples {
		if i%10 == 0 {
			t.Logf("  at %3ds: RSS %4d MiB, heap %4d MiB (held %4d MiB), %3d goroutines", int(x.at.Seconds()), x.rss>>20, x.heap>>20, x.held>>20, x.g)
		}
	}
	wg.Wait()
	close(failures)
	for msg := range failures {
		t.Error(msg)
	}
	sample()

	// Goroutines: the readers' and decoders' own must all be gone.
	var endG int
	for range 50 {
		runtime.GC()
		if endG = runtime.NumGoroutine(); endG <= baseG {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	unarc.ReleaseMemory()
	t.Logf("operations: %d opens, %d ReadAt checks (%d MiB), %d streamed entries, %d extractions (%d cancelled), %d closes during reads",
		st.opens.Load(), st.readAts.Load(), st.readBytes.Load()>>20, st.streamed.Load(), st.extracts.Load(), st.cancelled.Load(), st.closesDuring.Load())

	win := time.Minute
	if dur < 5*time.Minute {
		win = dur / 5
	}
	// The first window holds the warm-up: under 32 goroutines the heap
	// and the pools take minutes to reach their working size (measured:
	// the heap held from the OS grows for about 200 s of a 10-minute run,
	// then stays flat). Flat means the last window is no larger than the
	// one in the middle of the run by more than a quarter plus 64 MiB;
	// the first is logged beside them.
	first := soakWindow(samples, 0, win)
	mid := soakWindow(samples, dur/2-win/2, dur/2+win/2)
	last := soakWindow(samples, dur-win, dur+time.Hour)
	t.Logf("RSS max: first %v %d MiB, middle %d MiB, last %d MiB; heap held from the OS: %d / %d / %d MiB; goroutines: before %d, under load max %d / %d / %d, after %d",
		win, first.rss>>20, mid.rss>>20, last.rss>>20, first.held>>20, mid.held>>20, last.held>>20, baseG, first.g, mid.g, last.g, endG)
	if endG > baseG+1 {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines leaked: %d before, %d after\n%s", baseG, endG, buf[:runtime.Stack(buf, true)])
	}
	if dur < 5*time.Minute {
		// The heap takes minutes to reach its working size (above): a
		// short run (the -race one) checks bytes, races and goroutines,
		// the long one flatness.
		t.Logf("run shorter than 5 minutes: RSS and heap flatness not judged")
		return
	}
	if mid.rss > 0 && last.rss > mid.rss+mid.rss/4+64<<20 {
		t.Errorf("RSS grew: %d MiB in the middle %v, %d MiB in the last", mid.rss>>20, win, last.rss>>20)
	}
	if mid.held > 0 && last.held > mid.held+mid.held/4+64<<20 {
		t.Errorf("heap grew: %d MiB held in the middle %v, %d MiB in the last", mid.held>>20, win, last.held>>20)
	}
	if last.g > mid.g+workers {
		t.Errorf("goroutines under load grew: %d in the middle %v, %d in the last", mid.g, win, last.g)
	}
}

type soakSample struct {
	at   time.Duration
	rss  int64
	g    int
	heap int64 // live and not yet collected heap (HeapAlloc)
	held int64 // heap memory held from the OS (HeapSys - HeapReleased)
}

type soakStats struct {
	opens, readAts, readBytes, streamed, extracts, cancelled, closesDuring atomic.Int64
}

// soakWindow is the largest RSS and goroutine count sampled in [from, to).
func soakWindow(s []soakSample, from, to time.Duration) soakSample {
	var m soakSample
	for _, x := range s {
		if x.at >= from && x.at < to {
			m.rss = max(m.rss, x.rss)
			m.g = max(m.g, x.g)
			m.held = max(m.held, x.held)
		}
	}
	return m
}

// rssBytes reads the resident set size from /proc (0 where there is none).
func rssBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// soakArchive is one testdata archive with the content of each entry.
type soakArchive struct {
	path    string
	format  string
	content map[string][]byte // regular entries by name
	links   map[string]string // symlinks: name → target
	names   []string          // regular entries with content, in a stable order
}

// soakArchives opens every archive in testdata that reads without a
// password or an error (the hostile and broken ones are other tests'
// business) and keeps what each entry holds.
func soakArchives(t *testing.T) []*soakArchive {
	var set []*soakArchive
	formats := map[string]int{}
	for _, dir := range []string{"7z", "zip", "rar", "rar5u", "rar29", "rar15", "rar20", "tar", "xz", "deflate", "aes7z", "parallel", "seek", "verify"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, p := range files {
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || fi.Size() > 8<<20 || soakSkip(p) {
				continue
			}
			sa := soakLoad(p)
			if sa == nil {
				continue
			}
			set = append(set, sa)
			formats[sa.format]++
		}
	}
	if len(set) == 0 {
		t.Skip("no archives in testdata")
	}
	t.Logf("formats: %v", formats)
	return set
}

func soakSkip(p string) bool {
	base := filepath.Base(p)
	for _, s := range []string{".sh", ".py", ".go", ".txt", ".md", ".json", "SOURCES"} {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	// Later volumes are read through the first.
	return strings.Contains(base, ".part2") || strings.Contains(base, ".part3") ||
		strings.HasSuffix(base, ".r00") || (strings.Contains(base, ".7z.0") && !strings.HasSuffix(base, ".001"))
}

func soakLoad(p string) *soakArchive {
	a, err := unarc.OpenFile(p)
	if err != nil {
		return nil
	}
	defer a.Close()
	sa := &soakArchive{path: p, format: a.Format(), content: map[string][]byte{}, links: map[string]string{}}
	var total int64
	for _, e := range a.Entries() {
		if e.Encrypted {
			return nil
		}
		switch {
		case e.Mode&fs.ModeSymlink != 0:
			target, err := a.LinkTarget(e)
			if err != nil {
				return nil
			}
			sa.links[e.Name] = target
		case e.Mode.IsRegular() && e.Link == unarc.LinkNone:
			if _, dup := sa.content[e.Name]; dup {
				return nil // which one Extract keeps is the overwrite policy's business
			}
			rc, err := a.OpenEntry(e)
			if err != nil {
				return nil
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil
			}
			total += int64(len(b))
			sa.content[e.Name] = b
			if len(b) > 0 {
				sa.names = append(sa.names, e.Name)
			}
		}
	}
	if len(sa.names) == 0 || total > 16<<20 || len(a.Warnings()) > 0 {
		return nil
	}
	// An archive whose calm extraction fails (an escaping link, a name
	// conflict) tests the refusals, not the load: leave it out.
	dir, err := os.MkdirTemp("", "soak-")
	if err != nil {
		return nil
	}
	defer os.RemoveAll(dir)
	if a.Extract(context.Background(), dir) != nil {
		return nil
	}
	slices.Sort(sa.names)
	return sa
}

func soakCount(set []*soakArchive) int {
	n := 0
	for _, a := range set {
		n += len(a.names)
	}
	return n
}

// soakOne runs one random operation; it returns a description of what
// went wrong, or "".
func soakOne(rng *rand.Rand, sa *soakArchive, dir string, st *soakStats) string {
	switch rng.IntN(4) {
	case 0, 1:
		return soakReadAt(rng, sa, st)
	case 2:
		return soakStream(rng, sa, st)
	default:
		return soakExtract(rng, sa, dir, st)
	}
}

// soakReadAt opens one entry for random access and checks reads at
// random offsets; one time in four another goroutine closes the entry
// while the reads go on, and every read must then give the right bytes
// or an error.
func soakReadAt(rng *rand.Rand, sa *soakArchive, st *soakStats) string {
	a, err := unarc.OpenFile(sa.path)
	if err != nil {
		return fmt.Sprintf("%s: open: %v", sa.path, err)
	}
	defer a.Close()
	st.opens.Add(1)
	name := sa.names[rng.IntN(len(sa.names))]
	want := sa.content[name]
	var e *unarc.Entry
	for _, x := range a.Entries() {
		if x.Name == name && x.Mode.IsRegular() {
			e = x
			break
		}
	}
	if e == nil {
		return fmt.Sprintf("%s: %s missing on reopen", sa.path, name)
	}
	se, err := a.OpenSeekable(e)
	if err != nil {
		return fmt.Sprintf("%s: %s: OpenSeekable: %v", sa.path, name, err)
	}
	closeDuring := rng.IntN(4) == 0
	var closed atomic.Bool
	done := make(chan struct{})
	if closeDuring {
		delay := time.Duration(rng.IntN(2000)) * time.Microsecond
		go func() {
			defer close(done)
			time.Sleep(delay)
			closed.Store(true)
			se.Close()
		}()
		st.closesDuring.Add(1)
	} else {
		close(done)
	}
	defer func() {
		<-done
		if !closeDuring {
			se.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	for range 1 + rng.IntN(8) {
		off := rng.Int64N(int64(len(want)))
		n := 1 + rng.IntN(min(len(buf), len(want)-int(off)))
		got, err := se.ReadAt(buf[:n], off)
		if err != nil && !(errors.Is(err, io.EOF) && off+int64(got) == int64(len(want))) {
			if closeDuring && closed.Load() {
				if !bytes.Equal(buf[:got], want[off:off+int64(got)]) {
					return fmt.Sprintf("%s: %s: ReadAt(%d, %d) racing Close returned %d wrong bytes", sa.path, name, n, off, got)
				}
				return ""
			}
			return fmt.Sprintf("%s: %s: ReadAt(%d, %d): %v", sa.path, name, n, off, err)
		}
		if !bytes.Equal(buf[:got], want[off:off+int64(got)]) {
			return fmt.Sprintf("%s: %s: ReadAt(%d, %d) returned wrong bytes", sa.path, name, n, off)
		}
		st.readAts.Add(1)
		st.readBytes.Add(int64(got))
	}
	return ""
}

// soakStream reads the archive forward through a Reader, checks each
// entry read in full, and stops at a random point (Close mid-stream).
func soakStream(rng *rand.Rand, sa *soakArchive, st *soakStats) string {
	f, err := os.Open(sa.path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	r, err := unarc.NewReader(f, unarc.WithVolumes(os.DirFS(filepath.Dir(sa.path)), filepath.Base(sa.path)))
	if err != nil {
		if errors.Is(err, unarc.ErrUnsupported) {
			return "" // a format that needs random access
		}
		return fmt.Sprintf("%s: NewReader: %v", sa.path, err)
	}
	defer r.Close()
	stopAt := rng.IntN(len(sa.names) + 1)
	seen := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			return fmt.Sprintf("%s: Next: %v", sa.path, err)
		}
		want, ok := sa.content[e.Name]
		if !ok || !e.Mode.IsRegular() || e.Link != unarc.LinkNone {
			continue
		}
		if seen == stopAt {
			return "" // closed mid-stream by the deferred Close
		}
		seen++
		got, err := io.ReadAll(r)
		if err != nil {
			return fmt.Sprintf("%s: %s: stream read: %v", sa.path, e.Name, err)
		}
		if !bytes.Equal(got, want) {
			return fmt.Sprintf("%s: %s: streamed content differs", sa.path, e.Name)
		}
		st.streamed.Add(1)
	}
}

// soakExtract extracts the archive, half the time under a context that
// is cancelled after a random moment. Whatever stands under an entry's
// final name must be that entry's content; a finished extraction must
// have them all.
func soakExtract(rng *rand.Rand, sa *soakArchive, dir string, st *soakStats) string {
	defer os.RemoveAll(dir)
	a, err := unarc.OpenFile(sa.path, unarc.WithWorkers(1+rng.IntN(3)))
	if err != nil {
		return fmt.Sprintf("%s: open: %v", sa.path, err)
	}
	defer a.Close()
	st.opens.Add(1)
	ctx := context.Background()
	cancelled := rng.IntN(2) == 0
	if cancelled {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(5000))*time.Microsecond)
		defer cancel()
	}
	err = a.Extract(ctx, dir)
	st.extracts.Add(1)
	if err != nil {
		if !cancelled || !(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return fmt.Sprintf("%s: Extract: %v", sa.path, err)
		}
		st.cancelled.Add(1)
	}
	for name, want := range sa.content {
		got, rerr := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if rerr != nil {
			if err == nil {
				return fmt.Sprintf("%s: %s: not extracted: %v", sa.path, name, rerr)
			}
			continue // cancelled before this entry
		}
		if !bytes.Equal(got, want) {
			return fmt.Sprintf("%s: %s: extracted content differs (%d bytes, want %d; err %v)", sa.path, name, len(got), len(want), err)
		}
	}
	for name, target := range sa.links {
		got, lerr := os.Readlink(filepath.Join(dir, filepath.FromSlash(name)))
		if lerr == nil && filepath.ToSlash(got) != target {
			return fmt.Sprintf("%s: %s: link to %q, want %q", sa.path, name, got, target)
		}
	}
	return ""
}

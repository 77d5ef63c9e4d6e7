package sevenzip

import (
	"bytes"
	"io"
	"sync/atomic"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

func openSeekArchive(t testutil.TB, name string) *Archive {
	a, _ := openCounted(t, name)
	return a
}

// countingReaderAt counts the bytes read from an archive.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// openCounted opens testdata/seek/name (password "seek") over a
// countingReaderAt.
func openCounted(t testutil.TB, name string) (*Archive, *countingReaderAt) {
	return openWithPassword(t, name, "seek")
}

// openWithPassword is openCounted with password pw.
func openWithPassword(t testutil.TB, name, pw string) (*Archive, *countingReaderAt) {
	t.Helper()
	b := testutil.ReadTestdata(t, "seek", name)
	c := &countingReaderAt{r: bytes.NewReader(b)}
	a, err := Open(c, int64(len(b)), conf.From(&arc.Config{Password: func(*arc.Entry) (string, error) { return pw, nil }}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a, c
}

func readEntry(t testutil.TB, a *Archive, i int) []byte {
	t.Helper()
	b, err := testutil.ReadClose(a.Open(i))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOpenAtCopy: Copy folders, plain and AES, open at the offset asked
// (AES from the previous ciphertext block) with the right bytes, and
// start no decoder from the folder's start.
func TestOpenAtCopy(t *testing.T) {
	for _, name := range []string{"copy.7z", "copy-aes.7z"} {
		t.Run(name, func(t *testing.T) {
			a := openSeekArchive(t, name)
			for i, e := range a.Entries() {
				if e.Size < 100 {
					continue
				}
				want := readEntry(t, a, i)
				starts := a.folderStarts
				testutil.CheckEntryAt(t, engineView(a), i, e.Name, want, true, 1, 15, 16, 17, 31, 32, 1000, e.Size-1)
				if a.folderStarts != starts {
					t.Fatalf("%s: OpenAt started %d folder decoders", e.Name, a.folderStarts-starts)
				}
			}
		})
	}
}

// TestOpenAtCheckpoint: once a seekable read has passed through an LZMA2
// folder, OpenAt of a later offset resumes from a checkpoint inside the
// entry (start > 0) without starting a decoder from the folder's start,
// and the bytes are right; with checkpoints off it starts at 0.
func TestOpenAtCheckpoint(t *testing.T) {
	for _, name := range []string{"lzma2.7z", "lzma2-aes.7z"} {
		for _, interval := range []int64{64 << 10, 0} {
			a := openSeekArchive(t, name)
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: interval, MaxMemory: 1 << 30})
			big := -1
			for i, e := range a.Entries() {
				if big < 0 || e.Size > a.entries[big].Size {
					big = i
				}
			}
			want := readEntry(t, a, big)
			// The first pass, through OpenAt, takes the checkpoints.
			for i := range a.Entries() {
				r, _, err := a.caps().OpenAt(i, 0)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, r)
				r.Close()
			}
			dropIdle(a) // only checkpoints are left
			starts := a.folderStarts
			off := int64(len(want)) - 100
			r, start, err := a.caps().OpenAt(big, off)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[start:]) {
				t.Fatalf("%s: bytes from %d differ", name, start)
			}
			st := a.caps().CheckpointStats()
			if interval > 0 && (start == 0 || a.folderStarts != starts) {
				t.Fatalf("%s: start %d, %d folder starts, %+v", name, start, a.folderStarts-starts, st)
			}
			if interval == 0 && (start != 0 || st.Taken != 0) {
				t.Fatalf("%s without checkpoints: start %d, %+v", name, start, st)
			}
		}
	}
}

// dropIdle closes a's parked folder decoders, so that reads start from
// checkpoints or the folder's start.
func dropIdle(a *Archive) {
	a.mu.Lock()
	idle := a.idle
	a.idle = nil
	a.mu.Unlock()
	for _, fr := range idle {
		fr.Close()
	}
}

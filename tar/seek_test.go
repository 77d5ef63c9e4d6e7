package tar

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"

	"github.com/klauspost/compress/gzip"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// seekFiles are the tarballs of make-seek.sh (several entries, several
// gzip and lzip members, several bzip2 blocks, two xz streams of several
// LZMA2 chunks) and single files (big.gz, made by bigGzip: checkpoints
// inside a gzip member; seek.txt.xz: two xz streams).
var seekFiles = []string{"seek.tar.gz", "seek.tar.bz2", "seek.tar.lz", "seek.tar.lzma", "seek.tar.xz", "seek.tar.zst",
	"small-multimember.tar.gz", "text.txt.gz", "text.txt.bz2", "text-members.txt.lz", "text.txt.lzma", "big.gz", "seek.txt.xz", "text.txt.zst"}

// seekTarballs are make-seek.sh's tarballs, one per checkpoint kind.
var seekTarballs = []string{"seek.tar.gz", "seek.tar.bz2", "seek.tar.lz", "seek.tar.lzma", "seek.tar.xz", "seek.tar.zst"}

const seekEvery = 16 << 10

// openSeek opens name with checkpoints every seekEvery bytes and reads
// every entry in order through Open (klauspost's gzip, parallel bzip2):
// the reference content.
func openSeek(t testutil.TB, name string) (*Archive, [][]byte) {
	t.Helper()
	var data []byte
	if name == "big.gz" {
		data = bigGzip()
	} else {
		data = readTestdata(t, name)
	}
	a, err := Open(bytes.NewReader(data), int64(len(data)), arc.WithName(name), conf.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: seekEvery, MaxMemory: 64 << 20})
	want := make([][]byte, len(a.Entries()))
	for i := range want {
		rc, err := a.Open(i)
		if err != nil {
			t.Fatal(err)
		}
		want[i], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s entry %d: %v", name, i, err)
		}
	}
	return a, want
}

// readFrom reads n bytes of entry i at off through OpenAt.
func readFrom(a *Archive, i int, off, n int64) ([]byte, int64, error) {
	rc, start, err := a.caps().OpenAt(i, off)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	if start < 0 || start > off {
		return nil, start, errors.New("start beyond the offset")
	}
	if _, err := io.CopyN(io.Discard, rc, off-start); err != nil && err != io.EOF {
		return nil, start, err
	}
	b, err := io.ReadAll(io.LimitReader(rc, n))
	return b, start, err
}

// TestSeekRandom: reads at random offsets of random entries, through
// OpenAt, give the bytes a sequential read gives, and once a pass has
// gone over the stream they start at checkpoints (gzip and lzip across
// member boundaries, bzip2 across blocks).
func TestSeekRandom(t *testing.T) {
	for k, name := range seekFiles {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && k >= len(seekTarballs) && name != "big.gz" {
				t.Skip("-short: the tarballs and big.gz")
			}
			a, want := openSeek(t, name)
			defer a.Close()
			rng := rand.New(rand.NewPCG(1, uint64(len(name))))
			resumed := 0
			rounds := 200
			if testing.Short() {
				rounds = 15
			}
			for k := 0; k < rounds; k++ {
				i := rng.IntN(len(want))
				if len(want[i]) == 0 {
					continue
				}
				off := rng.Int64N(int64(len(want[i])))
				n := rng.Int64N(40 << 10)
				got, start, err := readFrom(a, i, off, n)
				if err != nil {
					t.Fatalf("entry %d at %d: %v", i, off, err)
				}
				if exp := want[i][off:min(off+n, int64(len(want[i])))]; !bytes.Equal(got, exp) {
					t.Fatalf("entry %d at %d (start %d): %d bytes differ from the sequential read's %d", i, off, start, len(got), len(exp))
				}
				if start > 0 {
					resumed++
				}
			}
			st := a.caps().CheckpointStats()
			t.Logf("%d checkpoints, %d bytes; %d of %d reads started inside the entry", st.Count, st.Bytes, resumed, rounds)
			if total := sumLen(want); total > 4*seekEvery && (st.Count == 0 || resumed == 0 && !testing.Short()) {
				t.Errorf("%d checkpoints taken, %d reads resumed inside an entry", st.Count, resumed)
			}
		})
	}
}

func sumLen(b [][]byte) (n int) {
	for _, x := range b {
		n += len(x)
	}
	return n
}

// TestSeekBackwardStartsAtCheckpoint: after a pass to the stream's end,
// a read back in the stream decodes from the nearest checkpoint at or
// before it, not from the start: counted in decoded bytes.
func TestSeekBackwardStartsAtCheckpoint(t *testing.T) {
	for _, name := range seekTarballs {
		t.Run(name, func(t *testing.T) {
			a, want := openSeek(t, name)
			defer a.Close()
			last := len(want) - 1
			for len(want[last]) == 0 {
				last--
			}
			if _, _, err := readFrom(a, last, 0, 1<<30); err != nil { // the whole stream
				t.Fatal(err)
			}
			resumed := 0
			offs := func(n int64) []int64 { return []int64{0, n / 2, n - 100} }
			if testing.Short() {
				offs = func(n int64) []int64 { return []int64{n / 2} }
			}
			for i := range want {
				for _, off := range offs(int64(len(want[i]))) {
					if off < 0 || len(want[i]) == 0 {
						continue
					}
					target := a.offs[i] + off
					cp, ok := a.cps.Find(0, target)
					if !ok {
						continue
					}
					dropPass(a) // only checkpoints count
					rc, start, err := a.caps().OpenAt(i, off)
					if err != nil {
						t.Fatal(err)
					}
					p := rc.(*cpReader).p
					from := p.pos
					if from != cp.Out || start != max(cp.Out-a.offs[i], 0) {
						t.Fatalf("entry %d at %d: pass starts at stream offset %d (entry %d), want the checkpoint's %d", i, off, from, start, cp.Out)
					}
					io.CopyN(io.Discard, rc, off-start)
					n := min(100, int64(len(want[i]))-off)
					b := make([]byte, n)
					if _, err := io.ReadFull(rc, b); err != nil || !bytes.Equal(b, want[i][off:off+n]) {
						t.Fatalf("entry %d at %d: read after the checkpoint: %v", i, off, err)
					}
					if decoded := p.pos - from; decoded != target-cp.Out+n {
						t.Fatalf("entry %d at %d: decoded %d bytes for a read at stream offset %d from %d", i, off, decoded, target, cp.Out)
					}
					rc.Close()
					resumed++
				}
			}
			if resumed == 0 {
				t.Fatalf("no read resumed from a checkpoint: %+v", a.caps().CheckpointStats())
			}
		})
	}
}

// dropPass closes the pass a keeps.
func dropPass(a *Archive) {
	a.mu.Lock()
	p := a.sidle
	a.sidle = nil
	a.mu.Unlock()
	if p != nil {
		p.close()
	}
}

// TestSeekSequentialKeepsPass: opening the entries in order through
// OpenAt continues the pass of the previous reader (the fs.FS walk).
func TestSeekSequentialKeepsPass(t *testing.T) {
	a, want := openSeek(t, "seek.tar.gz")
	defer a.Close()
	a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 1 << 40, MaxMemory: 64 << 20}) // none due
	var prev int64
	for i := range want {
		rc, start, err := a.caps().OpenAt(i, 0)
		if err != nil {
			t.Fatal(err)
		}
		cr, ok := rc.(*cpReader)
		if !ok {
			rc.Close()
			continue // empty entry
		}
		if cr.p.pos != prev {
			t.Fatalf("entry %d: pass at %d, the previous reader ended at %d", i, cr.p.pos, prev)
		}
		b, err := io.ReadAll(rc)
		if err != nil || start != 0 || !bytes.Equal(b, want[i]) {
			t.Fatalf("entry %d: %v", i, err)
		}
		prev = cr.p.pos
		rc.Close()
	}
}

// TestSeekDamaged: a corrupt byte behind a checkpoint is still found
// (the gzip member's CRC carried in the checkpoint, bzip2's block CRC,
// lzip's trailer), and a damaged checkpoint state is refused, never a
// panic or wrong length.
func TestSeekDamaged(t *testing.T) {
	for _, name := range seekTarballs {
		t.Run(name, func(t *testing.T) {
			a, want := openSeek(t, name)
			defer a.Close()
			last := len(want) - 1
			if _, _, err := readFrom(a, last, 0, 1<<30); err != nil {
				t.Fatal(err)
			}
			cps := a.cps.Snapshot()
			if len(cps) == 0 {
				t.Fatalf("%d checkpoints", len(cps))
			}
			if testing.Short() {
				cps = cps[len(cps)-1:] // the last: the longest way to the end
			}
			for _, cp := range cps {
				for _, j := range []int{0, 1, len(cp.State) / 2, len(cp.State) - 1} {
					if j >= len(cp.State) {
						continue // zstd's state is one byte
					}
					bad := cp
					bad.State = bytes.Clone(cp.State)
					bad.State[j] ^= 0x41
					resumeSome(t, a, bad)
				}
				for _, d := range []int64{-1, 1, 8, 1 << 20} {
					bad := cp
					bad.In += d
					resumeSome(t, a, bad)
					bad = cp
					bad.Out += d
					resumeSome(t, a, bad)
				}
			}
		})
	}
}

// resumeSome decodes up to 1 MiB from cp: an error must be a sentinel.
func resumeSome(t *testing.T, a *Archive, cp engine.Checkpoint) {
	t.Helper()
	var in countReader
	d, err := a.openStream(&cp, &in)
	if err == nil {
		_, err = io.CopyN(io.Discard, d, 1<<20)
		d.Close()
	}
	if err != nil && err != io.EOF && !isOurs(mapErr(a.kind, err)) {
		t.Fatalf("resume from %s at %d/%d: %v", cp.Kind, cp.Out, cp.In, err)
	}
}

// TestSeekTrailerChecked: a read resumed from a checkpoint that runs to
// the end of a gzip or lzip member still checks its trailer (the
// checkpoint carries the member's CRC and size), and one resumed inside
// an xz block its check (SHA-256 in seek.tar.xz, CRC-64 in seek.txt.xz,
// whose running state the checkpoint carries): damaging the CRC fails.
// big.gz, made here, is one member of many Deflate blocks, so its
// checkpoint is inside the member (seek.tar.gz's are at member starts).
func TestSeekTrailerChecked(t *testing.T) {
	for _, name := range []string{"seek.tar.gz", "seek.tar.lz", "big.gz", "seek.tar.xz", "seek.txt.xz"} {
		if testing.Short() && name == "seek.txt.xz" {
			continue // -short: seek.tar.xz resumes xz (bare, it decodes 5 MB three times)
		}
		var data []byte
		if name == "big.gz" {
			data = bigGzip()
		} else {
			data = readTestdata(t, name)
		}
		for _, bad := range [][]byte{data, flipTrailer(data, name)} {
			a, err := Open(bytes.NewReader(bad), int64(len(bad)), conf.From(&arc.Config{Name: name}))
			if !bytes.Equal(bad, data) && err != nil {
				// Open checks a tarball's: list the damaged stream with
				// the good one's listing, as a changed file would be read.
				a, err = Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Name: name}))
				a.ra = bytes.NewReader(bad)
			}
			if err != nil {
				t.Fatal(err)
			}
			a.caps().SetCheckpoints(engine.CheckpointPolicy{Interval: 1 << 10, MaxMemory: 64 << 20})
			last := len(a.ents) - 1
			var n int64
			if !a.bare {
				n = a.ents[last].Size
			}
			_, _, err = readFrom(a, last, n, 1<<30) // take checkpoints
			if a.bare {
				// The whole stream was read: now resume near its end.
				_, _, err = readFrom(a, last, 1<<40, 1<<30)
			}
			// Stream's end from the last checkpoint.
			cps := a.cps.Snapshot()
			if len(cps) == 0 {
				t.Fatalf("%s: no checkpoints", name)
			}
			cp := cps[len(cps)-1]
			if name == "big.gz" {
				if len(cp.State) <= gzipCPHead || binary.LittleEndian.Uint32(cp.State[1:]) == 0 {
					t.Fatalf("%s: the last checkpoint is not inside the member", name)
				}
			}
			var in countReader
			d, err2 := a.openStream(&cp, &in)
			if err2 == nil {
				_, err2 = io.Copy(io.Discard, d)
				d.Close()
			}
			damaged := !bytes.Equal(bad, data)
			if damaged != errors.Is(err2, errs.ErrChecksum) {
				t.Errorf("%s damaged=%v: resumed to the end: %v (first pass: %v)", name, damaged, err2, err)
			}
			a.Close()
		}
	}
}

// bigGzip is one gzip member of 400 KB of text that compresses about
// 2:1 (klauspost's writer ends a block every few ten KB of it).
func bigGzip() []byte {
	rng := rand.New(rand.NewPCG(5, 5))
	var text bytes.Buffer
	for text.Len() < 400<<10 {
		fmt.Fprintf(&text, "%016x %d\n", rng.Uint64(), rng.IntN(1000))
	}
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, 6)
	zw.Write(text.Bytes())
	zw.Close()
	return out.Bytes()
}

// flipTrailer damages the CRC in the last member's trailer, or the
// last byte of the last xz block's check.
func flipTrailer(data []byte, name string) []byte {
	switch name[len(name)-3:] {
	case ".lz":
		return flip(data, -20) // CRC32 | data size | member size
	case ".xz":
		// ... check | index | footer: CRC32, backward size, flags, "YZ"
		index := (int(binary.LittleEndian.Uint32(data[len(data)-8:])) + 1) * 4
		return flip(data, -12-index-1)
	}
	return flip(data, -8) // CRC32 | ISIZE
}

// TestSeekCloseRace: readers of one Archive read, seek and close on
// several goroutines while the Archive is closed (go test -race).
func TestSeekCloseRace(t *testing.T) {
	for k, name := range []string{"seek.tar.gz", "seek.tar.bz2"} {
		if testing.Short() && k > 0 {
			break
		}
		a, want := openSeek(t, name)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 7))
				for range 10 {
					i := rng.IntN(len(want))
					if len(want[i]) == 0 {
						continue
					}
					off := rng.Int64N(int64(len(want[i])))
					got, _, err := readFrom(a, i, off, 4096)
					if err == nil && !bytes.Equal(got, want[i][off:min(off+4096, int64(len(want[i])))]) {
						t.Errorf("entry %d at %d differs", i, off)
					}
				}
			}()
		}
		a.Close()
		wg.Wait()
		if a.sidle != nil {
			t.Error("a pass was kept after Close")
		}
	}
}

package zip

import (
	"bytes"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

func TestZstdWorkers(t *testing.T) {
	const w = 8 << 20
	cases := []struct {
		workers int
		mem     int64
		want    int
	}{
		{0, 1 << 40, 1},
		{1, 1 << 40, 1},
		{4, 1 << 40, 4},
		{4, w + 2*zstdOverhead, 2}, // MaxMemory holds two decoders' buffers
		{4, w + zstdOverhead/2, 1}, // not even one: still one (checkZstd refuses earlier)
	}
	for _, c := range cases {
		cfg, err := conf.New(arc.WithLimits(arc.Limits{MaxMemory: c.mem}), conf.Workers(c.workers))
		if err != nil {
			t.Fatal(err)
		}
		if got := zstdWorkers(&cfg, w); got != c.want {
			t.Errorf("workers %d, MaxMemory %d: %d, want %d", c.workers, c.mem, got, c.want)
		}
	}
}

// TestZstdConcurrentSame decodes a many-block zstd entry (written by
// klauspost's encoder: no tool here writes zstd into a ZIP) with one and
// with four decoder goroutines, and after SetEntryWorkers: the same bytes.
func TestZstdConcurrentSame(t *testing.T) {
	content := make([]byte, 3<<20)
	r := rand.NewChaCha8([32]byte{7})
	for i := 0; i < len(content); i += 64 << 10 {
		if i/(64<<10)%2 == 0 {
			r.Read(content[i:min(i+64<<10, len(content))])
		}
	}
	var packed bytes.Buffer
	enc, _ := zstd.NewWriter(&packed, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	enc.Write(content)
	enc.Close()
	var b testutil.ZipBuilder
	b.Add(testutil.ZipFile{Name: "z", Method: methodZstd, Packed: packed.Bytes(), CRC: crc32.ChecksumIEEE(content), Size: uint64(len(content))})
	data := b.Bytes()
	for _, workers := range []int{1, 4} {
		for _, set := range []int{0, 1, 3} {
			a, err := Open(bytes.NewReader(data), int64(len(data)), conf.Workers(workers))
			if err != nil {
				t.Fatal(err)
			}
			if set > 0 {
				a.caps().SetEntryWorkers(set)
				if got := a.entryWorkerCount(); got != set {
					t.Errorf("SetEntryWorkers(%d): %d", set, got)
				}
			} else if got := a.entryWorkerCount(); got != max(workers, 1) {
				t.Errorf("Workers %d: entry workers %d", workers, got)
			}
			rc, err := a.Open(0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, content) {
				t.Errorf("workers %d set %d: %d bytes, %v", workers, set, len(got), err)
			}
		}
	}
}

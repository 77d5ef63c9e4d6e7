package zip

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// TestWriterAllocs checks what writing 100 files of 128 bytes and one of
// 256 KiB allocates once the pooled state is warm: at most 16 KiB per
// archive, with and without AES. The names are made once: the caller's
// strings are kept, not copied.
func TestWriterAllocs(t *testing.T) {
	if testutil.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("dir/file-%03d.txt", i)
	}
	small := testutil.Words(128, 1, []string{"a", "bc", "def"}, 0)
	big := testutil.Words(256<<10, 2, []string{"alpha", "beta", "gamma", "delta"}, 50)
	for _, c := range []struct {
		name  string
		opts  []WriterOption
		bound uint64
	}{
		{"plain", nil, 16 << 10},
		// crypto/aes makes a new key schedule per key (about 0.5 KiB),
		// and every entry has its own salt, so its own key.
		{"AES", []WriterOption{WithPassword("pw"), WithRandom(rand.NewChaCha8([32]byte{}))}, 16<<10 + 101*600},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func() {
				zw := NewWriter(io.Discard, c.opts...)
				for _, n := range names {
					w, err := zw.Create(n)
					if err != nil {
						t.Fatal(err)
					}
					w.Write(small)
				}
				w, _ := zw.Create("big")
				w.Write(big)
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
			}
			per, objects := testutil.WarmAllocs(10, run)
			t.Logf("%d B, %d allocs per archive", per, objects)
			if per > c.bound {
				t.Errorf("%d bytes allocated per archive, want <= %d", per, c.bound)
			}
		})
	}
}

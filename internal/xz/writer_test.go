package xz

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/lzma"
)

// TestWriterRoundTrip: every check, block sizes that are and are not
// powers of two, one and several threads, read back by our Reader.
func TestWriterRoundTrip(t *testing.T) {
	data := make([]byte, 200<<10)
	for i := range data {
		data[i] = byte(i*i>>7) ^ byte(i>>11)
	}
	for _, check := range []byte{CheckCRC32, CheckCRC64, CheckSHA256} {
		for _, bs := range []int64{0, 16 << 10, 18<<10 + 5} {
			for _, threads := range []int{1, 3} {
				for _, n := range []int{0, 1, len(data)} {
					var buf bytes.Buffer
					z, err := NewWriter(&buf, WriterOptions{Check: check, BlockSize: bs, Threads: threads,
						LZMA: []lzma.WriterOption{lzma.Level(1), lzma.DictSize(64 << 10)}})
					if err != nil {
						t.Fatal(err)
					}
					for p := data[:n]; len(p) > 0; {
						k := min(len(p), 7000)
						if _, err := z.Write(p[:k]); err != nil {
							t.Fatal(err)
						}
						p = p[k:]
					}
					if err := z.Close(); err != nil {
						t.Fatal(err)
					}
					r, err := NewReader(bytes.NewReader(buf.Bytes()))
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(r)
					if err != nil || !bytes.Equal(got, data[:n]) {
						t.Fatalf("check %#x block %d threads %d size %d: %v (%d bytes back)", check, bs, threads, n, err, len(got))
					}
				}
			}
		}
	}
	if _, err := NewWriter(io.Discard, WriterOptions{Check: 3}); !errors.Is(err, errs.ErrInvalidOption) {
		t.Errorf("check 3: %v", err)
	}
}

package lzma

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestMarkerAtKnownSize: a stream with an end marker whose size is also
// known (what `7zz a -m0=LZMA:eos` and `xz --format=lzma` write, the
// size then coming from a container) decodes in full and ends cleanly
// when the marker sits at exactly the declared size, as 7-Zip's decoder
// accepts it. The interesting sizes fill the window exactly (a multiple
// of 16 no larger than the dictionary): the marker check then used to
// wrap the window before its bytes were delivered, losing them silently.
// A marker before the declared size stays corrupt.
func TestMarkerAtKnownSize(t *testing.T) {
	src := genMixed(3, 300<<10)
	sizes := []int{1, 15, 16, 4096, 4097, 65536, 256 << 10, 300 << 10}
	if testing.Short() {
		sizes = sizes[:5]
	}
	for _, n := range sizes {
		for _, dict := range []string{"4KiB", "1MiB"} {
			want := src[:n]
			alone := toolRun(t, want, "xz", "--format=lzma", "--lzma1=dict="+dict, "-c", "{in}")
			p, err := DecodeProps(alone[:5])
			if err != nil {
				t.Fatal(err)
			}
			stream := alone[13:] // ends with the marker
			z, err := NewReader(bytes.NewReader(stream), p, int64(n))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("n=%d dict=%s: Read gave %d of %d bytes, err %v", n, dict, len(got), n, err)
			}
			z.Reset(bytes.NewReader(stream), p, int64(n))
			var buf bytes.Buffer
			if _, err := z.WriteTo(&buf); err != nil || !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("n=%d dict=%s: WriteTo gave %d of %d bytes, err %v", n, dict, buf.Len(), n, err)
			}
			// The marker arrives before a size declared one byte larger.
			z.Reset(bytes.NewReader(stream), p, int64(n+1))
			_, err = z.WriteTo(io.Discard)
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Errorf("n=%d dict=%s: size+1: err = %v, want corrupt", n, dict, err)
			}
			z.Close()
		}
	}
}

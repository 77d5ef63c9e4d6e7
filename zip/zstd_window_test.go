package zip

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
)

// TestZstdWindowBomb: a method-93 entry of a few bytes whose zstd frame
// declares a 2 GiB window (and whose header declares 3 GiB, so the
// entry's size does not cap the window) fails without the window being
// allocated: the frame reader lowers it to what the entry's bytes can
// fill before the decoder sees the frame, or refuses it (ErrLimit) when
// the window is more than those bytes may produce at MaxRatio (issue 30).
func TestZstdWindowBomb(t *testing.T) {
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 21 << 3, (100<<3 | 1<<1 | 1) & 0xff, 100 >> 5, 0, 'x'} // 2 GiB window, one RLE block
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	fw, err := w.CreateRaw(&zip.FileHeader{Name: "bomb", Method: methodZstd, CompressedSize64: uint64(len(frame)), UncompressedSize64: 3 << 30})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(frame)
	w.Close()
	data := buf.Bytes()
	for _, lim := range []arc.Limits{{}, arc.SafeLimits} {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		a, err := Open(bytes.NewReader(data), int64(len(data)), arc.WithLimits(lim))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := a.Open(0)
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if err == nil {
			t.Error("a 100-byte entry declaring 3 GiB read without error")
		}
		if lim.MaxRatio > 0 && !errors.Is(err, errs.ErrLimit) {
			t.Errorf("MaxRatio %g: %v; want ErrLimit (a 2 GiB window from 10 bytes)", lim.MaxRatio, err)
		}
		runtime.ReadMemStats(&ms)
		if n := ms.TotalAlloc - before; n > 32<<20 {
			t.Errorf("MaxDictionary %d: %d bytes allocated", lim.MaxDictionary, n)
		}
	}
}

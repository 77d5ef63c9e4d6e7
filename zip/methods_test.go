package zip

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// TestMethodReaderAfterClose: a registered method's stream fails after
// Close instead of reaching a decoder that went back to its pool, and a
// decoder's unexpected EOF or foreign error becomes the package's sentinel.
func TestMethodReaderAfterClose(t *testing.T) {
	m := &methodReader{rc: io.NopCloser(strings.NewReader("abc"))}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Read(make([]byte, 4)); !errors.Is(err, errClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	if _, err := m.WriteTo(io.Discard); !errors.Is(err, errClosed) {
		t.Errorf("WriteTo after Close: %v", err)
	}
	if err := mapMethodErr(io.ErrUnexpectedEOF); !errors.Is(err, errs.ErrTruncated) {
		t.Errorf("unexpected EOF: %v", err)
	}
	if err := mapMethodErr(errors.New("bad block")); !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("foreign error: %v", err)
	}
}

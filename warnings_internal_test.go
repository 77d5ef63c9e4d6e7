package unarc

import (
	"errors"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/engine"
)

type warnReader struct{ w []error }

func (warnReader) Next() (*Entry, error)    { return nil, io.EOF }
func (warnReader) Read([]byte) (int, error) { return 0, io.EOF }
func (warnReader) Close() error             { return nil }
func (r warnReader) Warnings() []error      { return r.w }

var _ engine.Warner = warnReader{}

// TestReaderWarnings: Reader.Warnings passes a format's engine.Warner on.
func TestReaderWarnings(t *testing.T) {
	w := []error{errors.New("recovery record present")}
	r := &Reader{r: warnReader{w}}
	if got := r.Warnings(); len(got) != 1 || got[0] != w[0] {
		t.Fatalf("Warnings = %v", got)
	}
	r.Close()
	if got := r.Warnings(); got != nil {
		t.Fatalf("after Close: %v", got)
	}
}

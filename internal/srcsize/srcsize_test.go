package srcsize

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

type failReaderAt struct{ err error }

func (f failReaderAt) ReadAt([]byte, int64) (int, error) { return 0, f.err }

func TestCheck(t *testing.T) {
	src := bytes.NewReader(make([]byte, 100))
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		ra   io.ReaderAt
		size int64
		want error
	}{
		{"zero", src, 0, nil},
		{"one", src, 1, nil},
		{"exact", src, 100, nil},
		{"prefix", src, 50, nil},
		{"negative", src, -1, errs.ErrInvalidOption},
		{"min", src, math.MinInt64, errs.ErrInvalidOption},
		{"one past", src, 101, errs.ErrTruncated},
		{"max", src, math.MaxInt64, errs.ErrTruncated},
		{"read error", failReaderAt{boom}, 10, boom},
		{"read error EOF", failReaderAt{io.EOF}, 10, errs.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.ra, tc.size)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Check(%d) = %v, want %v", tc.size, err, tc.want)
			}
		})
	}
}

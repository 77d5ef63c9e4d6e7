package unarc_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestReaderExtractLimitOnce: a limit that trips in a data-descriptor
// entry of a ZIP stream is that entry's error, listed once: Extract
// added it again as a pseudo-entry "(archive)" (the account's sticky
// error, which the next Next returns too).
func TestReaderExtractLimitOnce(t *testing.T) {
	l := bombLimits()
	l.MaxRatio = 100
	data := ddZip("zeros", testutil.DeflateZeros(64<<20), testutil.ZerosCRC(64<<20), 64<<20)
	r, err := unarc.NewReader(bytes.NewReader(data), unarc.WithLimits(l))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.Extract(context.Background(), t.TempDir())
	var xe *unarc.ExtractError
	if !errors.As(err, &xe) || !errors.Is(err, unarc.ErrLimit) {
		t.Fatalf("Extract: %v, want an ExtractError matching ErrLimit", err)
	}
	if len(xe.Errors) != 1 || xe.Errors[0].Entry != "zeros" {
		for _, e := range xe.Errors {
			t.Logf("%s: %s", e.Entry, e.Err.Error())
		}
		t.Errorf("%d entry errors, want one for zeros", len(xe.Errors))
	}
}

package sevenzip

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestPersistHeaderRegions: the format payload alone (without the root's
// check of the archive's ends) rejects an archive whose header regions
// changed by one byte, and reopens the unchanged one with the same
// entries.
func TestPersistHeaderRegions(t *testing.T) {
	b := testutil.ReadTestdata(t, "7z", "aes_lzma2_he.7z")
	cfg := &arc.Config{Password: func(*arc.Entry) (string, error) { return "secret", nil }}
	a, err := Open(bytes.NewReader(b), int64(len(b)), conf.From(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p, err := a.caps().ExportIndex(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.hdrRanges) < 3 {
		t.Fatalf("ranges %v: want the start header, the next header and the encoded header's pack stream", a.hdrRanges)
	}
	var flips []int64
	for _, r := range a.hdrRanges {
		flips = append(flips, r.Off, r.Off+r.Len-1)
	}
	testutil.CheckPayload(t, b, p, flips, a, func(ra io.ReaderAt, size int64, p []byte) (arc.Archive, error) {
		return openIndex(ra, size, p, nil)
	}, testutil.Classes(arc.ErrStaleIndex, errs.ErrCorrupt))
}

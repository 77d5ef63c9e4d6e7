package testutil

import (
	"bytes"
	"errors"
	"io"
	"reflect"

	"github.com/go-unarc/unarc/arc"
)

// CheckPayload checks a format package's persisted index p of the
// archive b, whose entries are want: with any byte at flips changed,
// open must fail with arc.ErrStaleIndex; the unchanged archive must
// reopen with the same entries and comment; and every cut of p must
// fail with an error cutOK accepts. It returns the reopened archive.
func CheckPayload(t TB, b, p []byte, flips []int64, want arc.Archive, open func(ra io.ReaderAt, size int64, p []byte) (arc.Archive, error), cutOK func(error) bool) arc.Archive {
	t.Helper()
	for _, off := range flips {
		c := bytes.Clone(b)
		c[off] ^= 1
		if _, err := open(bytes.NewReader(c), int64(len(c)), p); !errors.Is(err, arc.ErrStaleIndex) {
			t.Errorf("byte %d changed: %v", off, err)
		}
	}
	again, err := open(bytes.NewReader(b), int64(len(b)), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Entries()) != len(want.Entries()) || again.Comment() != want.Comment() {
		t.Fatalf("%d entries, comment %q", len(again.Entries()), again.Comment())
	}
	for i, e := range again.Entries() {
		if !reflect.DeepEqual(*e, *want.Entries()[i]) {
			t.Errorf("entry %d: %+v\nwant %+v", i, *e, *want.Entries()[i])
		}
	}
	for n := range p {
		if _, err := open(bytes.NewReader(b), int64(len(b)), p[:n]); err == nil || !cutOK(err) {
			t.Fatalf("payload cut at %d: %v", n, err)
		}
	}
	return again
}

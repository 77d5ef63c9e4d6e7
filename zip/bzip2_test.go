package zip

import (
	"bytes"
	stdbzip2 "compress/bzip2"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// TestBZip2Workers: method 12 decodes through the bzip2 package, with
// Config.Workers and MaxMemory passed on (a level-9 stream under a limit
// below its block table is ErrLimit from the decoder itself).
func TestBZip2Workers(t *testing.T) {
	packed, err := os.ReadFile("../bzip2/testdata/text-l1.bz2")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(stdbzip2.NewReader(bytes.NewReader(packed)))
	if err != nil {
		t.Fatal(err)
	}
	var b testutil.ZipBuilder
	f := testutil.ZipFile{Name: "text.txt", Method: 12, Packed: packed, CRC: crc32.ChecksumIEEE(want), Size: uint64(len(want))}
	b.Add(f)
	data := b.Bytes()
	for _, w := range []int{0, 1, 4} {
		a, err := Open(bytes.NewReader(data), int64(len(data)), &arc.Config{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		rc, err := a.Open(0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("workers %d: %v", w, err)
		}
	}
	l9, err := os.ReadFile("../bzip2/testdata/text-l9.bz2")
	if err != nil {
		t.Fatal(err)
	}
	var b9 testutil.ZipBuilder
	f.Packed = l9
	b9.Add(f)
	data = b9.Bytes()
	a, err := Open(bytes.NewReader(data), int64(len(data)), &arc.Config{Limits: arc.Limits{MaxMemory: memBZip2}})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a.Open(0)
	if err == nil {
		_, err = io.ReadAll(rc)
		rc.Close()
	}
	if !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("level 9 under MaxMemory %d: %v, want ErrLimit", memBZip2, err)
	}
}

package shrink

import (
	"flag"
	"hash/crc32"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

var genZip = flag.String("gen-zip", "", "write testdata/zip/legacy-shrink.zip (made with this package's test encoder) to this path")

// TestGenZip writes the committed test archive of the zip package:
//
//	go test ./internal/shrink -run TestGenZip -gen-zip ../../testdata/zip/legacy-shrink.zip
func TestGenZip(t *testing.T) {
	if *genZip == "" {
		t.Skip("no -gen-zip")
	}
	data := append(textish(8_000, 11), randomData(1_000, 12)...)
	var b testutil.ZipBuilder
	for _, e := range []struct {
		name  string
		every int
	}{{"shrink.txt", 0}, {"shrink-clears.txt", 200}} {
		comp, _, _ := shrinkData(data, e.every)
		b.Add(testutil.ZipFile{Name: e.name, Method: 1, Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
	}
	if err := os.WriteFile(*genZip, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

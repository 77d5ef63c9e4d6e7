package reduce

import (
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

var genZip = flag.String("gen-zip", "", "write testdata/zip/legacy-reduce.zip (made with this package's test encoder) to this path")

// TestGenZip writes the committed test archive of the zip package:
//
//	go test ./internal/reduce -run TestGenZip -gen-zip ../../testdata/zip/legacy-reduce.zip
func TestGenZip(t *testing.T) {
	if *genZip == "" {
		t.Skip("no -gen-zip")
	}
	data := append(textish(8_000, 11), randomData(1_000, 12)...)
	var b testutil.ZipBuilder
	for factor := 1; factor <= 4; factor++ {
		comp := reduceData(data, factor, 32)
		b.Add(testutil.ZipFile{Name: fmt.Sprintf("reduce%d.txt", factor), Method: uint16(1 + factor), Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
	}
	if err := os.WriteFile(*genZip, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

package implode

import (
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

var genZip = flag.String("gen-zip", "", "write testdata/zip/legacy-implode.zip (made with this package's test encoder) to this path")

// TestGenZip writes the committed test archive of the zip package:
//
//	go test ./internal/implode -run TestGenZip -gen-zip ../../testdata/zip/legacy-implode.zip
func TestGenZip(t *testing.T) {
	if *genZip == "" {
		t.Skip("no -gen-zip")
	}
	data := append(textish(8_000, 11), randomData(1_000, 12)...)
	var b testutil.ZipBuilder
	for _, v := range variants {
		var flags uint16
		if v.big {
			flags |= 2
		}
		if v.lit {
			flags |= 4
		}
		comp := implodeData(data, v.big, v.lit)
		b.Add(testutil.ZipFile{Name: fmt.Sprintf("implode-flags%d.txt", flags), Method: 6, Flags: flags, Packed: comp, CRC: crc32.ChecksumIEEE(data), Size: uint64(len(data))})
	}
	if err := os.WriteFile(*genZip, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

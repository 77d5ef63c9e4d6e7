package shrink

import (
	"flag"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

var genZip = flag.String("gen-zip", "", "write testdata/zip/legacy-shrink.zip (made with this package's test encoder) to this path")

// TestGenZip writes the committed test archive of the zip package:
//
//	go test ./internal/shrink -run TestGenZip -gen-zip ../../testdata/zip/legacy-shrink.zip
func TestGenZip(t *testing.T) {
	testutil.GenZip(t, *genZip, append(textish(8_000, 11), randomData(1_000, 12)...), legacyVariants(clearRate{0, "shrink.txt"}, clearRate{200, "shrink-clears.txt"}))
}

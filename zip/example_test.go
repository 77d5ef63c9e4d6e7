package zip_test

import (
	"fmt"
	"log"
	"os"

	"github.com/go-unarc/unarc/zip"
)

// Listing a ZIP archive: Open reads the central directory only; no entry
// is decoded until it is opened.
func ExampleOpen() {
	f, err := os.Open("../testdata/zip/infozip-deflate.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	a, err := zip.Open(f, st.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	fmt.Printf("comment %q\n", a.Comment())
	for _, e := range a.Entries() {
		fmt.Printf("%-20s %5d %s\n", e.Name, e.Size, e.Method)
	}
	// Output:
	// comment "archive comment"
	// hello.txt               13 Store
	// empty.txt                0 Store
	// text.txt              8250 Deflate
	// rand.bin              4096 Store
	// dir/                     0 Store
	// dir/sub/                 0 Store
	// dir/sub/uplink          14 Store
	// dir/sub/nested.txt       7 Store
	// dir/ünïcödé.txt         13 Store
	// emptydir/                0 Store
	// link                     9 Store
}

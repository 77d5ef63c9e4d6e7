package zip_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

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

// Writing a ZIP archive: the Writer has archive/zip's shape. Create
// deflates (or stores what does not shrink), CreateHeader chooses the
// method, the time and the mode per entry; Close writes the directory.
func ExampleNewWriter() {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("hello.txt")
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, strings.Repeat("hello, zip\n", 100))
	h := &zip.FileHeader{Name: "bin/run.sh", Method: zip.Store,
		Modified: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	h.SetMode(0o755)
	w, err = zw.CreateHeader(h)
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, "#!/bin/sh\necho hi\n")
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}

	a, err := zip.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range a.Entries() {
		fmt.Printf("%-11s %4d %-8s %v\n", e.Name, e.Size, e.Method, e.Mode)
	}
	// Output:
	// hello.txt   1100 Deflate  -rw-r--r--
	// bin/run.sh    18 Store    -rwxr-xr-x
}

package cpio_test

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/go-unarc/unarc/cpio"
)

// Listing a cpio archive and reading an entry: a hard link names the
// entry that holds its data.
func Example() {
	f, err := os.Open("../testdata/cpio/newc.cpio")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	a, err := cpio.Open(f, st.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	for i, e := range a.Entries() {
		switch {
		case e.Name == "hello.txt":
			rc, _ := a.Open(i)
			b, _ := io.ReadAll(rc)
			rc.Close()
			fmt.Printf("%s %v %q\n", e.Name, e.Mode, b)
		case e.LinkTarget != "":
			fmt.Printf("%s %s to %s\n", e.Name, e.Link, e.LinkTarget)
		}
	}
	// Output:
	// hard1 hardlink to hard2
	// dir/hard3 hardlink to hard2
	// hello.txt urwxr-xr-x "hello\n"
	// link symlink to dir/text.txt
}

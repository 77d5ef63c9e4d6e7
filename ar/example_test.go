package ar_test

import (
	"fmt"
	"log"
	"os"

	"github.com/go-unarc/unarc/ar"
)

// Listing the members of an ar archive: a Debian package's.
func Example() {
	f, err := os.Open("../testdata/ar/pkg-xz.deb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	a, err := ar.Open(f, st.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	for _, e := range a.Entries() {
		fmt.Println(e.Name)
	}
	// Output:
	// debian-binary
	// control.tar.xz
	// data.tar.xz
}

package arc_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/zip"
)

// A format package used alone takes the same Options as every other:
// here a ZIP is opened with the safe limits and listed.
func Example() {
	f, err := os.Open("../testdata/zip/infozip-deflate.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	a, err := zip.Open(f, st.Size(), arc.WithLimits(arc.SafeLimits), arc.WithName(f.Name()))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	for _, e := range a.Entries()[:4] {
		fmt.Printf("%-9s %5d %v\n", e.Name, e.Size, e.Verifiable())
	}
	// Output:
	// hello.txt    13 true
	// empty.txt     0 true
	// text.txt   8250 true
	// rand.bin   4096 true
}

// Limits start from a profile; a zero field takes DefaultLimits' value,
// Unlimited lifts a limit. A limit crossed fails with an error that names
// it and matches the root's ErrLimit.
func ExampleLimits() {
	lim := arc.SafeLimits
	lim.MaxEntrySize = 1 << 10 // 1 KiB: text.txt (8250 bytes) is too large
	f, err := os.Open("../testdata/zip/infozip-deflate.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	a, err := zip.Open(f, st.Size(), arc.WithLimits(lim))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	rc, err := a.Open(2) // text.txt
	if err == nil {
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
	}
	fmt.Println(errors.Is(err, unarc.ErrLimit))

	_, err = zip.Open(f, st.Size(), arc.WithPasswordFunc(nil))
	fmt.Println(errors.Is(err, arc.ErrInvalidOption))
	// Output:
	// true
	// true
}

// Format is how the root package knows a format; a program can ask it
// too, here whether a file is a ZIP.
func ExampleFormat() {
	f, err := os.Open("../testdata/zip/infozip-deflate.zip")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	var format arc.Format = zip.Format
	fmt.Println(format.Name, format.Extensions[0], format.Sniff(f, st.Size()))
	// Output: zip .zip true
}

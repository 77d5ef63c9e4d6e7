package rar_test

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/rar"
)

// A format package used on its own: the password and the limits come as
// arc options, as they do for zip.Open and sevenzip.Open.
func ExampleOpen() {
	f, err := os.Open("../testdata/rar/rar5_pw.rar")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	a, err := rar.Open(f, st.Size(), arc.WithPassword("test"), arc.WithLimits(arc.SafeLimits))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	e := a.Entries()[0]
	rc, err := a.Open(e.Index)
	if err != nil {
		log.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc) // verified against the stored checksum at EOF
	fmt.Println(e.Name, n, err)
	// Output: text.txt 11090 <nil>
}

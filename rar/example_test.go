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

// List a solid RAR5 archive and read one file from it. Opening entries
// in the order they are listed decodes the solid stream once.
func Example() {
	f, err := os.Open("../testdata/rar/rar5_solid.rar")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	a, err := rar.Open(f, st.Size())
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	fmt.Println("solid:", a.IsSolid())
	for _, e := range a.Entries() {
		if e.IsDir() {
			fmt.Println(e.Name, "(directory)")
			continue
		}
		fmt.Println(e.Name, e.Size, e.Method)
	}
	for _, e := range a.Entries() {
		if e.Name != "sub/deeper/n.txt" {
			continue
		}
		rc, err := a.Open(e.Index)
		if err != nil {
			log.Fatal(err)
		}
		b, err := io.ReadAll(rc) // the CRC32 or BLAKE2sp is checked at EOF
		rc.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %q\n", e.Name, b)
	}
	// Output:
	// solid: true
	// sub/empty.txt 0 RAR5 m3
	// sub/deeper/n.txt 12 RAR5 m3
	// text.txt 11090 RAR5 m3
	// sub/ünïcødé-名前.txt 13 RAR5 m3
	// rand.bin 4096 RAR5 m3
	// sub/deeper (directory)
	// emptydir (directory)
	// sub (directory)
	// sub/deeper/n.txt: "nested file\n"
}

// Read an archive forward-only from a stream (a pipe, standard input):
// Next moves to the next entry, Read reads its content.
func ExampleNewReader() {
	f, err := os.Open("../testdata/rar/rar4_solid.rar")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := rar.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Name, n)
	}
	// Output:
	// sub/empty.txt 0
	// sub/deeper/n.txt 12
	// text.txt 11090
	// sub/ünïcødé-名前.txt 13
	// rand.bin 4096
	// sub/deeper 0
	// emptydir 0
	// sub 0
}

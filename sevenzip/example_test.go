package sevenzip_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/sevenzip"
)

// Writing a 7z archive encrypted with AES-256, file names included
// (WithEncryptedHeaders, as 7-Zip's -mhe=on), and reading it back with
// Open and the password. The output is an *os.File, so Close patches the
// start header in place; a writer that cannot seek (a bytes.Buffer)
// receives the archive at Close from a temporary spool file.
func ExampleNewWriter() {
	f, err := os.CreateTemp("", "example-*.7z")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()

	w, err := sevenzip.NewWriter(f,
		sevenzip.WithPassword("correct horse"),
		sevenzip.WithEncryptedHeaders(),
		sevenzip.WithLevel(5), // LZMA2, as 7-Zip's -mx5
	)
	if err != nil {
		log.Fatal(err)
	}
	for _, file := range []struct{ name, body string }{
		{"notes/hello.txt", "hello, 7z\n"},
		{"notes/todo.txt", "write the docs\n"},
	} {
		fw, err := w.Create(file.name)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := io.WriteString(fw, file.body); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil { // writes the header, then the start header
		log.Fatal(err)
	}

	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		log.Fatal(err)
	}
	a, err := sevenzip.Open(f, size, arc.WithPassword("correct horse"))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	for _, e := range a.Entries() {
		rc, err := a.Open(e.Index)
		if err != nil {
			log.Fatal(err)
		}
		b, err := io.ReadAll(rc) // checked against the entry's CRC at the end
		rc.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s encrypted=%v %q\n", e.Name, e.Encrypted, b)
	}

	// Without the password not even the names can be read.
	_, err = sevenzip.Open(f, size)
	fmt.Println("without the password:", errors.Is(err, unarc.ErrPasswordRequired))
	// Output:
	// notes/hello.txt encrypted=true "hello, 7z\n"
	// notes/todo.txt encrypted=true "write the docs\n"
	// without the password: true
}

package deflate_test

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-unarc/unarc/deflate"
)

// Compress with compress/flate, decompress with deflate.
func Example() {
	text := strings.Repeat("Deflate finds repeated strings. ", 64)

	var packed bytes.Buffer
	w, err := flate.NewWriter(&packed, flate.BestCompression)
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, text)
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	packed.WriteString("trailer") // what follows the stream in its container

	src := bytes.NewReader(packed.Bytes())
	r := deflate.NewReader(src)
	defer r.Close()
	var out strings.Builder
	if _, err := io.Copy(&out, r); err != nil {
		log.Fatal(err)
	}
	rest, _ := io.ReadAll(src) // src was sought back to the stream's end
	fmt.Println(out.String() == text, string(rest))
	// Output: true trailer
}

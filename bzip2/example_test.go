package bzip2_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-unarc/unarc/bzip2"
)

// compressed is what `bzip2 -9` writes for 50 times "bzip2 sorts blocks. ".
const compressed = "QlpoOTFBWSZTWT+bv4wAAK6ZgEABEAAYLNwQIABgKVQmm0ynqEAADSLlF0i5RZRfCLKLaLCLCLSLxFlF9RbRfkXqLaLCL+LuSKcKEgfzd/GA"

// Decode a .bz2 stream made by the bzip2 tool on two workers, with a
// memory limit.
func Example() {
	data, err := base64.StdEncoding.DecodeString(compressed)
	if err != nil {
		log.Fatal(err)
	}
	r, err := bzip2.NewReader(bytes.NewReader(data), bzip2.WithWorkers(2), bzip2.WithMaxMemory(64<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var out strings.Builder
	if _, err := io.Copy(&out, r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(data), "->", out.Len(), out.String() == strings.Repeat("bzip2 sorts blocks. ", 50))
	// Output: 81 -> 1000 true
}

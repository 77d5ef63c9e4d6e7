package lzma_test

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-unarc/unarc/lzma"
)

// A .lzma file: compress, then decompress.
func Example() {
	text := strings.Repeat("LZMA streams compress repetition. ", 100)

	var packed bytes.Buffer
	w, err := lzma.NewWriter(&packed, lzma.WithLevel(1), lzma.WithKnownSize(int64(len(text))))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.WriteString(w, text); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := lzma.NewReader(&packed, lzma.WithMaxDict(64<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var out strings.Builder
	if _, err := io.Copy(&out, r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.String() == text, len(text), packed.Len() < 200)
	// Output: true 3400 true
}

// LZMA2, as 7z's LZMA2 coder and xz store it: the reader needs the
// dictionary size the writer declares.
func ExampleNewWriter2() {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096)

	var packed bytes.Buffer
	w, err := lzma.NewWriter2(&packed, lzma.WithLevel(3))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	dict := w.DictSize()

	r, err := lzma.NewReader2(&packed, dict, int64(len(data)))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.Equal(got, data), dict)
	// Output: true 4194304
}

// A multi-threaded LZMA2 stream, written in independent blocks, decodes
// on several goroutines with WithWorkers.
func ExampleWithWorkers() {
	data := bytes.Repeat([]byte("blocks decode in parallel\n"), 40000) // ~1 MiB

	var packed bytes.Buffer
	w, err := lzma.NewWriter2(&packed, lzma.WithLevel(1), lzma.WithThreads(2), lzma.WithBlockSize(256<<10))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := lzma.NewReader2(&packed, w.DictSize(), -1, lzma.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	n, err := io.Copy(io.Discard, r)
	fmt.Println(n, err)
	// Output: 1040000 <nil>
}

// A raw LZMA stream keeps its properties outside (7z coder properties):
// store Props().Encode() and give DecodeProps' result to NewRawReader.
func ExampleNewRawWriter() {
	var packed bytes.Buffer
	w, err := lzma.NewRawWriter(&packed, lzma.WithDictSize(1<<16))
	if err != nil {
		log.Fatal(err)
	}
	io.WriteString(w, "raw LZMA, properties stored apart")
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	props := w.Props().Encode() // what a 7z header stores

	p, err := lzma.DecodeProps(props[:])
	if err != nil {
		log.Fatal(err)
	}
	r, err := lzma.NewRawReader(&packed, p, -1) // size unknown: end marker
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	fmt.Printf("%s %v %+v\n", got, err, p)
	// Output: raw LZMA, properties stored apart <nil> {LC:3 LP:0 PB:2 DictSize:65536}
}

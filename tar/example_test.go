package tar_test

import (
	archivetar "archive/tar"
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/tar"
)

// Streaming a .tar.gz: NewReader detects the compressor from the first
// bytes, decodes the stream once as it is read, and Next moves from
// entry to entry; nothing needs to be seekable (a pipe or a network
// body works the same way).
func ExampleNewReader() {
	f, err := os.Open("../testdata/tar/small.tar.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	z, err := tar.NewReader(f, conf.From(&arc.Config{Limits: arc.SafeLimits}))
	if err != nil {
		log.Fatal(err)
	}
	defer z.Close()
	fmt.Println(z.FormatName(), "checked by", z.StreamCheck())
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		if !e.Mode.IsRegular() || e.Size == 0 {
			continue
		}
		n, err := io.Copy(io.Discard, z) // the entry's content
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Name, n)
	}
	// Output:
	// tar.gz checked by gzip CRC32
	// ./dir/a-rather-long-directory-name-that-goes-on-and-on-for-a-while/and-a-file-name-that-makes-the-whole-path-longer-than-one-hundred-bytes.txt 10
	// ./dir/hardlink-to-text 11890
	// ./dir/sub/random.bin 3000
	// ./hello.txt 11
}

// Writing a .tar.zst: WriteHeader takes archive/tar's Header, so code
// written for archive/tar.Writer ports by changing the constructor.
func ExampleNewWriter() {
	var buf bytes.Buffer
	tw, err := tar.NewWriter(&buf, tar.WithCompression(tar.Zstd), tar.WithLevel(3))
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range []struct{ name, body string }{{"hello.txt", "hello\n"}, {"dir/world.txt", "world\n"}} {
		hdr := &archivetar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: time.Unix(1.7e9, 0)}
		if err := tw.WriteHeader(hdr); err != nil {
			log.Fatal(err)
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			log.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil { // the tar's end, then the zstd frame's; buf is not closed
		log.Fatal(err)
	}

	z, err := tar.NewReader(&buf, conf.From(&arc.Config{}))
	if err != nil {
		log.Fatal(err)
	}
	defer z.Close()
	fmt.Println(z.FormatName(), "checked by", z.StreamCheck())
	for {
		e, err := z.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Name, e.Size)
	}
	// Output:
	// tar.zst checked by zstd XXH64
	// hello.txt 6
	// dir/world.txt 6
}

package tar_test

import (
	"fmt"
	"io"
	"log"
	"os"

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

package ppmd

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkReaderZip decodes the PPMd entries of the 7zz test archives
// with one warm reader (Reset per entry).
func BenchmarkReaderZip(b *testing.B) {
	for _, name := range []string{"ppmd-mx5.zip", "ppmd-cutoff.zip"} {
		es := ppmdEntries(b, zipTestdata(name))
		var total int64
		for _, e := range es {
			total += e.Size
		}
		b.Run(name, func(b *testing.B) {
			z := new(ReaderZip)
			defer z.Close()
			src := new(bytes.Reader)
			buf := make([]byte, 32<<10)
			b.SetBytes(total)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, e := range es {
					src.Reset(e.Packed)
					if err := z.Reset(src, e.Size, 0); err != nil {
						b.Fatal(err)
					}
					for {
						_, err := z.Read(buf)
						if err == io.EOF {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

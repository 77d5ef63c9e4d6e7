package lzma

import (
	"bytes"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

// encodeOpts returns the writer options of c.
func encodeOpts(c testutil.EncodeCase) []WriterOption {
	o := []WriterOption{Level(c.Level)}
	if c.Threads > 1 {
		o = append(o, Threads(c.Threads))
	}
	if c.BlockSize > 0 {
		o = append(o, BlockSize(c.BlockSize))
	}
	return o
}

// BenchmarkEncode compresses mixed-0.bin (50 MiB) to LZMA2 with this
// package (impl unarc) and with 7zz as a process on the same file (impl
// 7zz: `7zz a -t7z -m0=lzma2 -mxN -mmtT`). Each reports the compressed
// bytes (for 7zz: the packed stream, without the 7z headers) and the CPU
// time (user + system; for 7zz the child's). The comparison with
// ulikunitz/xz is BenchmarkEncode of the bench module, which runs all
// three. All cases encode 50 MiB and are skipped under -short.
func BenchmarkEncode(b *testing.B) {
	for _, c := range testutil.EncodeCases {
		b.Run(c.Name, func(b *testing.B) {
			if testing.Short() {
				b.Skip("encodes 50 MiB; run without -short")
			}
			b.Run("unarc", func(b *testing.B) {
				data, _ := testutil.Mixed0(b)
				w, err := NewWriter2(io.Discard, encodeOpts(c)...)
				if err != nil {
					b.Fatal(err)
				}
				dict, _ := DictSizeLZMA2(w.DictByte())
				testutil.BenchEncode(b, data, testutil.EncodeWith(w, data), func(packed []byte) (io.Reader, error) {
					return NewReader2(bytes.NewReader(packed), dict, int64(len(data)))
				})
			})
			b.Run("7zz", func(b *testing.B) {
				_, dir := testutil.Mixed0(b)
				testutil.BenchEncode7zz(b, dir, c)
			})
		})
	}
}

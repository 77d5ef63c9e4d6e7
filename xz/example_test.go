package xz_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/xz"
)

// compressed is what `xz -6` writes for 50 times "xz holds LZMA2 blocks. ".
const compressed = "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4AR9ACZdADwegAWCJG5vie1/FfeCJEpny0j+mA+e4AoF9ZU3RAT+3IMnxF4AAAAAxMTu0TYvC6oAAUL+CAAAAGm5dbOxxGf7AgAAAAAEWVo="

// Decode an .xz stream made by the xz tool, with a memory limit.
func Example() {
	data, err := base64.StdEncoding.DecodeString(compressed)
	if err != nil {
		log.Fatal(err)
	}
	r, err := xz.NewReader(bytes.NewReader(data), xz.WithMaxMemory(64<<20))
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var out strings.Builder
	if _, err := io.Copy(&out, r); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(data), "->", out.Len(), out.String() == strings.Repeat("xz holds LZMA2 blocks. ", 50))
	// Output: 104 -> 1150 true
}

// A damaged stream fails with an error that matches the unarc sentinels
// (here unarc.ErrChecksum: the block's CRC64 does not match).
func ExampleNewReader_damaged() {
	data, _ := base64.StdEncoding.DecodeString(compressed)
	data[len(data)-30] ^= 1 // a byte of the block's CRC64
	r, err := xz.NewReader(bytes.NewReader(data))
	if err != nil {
		log.Fatal(err)
	}
	_, err = io.Copy(io.Discard, r)
	fmt.Println(errors.Is(err, unarc.ErrChecksum), err)
	// Output: true checksum mismatch: xz: CRC64 of block 1
}

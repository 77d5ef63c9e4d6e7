package crc32x

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzVerify: whatever the data and the declared size and CRC, Read and
// WriteTo agree on the bytes and the error class, never hand on more
// than one byte past the declared size, and pass exactly the data whose
// size and CRC match.
func FuzzVerify(f *testing.F) {
	f.Add([]byte("\x05\x00\x00\x00\x00\x00\x00\x00hello"), uint32(0x3610a686), false)
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00hello"), uint32(0), true)
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xffhello"), uint32(0x3610a686), false)
	f.Fuzz(func(t *testing.T, in []byte, want uint32, useHint bool) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 16<<20)()
		if len(in) < 8 {
			return
		}
		size := int64(binary.LittleEndian.Uint64(in))
		if size < 0 {
			size = -1
		}
		data := in[8:]
		if useHint {
			want = crc32.ChecksumIEEE(data)
		}
		run := func(writeTo bool, wrap func(io.Reader) io.Reader) ([]byte, error) {
			v := NewCRC32(wrap(bytes.NewReader(data)), want, size)
			var out bytes.Buffer
			var err error
			if writeTo {
				_, err = v.WriteTo(&out)
			} else {
				_, err = io.Copy(&out, struct{ io.Reader }{v})
			}
			return out.Bytes(), err
		}
		class := func(err error) string {
			for _, s := range []error{errs.ErrChecksum, errs.ErrCorrupt, errs.ErrTruncated} {
				if errors.Is(err, s) {
					return s.Error()
				}
			}
			if err != nil {
				t.Fatalf("unclassified error %v", err)
			}
			return "ok"
		}
		id := func(r io.Reader) io.Reader { return r }
		_, rerr := run(true, id)
		for _, writeTo := range []bool{true, false} {
			for _, w := range []func(io.Reader) io.Reader{id, iotest.OneByteReader, iotest.HalfReader} {
				got, err := run(writeTo, w)
				if class(err) != class(rerr) {
					t.Fatalf("writeTo=%v: %v, first path %v", writeTo, err, rerr)
				}
				if size >= 0 && int64(len(got))-1 > size {
					t.Fatalf("writeTo=%v: %d bytes handed on, declared %d", writeTo, len(got), size)
				}
				if err == nil && !bytes.Equal(got, data) {
					t.Fatalf("writeTo=%v: passed %d bytes, not the data", writeTo, len(got))
				}
			}
		}
		ok := (size < 0 || size == int64(len(data))) && want == crc32.ChecksumIEEE(data)
		if ok != (rerr == nil) {
			t.Fatalf("size %d, %d bytes, crc %08x: %v", size, len(data), want, rerr)
		}
	})
}

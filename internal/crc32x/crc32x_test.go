package crc32x

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
)

var data = []byte(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2000))

// writerToReader hides nothing: bytes.Reader has WriteTo, so the
// pass-through path runs.
func TestCRC32(t *testing.T) {
	good := crc32.ChecksumIEEE(data)
	wrap := map[string]func(io.Reader) io.Reader{
		"plain":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for name, w := range wrap {
		for _, viaWriteTo := range []bool{false, true} {
			read := func(v *Reader) ([]byte, error) {
				var out bytes.Buffer
				var err error
				if viaWriteTo {
					_, err = v.WriteTo(&out)
				} else {
					_, err = io.Copy(&out, struct{ io.Reader }{v})
				}
				return out.Bytes(), err
			}
			got, err := read(NewCRC32(w(bytes.NewReader(data)), good, int64(len(data))))
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s/writeTo=%v good: %v", name, viaWriteTo, err)
			}
			_, err = read(NewCRC32(w(bytes.NewReader(data)), good^1, int64(len(data))))
			if !errors.Is(err, errs.ErrChecksum) {
				t.Errorf("%s/writeTo=%v bad crc: %v, want ErrChecksum", name, viaWriteTo, err)
			}
			_, err = read(NewCRC32(w(bytes.NewReader(data[:100])), good, int64(len(data))))
			if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, errs.ErrTruncated) {
				t.Errorf("%s/writeTo=%v short: %v, want truncated", name, viaWriteTo, err)
			}
			// Data past the declared size is corrupt, and at most one byte
			// past it reaches the destination.
			got, err = read(NewCRC32(w(bytes.NewReader(data)), good, 100))
			if !errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrChecksum) {
				t.Errorf("%s/writeTo=%v long: %v, want ErrCorrupt", name, viaWriteTo, err)
			}
			if len(got) > 101 {
				t.Errorf("%s/writeTo=%v long: %d bytes passed, declared 100", name, viaWriteTo, len(got))
			}
		}
	}
}

func TestHashAndExpect(t *testing.T) {
	sum := sha256.Sum256(data)
	if _, err := io.Copy(io.Discard, NewHash(bytes.NewReader(data), sha256.New(), sum[:], -1)); err != nil {
		t.Errorf("hash good: %v", err)
	}
	bad := sum
	bad[0] ^= 1
	if _, err := io.Copy(io.Discard, NewHash(bytes.NewReader(data), sha256.New(), bad[:], -1)); !errors.Is(err, errs.ErrChecksum) {
		t.Errorf("hash bad: %v", err)
	}
	if _, err := io.Copy(io.Discard, NewSize(bytes.NewReader(data), int64(len(data)))); err != nil {
		t.Errorf("size only: %v", err)
	}
	// Expect set late, as a ZIP data descriptor does.
	v := NewHash(nil, nil, nil, -1)
	v.ResetHash(iotest.OneByteReader(bytes.NewReader(data)), nil, nil, -1)
	v.Expect(crc32.ChecksumIEEE(data), int64(len(data)))
	if _, err := io.Copy(io.Discard, v); err != nil {
		t.Errorf("expect: %v", err)
	}
	if v.N() != int64(len(data)) || v.Sum32() != crc32.ChecksumIEEE(data) {
		t.Errorf("N %d Sum32 %08x", v.N(), v.Sum32())
	}
}

func TestResetAllocs(t *testing.T) {
	var v Reader
	r := bytes.NewReader(data)
	want := crc32.ChecksumIEEE(data)
	allocs := testing.AllocsPerRun(20, func() {
		r.Reset(data)
		v.ResetCRC32(r, want, int64(len(data)))
		if _, err := v.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations per verified stream, want at most 1", allocs)
	}
}

package lzma

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzMaxOut caps the output compared per input, so inputs that declare
// huge sizes stay fast.
const fuzzMaxOut = 256 << 10

// seedFiles adds the committed streams whose names end in ext.
func seedFiles(f testutil.F, ext string) {
	for _, name := range testutil.Glob(f, filepath.Join("..", "..", "testdata", "lzma", "*"+ext)) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkErrClass fails when err is not one of the errors a decoder may
// return for bad input.
func checkErrClass(t *testing.T, err error) {
	t.Helper()
	if err == nil || errors.Is(err, errs.ErrCorrupt) || errors.Is(err, errs.ErrTruncated) || errors.Is(err, errs.ErrLimit) {
		return
	}
	t.Fatalf("unexpected error class: %v", err)
}

// seed7z adds the packed streams of the committed 7z archives of form,
// as .lzma (13-byte header) or raw LZMA2 inputs.
func seed7z(f testutil.F, form string) {
	for _, s := range loadStreams(f) {
		if s.form != form {
			continue
		}
		in := packed7z(f, s.data)
		if form == "7z-lzma" {
			if s.props.LC+s.props.LP > 4 {
				continue
			}
			h := s.props.Encode()
			var hdr [13]byte
			copy(hdr[:], h[:])
			binary.LittleEndian.PutUint64(hdr[5:], uint64(s.size))
			in = append(hdr[:], in...)
		}
		f.Add(in)
	}
}

// FuzzLZMA decodes .lzma-header streams with this package (WriteTo and
// small Reads over a fresh and a Reset reader) and checks that both paths
// agree and fail only with input-error classes. The differential target
// against ulikunitz/xz is bench.FuzzLZMAPeer (the bench module).
func FuzzLZMA(f *testing.F) {
	seedFiles(f, ".lzma")
	seed7z(f, "7z-lzma")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		if len(data) < 13 {
			return
		}
		// Keep declared dictionaries small so fuzzing stays fast; the
		// limit path is exercised too.
		limit := MaxDict(1 << 22)
		z, err := NewReaderLZMAHeader(bytes.NewReader(data), limit)
		if err != nil {
			checkErrClass(t, err)
			return
		}
		var ours bytes.Buffer
		_, errOurs := z.WriteTo(&testutil.LimitWriter{W: &ours, N: fuzzMaxOut})
		if errOurs == testutil.ErrLimitWriter {
			errOurs = nil
		}
		checkErrClass(t, errOurs)

		// Reset path with small reads must match exactly.
		if err := z.ResetLZMAHeader(bytes.NewReader(data), limit); err != nil {
			t.Fatalf("Reset failed after New succeeded: %v", err)
		}
		small, errSmall := decodeSmall(z)
		z.Close()
		if !bytes.Equal(small, ours.Bytes()) || (errSmall == nil) != (errOurs == nil) {
			t.Fatalf("Read and WriteTo disagree: %d/%v vs %d/%v", len(small), errSmall, ours.Len(), errOurs)
		}
	})
}

// FuzzLZMA2 does the same for LZMA2 streams with a 1 MiB dictionary
// (differential: bench.FuzzLZMA2Peer).
func FuzzLZMA2(f *testing.F) {
	seedFiles(f, ".lzma2")
	seed7z(f, "7z-lzma2")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		z, err := NewReader2(bytes.NewReader(data), 1<<20, -1)
		if err != nil {
			t.Fatal(err)
		}
		var ours bytes.Buffer
		_, errOurs := z.WriteTo(&testutil.LimitWriter{W: &ours, N: fuzzMaxOut})
		if errOurs == testutil.ErrLimitWriter {
			errOurs = nil
		}
		checkErrClass(t, errOurs)
		if err := z.Reset(bytes.NewReader(data), 1<<20, -1); err != nil {
			t.Fatal(err)
		}
		small, errSmall := decodeSmall(z)
		z.Close()
		if !bytes.Equal(small, ours.Bytes()) || (errSmall == nil) != (errOurs == nil) {
			t.Fatalf("Read and WriteTo disagree: %d/%v vs %d/%v", len(small), errSmall, ours.Len(), errOurs)
		}
	})
}

// decodeSmall reads with reads of 1 to 4093 bytes, up to fuzzMaxOut bytes.
func decodeSmall(r io.Reader) ([]byte, error) {
	var out []byte
	var buf [4093]byte
	sizes := [...]int{1, 7, 100, 4093}
	for i := 0; len(out) < fuzzMaxOut; i++ {
		n, err := r.Read(buf[:min(sizes[i%len(sizes)], fuzzMaxOut-len(out))])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

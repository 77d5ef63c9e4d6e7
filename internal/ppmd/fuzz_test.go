package ppmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/testutil"
)

// fuzzMaxMem caps the model arena in fuzzing: small arenas restart often,
// which exercises the allocator's rare paths.
const fuzzMaxMem = 1 << 20

// FuzzPPMd7z decodes arbitrary input with arbitrary model parameters. It
// must not panic or hang, errors must be corrupt or truncated, and a fresh
// reader, a Reset reader and a one-byte source must agree.
func FuzzPPMd7z(f *testing.F) {
	// Seeds: whole small streams and the first 2 KiB of the others (the
	// fuzzer mutates big inputs slowly).
	for _, fc := range loadFacts(f, "7z") {
		p := packed7z(f, fc.Archive)
		f.Add(p[:min(len(p), 512)], uint8(fc.Order-MinOrder), fc.Mem, uint32(min(fc.Size, 4000)))
	}
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint8(2), uint32(MinMemory), uint32(100))
	reused, err := NewReader7z(bytes.NewReader(packed7z(f, loadFacts(f, "7z")[1].Archive)), 6, 1<<16, 10)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, order uint8, mem uint32, size uint32) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		o := MinOrder + int(order)%(MaxOrder-MinOrder+1)
		mem = max(MinMemory, min(mem, fuzzMaxMem))
		n := int64(size % (1 << 12))
		z, err := NewReader7z(bytes.NewReader(data), o, mem, n)
		if err != nil {
			checkClass(t, err)
			return
		}
		a, errA := io.ReadAll(z)
		z.Close()
		checkClass(t, errA)

		if err := reused.Reset(iotest.OneByteReader(bytes.NewReader(data)), o, mem, n); err != nil {
			t.Fatalf("Reset failed after NewReader succeeded: %v", err)
		}
		b, errB := io.ReadAll(reused)
		if !bytes.Equal(a, b) || (errA == nil) != (errB == nil) {
			t.Fatalf("fresh: %d bytes, %v; reset+one-byte: %d bytes, %v", len(a), errA, len(b), errB)
		}
	})
}

// FuzzPPMdRAR feeds arbitrary bytes to the RAR block header and decoder.
func FuzzPPMdRAR(f *testing.F) {
	for _, fc := range loadFacts(f, "rar") {
		b, err := os.ReadFile(filepath.Join(testdataDir(), fc.Archive))
		if err != nil {
			f.Fatal(err)
		}
		p := parseRAR4(f, b).packed
		f.Add(p[:min(len(p), 2048)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 64<<20)()
		d := RAR{MaxMemory: fuzzMaxMem}
		defer d.Close()
		br := bytes.NewReader(data)
		for blocks := 0; blocks < 4 && br.Len() > 0; blocks++ {
			if _, err := d.ReadHeader(br); err != nil {
				checkClass(t, err)
				continue
			}
			for i := 0; i < 1<<14; i++ {
				if _, err := d.Decode(); err != nil {
					checkClass(t, err)
					break
				}
			}
		}
	})
}

func checkClass(t testutil.TB, err error) {
	t.Helper()
	testutil.FuzzErr(t, "decode", err, testutil.Classes(errs.ErrCorrupt, errs.ErrTruncated, errs.ErrLimit, errs.ErrUnsupported))
}

package unarc_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc"
	"github.com/go-unarc/unarc/internal/testutil"
)

// seekFuzzLimits: fuzzLimits plus a key-derivation bound that lets the
// seeds' AES (7z 2^19 rounds) through once or twice but no fuzzer-made
// 2^24.
var seekFuzzLimits = unarc.WithLimits(unarc.Limits{MaxDictionary: 16 << 20, MaxMemory: 32 << 20,
	MaxHeaderMemory: 16 << 20, MaxEntries: 1 << 16, MaxEntrySize: 1 << 20,
	MaxTotalSize: 64 << 20, MaxRatio: 2000, RatioFloor: 1 << 20, MaxKDFRounds: 1 << 20})

// FuzzSeek: random archive bytes (seeded with testdata/seek) and a
// random sequence of ReadAt/Seek+Read operations on its first entries;
// wherever a sequential read of the entry succeeds, every operation
// must succeed with the same bytes (checkpoints every 64 KiB in a
// 200 KiB cache, so they are taken, used and evicted).
func FuzzSeek(f *testing.F) {
	if testutil.Short() {
		f.Skip("slow under -race; the run without -short covers it")
	}
	for i, name := range seekArchives {
		b, err := os.ReadFile(filepath.Join("testdata", "seek", name))
		if err != nil {
			f.Fatal(err)
		}
		ops := make([]byte, 0, 64)
		for k := range 12 {
			ops = binary.LittleEndian.AppendUint32(ops, uint32(k*7919+i*104729))
			ops = append(ops, byte(k*37))
		}
		f.Add(b, ops)
	}
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, fuzzAlloc)()
		a, err := unarc.Open(bytes.NewReader(data), int64(len(data)), seekFuzzLimits,
			unarc.WithPassword("seek"), unarc.WithCheckpoints(64<<10, 200<<10))
		if err != nil {
			return
		}
		defer a.Close()
		checked := 0
		for _, e := range a.Entries() {
			if checked == 3 {
				break
			}
			if e.IsDir() || e.Size <= 0 {
				continue
			}
			rc, err := a.OpenEntry(e)
			if err != nil {
				continue
			}
			want, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || int64(len(want)) != e.Size {
				continue
			}
			checked++
			s, err := a.OpenSeekable(e)
			if err != nil {
				if errors.Is(err, unarc.ErrLimit) {
					continue
				}
				t.Fatalf("%s: read sequentially, but OpenSeekable: %v", e.Name, err)
			}
			buf := make([]byte, 70<<10)
			for o := ops; len(o) >= 5; o = o[5:] {
				off := int64(binary.LittleEndian.Uint32(o)) % (e.Size + 1)
				n := int(o[4])*int(o[4]) + 1
				var got int
				if o[4]&1 == 0 {
					got, err = s.ReadAt(buf[:n], off)
				} else {
					s.Seek(off, io.SeekStart)
					got, err = io.ReadFull(s, buf[:n])
					if err == io.ErrUnexpectedEOF {
						err = io.EOF
					}
				}
				if errors.Is(err, unarc.ErrLimit) {
					break // re-decoding counts against MaxTotalSize
				}
				if err != nil && err != io.EOF {
					t.Fatalf("%s: ReadAt(%d at %d): %v", e.Name, n, off, err)
				}
				wantN := int(min(int64(n), e.Size-off))
				if got != wantN || !bytes.Equal(buf[:got], want[off:off+int64(got)]) {
					t.Fatalf("%s: %d bytes at %d: got %d, differ from the sequential read", e.Name, n, off, got)
				}
			}
			s.Close()
		}
	})
}

package unarc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/go-unarc/unarc/internal/testutil"
)

// indexFuzzArchives are the archives FuzzIndex reopens: input byte 0
// picks one.
var indexFuzzArchives = []string{"verify/verify.7z", "7z/aes_lzma2_he.7z", "7z/bzip2.7z",
	"verify/verify.zip", "zip/crypt/7zz-AES256-deflate.zip",
	"verify/verify-rar5.rar", "verify/verify-rar4.rar", "rar/rar5_hp_solid.rar", "rar/rar5_copy.rar",
	// Their seeds carry checkpoint sections (IndexWithCheckpoints).
	"seek/lzma-big.7z", "seek/lzma2.7z", "seek/deflate-words.zip", "seek/r5-words.rar", "seek/r5-solid.rar"}

// fuzzCheckpoints is the checkpoint policy of FuzzIndex's archives.
var fuzzCheckpoints = WithCheckpoints(64<<10, 8<<20)

// indexFuzzLimits keep each input's decoding small; no key is derived
// (MaxKDFRounds 1: an input reads encrypted data only with stored keys).
var indexFuzzLimits = WithLimits(Limits{MaxDictionary: 16 << 20, MaxMemory: 32 << 20,
	MaxHeaderMemory: 16 << 20, MaxEntries: 1 << 16, MaxEntrySize: 4 << 20,
	MaxTotalSize: 8 << 20, MaxRatio: 2000, RatioFloor: 1 << 20, MaxKDFRounds: 1})

func fuzzPassword(name string) string {
	switch {
	case strings.HasPrefix(name, "seek/"):
		return "seek"
	case strings.HasSuffix(name, ".7z"):
		return "secret"
	case strings.HasSuffix(name, ".zip"):
		return "SECRET"
	}
	return "test"
}

// FuzzIndex feeds the index parser arbitrary bytes twice: as they are
// (never a panic; almost always ErrStaleIndex, the checksum), and with
// their BLAKE3 checksum appended, so the fuzzer reaches the container
// and format payload parsers behind it. An index that parses must
// marshal back to an equal index; one that opens its archive must list
// and read without panics, within the allocation bound.
func FuzzIndex(f *testing.F) {
	var arch [][]byte
	for i, name := range indexFuzzArchives {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		arch = append(arch, b)
		for _, keys := range []bool{false, true} {
			a, err := Open(bytes.NewReader(b), int64(len(b)), WithPassword(fuzzPassword(name)))
			if err != nil {
				f.Fatal(err)
			}
			var opts []IndexOption
			if keys {
				opts = append(opts, IndexWithKeys())
			}
			if strings.HasPrefix(name, "seek/") {
				// Take checkpoints, and keep them in the index.
				a.Close()
				if a, err = Open(bytes.NewReader(b), int64(len(b)), WithPassword("seek"), fuzzCheckpoints); err != nil {
					f.Fatal(err)
				}
				for _, e := range a.Entries() {
					if s, err := a.OpenSeekable(e); err == nil {
						io.Copy(io.Discard, s)
						s.Close()
					}
				}
				opts = append(opts, IndexWithCheckpoints())
			}
			idx, err := a.Index(opts...)
			a.Close()
			if err != nil {
				f.Fatal(err)
			}
			m, _ := idx.MarshalBinary()
			f.Add(append([]byte{byte(i)}, m[:len(m)-32]...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 96<<20)()
		if _, err := ParseIndex(in); err != nil && !errors.Is(err, ErrStaleIndex) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("raw: %v", err)
		}
		if len(in) < 1 {
			return
		}
		b := arch[int(in[0])%len(arch)]
		sum := blake3.Sum256(in[1:])
		full := append(bytes.Clone(in[1:]), sum[:]...)
		idx, err := ParseIndex(full)
		if err != nil {
			if !errors.Is(err, ErrStaleIndex) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("checksummed: %v", err)
			}
			return
		}
		m, err := idx.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseIndex(m)
		if err != nil || !reflect.DeepEqual(again, idx) {
			t.Fatalf("round trip: %v", err)
		}
		a, err := Open(bytes.NewReader(b), int64(len(b)), WithIndex(idx), indexFuzzLimits, fuzzCheckpoints,
			WithPassword(fuzzPassword(indexFuzzArchives[int(in[0])%len(arch)])))
		if err != nil {
			return
		}
		defer a.Close()
		for _, e := range a.Entries() {
			if !hasData(e) {
				continue
			}
			rc, err := a.OpenEntry(e)
			if err != nil {
				continue
			}
			want, err := io.ReadAll(rc)
			rc.Close()
			// Reads from restored checkpoints never give other bytes than
			// the verified sequential read: the end, then back.
			s, serr := a.OpenSeekable(e)
			if serr != nil {
				continue
			}
			for _, off := range []int64{int64(len(want)) - 1, int64(len(want)) - 2, int64(len(want)) / 2} {
				p := make([]byte, 1)
				if off < 0 {
					continue
				}
				if _, rerr := s.ReadAt(p, off); rerr == nil && err == nil && p[0] != want[off] {
					t.Fatalf("%s: byte %d read at an offset differs from the sequential read", e.Name, off)
				}
			}
			s.Close()
		}
		if again, err := a.Index(IndexWithKeys(), IndexWithCheckpoints()); err == nil {
			again.MarshalBinary()
		}
	})
}

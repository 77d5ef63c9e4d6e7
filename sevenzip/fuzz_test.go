package sevenzip

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/testutil"
)

// FuzzOpen feeds arbitrary bytes to Open and reads every entry: no input
// may panic, hang or make the parser allocate by an untrusted count.
func FuzzOpen(f *testing.F) {
	// Small seeds only: the fuzzer minimizes every new input it finds
	// (up to a minute each, uncounted in execs/sec), slowly on large ones.
	seeds := testArchives(f)
	if dir := os.Getenv("UNARC_CORPUS"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "7z", "*", "*.7z"))
		seeds = append(seeds, more...)
	} else if more, _ := filepath.Glob("../../shared/corpus/7z/*/*.7z"); len(more) > 0 {
		seeds = append(seeds, more...)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil && len(b) <= 2<<10 {
			f.Add(b)
		}
	}
	// Issue 14 corners: a stub before a real archive and before a forged
	// signature header, and a 7zAES key derivation 7-Zip refuses.
	if tiny, err := os.ReadFile("../testdata/7z/tiny_copy.7z"); err == nil {
		f.Add(cat(fakeExe(512), tiny))
	}
	f.Add(cat(fakeExe(512), forgedStart(100, 200, 0x12345678), fakeExe(300)))
	hdr := cat([]byte{idHeader, idFilesInfo, 1, idName, 5, 0, 'f', 0, 0, 0, idEmptyStream, 1, 0x80, idEnd, idEnd})
	f.Add(encodedArchive(nil, hdr, []coderSpec{{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: aesCoderProps(30)}}, make([]byte, 32)))
	// Issue 33: the header encoded by ZSTD, BROTLI, LZ4 and the Swap
	// filters (FuzzZstdFamily fuzzes those decoders with roomier limits).
	for i, chain := range zstdFamilyChains {
		f.Add(encodedArchive(nil, hdr, chain, encode7zxChain(f, i, hdr)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer testutil.FuzzBound(t, testutil.FuzzTimeout, 256<<20)()
		fixCRCs(data)
		a, err := Open(bytes.NewReader(data), int64(len(data)), conf.From(&arc.Config{Limits: fuzzLimits}))
		if err != nil {
			return
		}
		defer a.Close()
		budget := int64(1 << 20) // output per input, over every entry
		for i := range a.Entries() {
			if budget <= 0 {
				break
			}
			rc, err := a.Open(i)
			if err != nil {
				continue
			}
			n, _ := io.CopyN(io.Discard, rc, min(budget, 256<<10))
			budget -= n + 4096 // opening costs too
			rc.Close()
		}
	})
}

// fuzzLimits keep every fuzz input small: windows, models and the index.
var fuzzLimits = arc.Limits{
	MaxDictionary:   1 << 20,
	MaxMemory:       16 << 20,
	MaxHeaderMemory: 16 << 20,
	MaxEntries:      1 << 12,
	MaxKDFRounds:    1 << 16,
}

// fixCRCs recomputes the signature header's CRCs of a mutated archive so
// the fuzzer reaches the header parser instead of stopping at the CRC.
func fixCRCs(data []byte) {
	if len(data) < sigHeaderSize || !bytes.Equal(data[:6], signature[:]) {
		return
	}
	if bytes.Count(data[8:32], []byte{0}) == 24 {
		return // a zeroed start header: leave it to the recovery search
	}
	off := binary.LittleEndian.Uint64(data[12:])
	n := binary.LittleEndian.Uint64(data[20:])
	if off < uint64(len(data)) && n <= uint64(len(data)) && sigHeaderSize+off+n <= uint64(len(data)) {
		hdr := data[sigHeaderSize+off : sigHeaderSize+off+n]
		binary.LittleEndian.PutUint32(data[28:], crc32.ChecksumIEEE(hdr))
	}
	binary.LittleEndian.PutUint32(data[8:], crc32.ChecksumIEEE(data[12:32]))
}

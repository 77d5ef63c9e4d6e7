package sevenzip

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/internal/arc"
)

// FuzzOpen feeds arbitrary bytes to Open and reads every entry: no input
// may panic, hang or make the parser allocate by an untrusted count.
func FuzzOpen(f *testing.F) {
	// Small seeds only: the fuzzer's minimizer is slow on large inputs.
	seeds := testArchives(f)
	if dir := os.Getenv("UNARC_CORPUS"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "7z", "*", "*.7z"))
		seeds = append(seeds, more...)
	} else if more, _ := filepath.Glob("../../shared/corpus/7z/*/*.7z"); len(more) > 0 {
		seeds = append(seeds, more...)
	}
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err == nil && len(b) <= 8<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fixCRCs(data)
		cfg := &arc.Config{Limits: arc.Limits{MaxDictionary: 1 << 20, MaxMemory: 16 << 20}}
		a, err := Open(bytes.NewReader(data), int64(len(data)), cfg)
		if err != nil {
			return
		}
		defer a.Close()
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err != nil {
				continue
			}
			io.CopyN(io.Discard, rc, 1<<20)
			rc.Close()
		}
	})
}

// fixCRCs recomputes the signature header's CRCs of a mutated archive so
// the fuzzer reaches the header parser instead of stopping at the CRC.
func fixCRCs(data []byte) {
	if len(data) < sigHeaderSize || !bytes.Equal(data[:6], signature[:]) {
		return
	}
	off := binary.LittleEndian.Uint64(data[12:])
	n := binary.LittleEndian.Uint64(data[20:])
	if off < uint64(len(data)) && n <= uint64(len(data)) && sigHeaderSize+off+n <= uint64(len(data)) {
		hdr := data[sigHeaderSize+off : sigHeaderSize+off+n]
		binary.LittleEndian.PutUint32(data[28:], crc32.ChecksumIEEE(hdr))
	}
	binary.LittleEndian.PutUint32(data[8:], crc32.ChecksumIEEE(data[12:32]))
}

package sevenzip

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/ppmd"
)

// oneFileArchive stores pack as the single pack stream of one folder of
// coders (sizes per coder output) holding one file "f" of sizes[0]
// bytes with CRC crc.
func oneFileArchive(pack []byte, coders []coderSpec, sizes []uint64, crc uint32) []byte {
	hdr := cat([]byte{idHeader, idMainStreamsInfo}, streamsInfoBytes(0, uint64(len(pack)), coders, sizes, &crc),
		[]byte{idFilesInfo, 1, idName, 5, 0, 'f', 0, 0, 0, idEnd, idEnd})
	return build7z(pack, hdr)
}

func readEntry0(data []byte, l arc.Limits) ([]byte, error) {
	a, err := openWith(data, l)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	rc, err := a.Open(0)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func ppmdProps(order byte, mem uint32) []byte {
	return []byte{order, byte(mem), byte(mem >> 8), byte(mem >> 16), byte(mem >> 24)}
}

// TestChainMemory: MaxMemory bounds a folder's coders together, before
// any of them allocates.
func TestChainMemory(t *testing.T) {
	ppmd := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 1<<30)}
	lzma1 := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{0x5D, 0, 0, 0, 0x40}} // 1 GiB dictionary
	for _, tc := range []struct {
		name   string
		coders []coderSpec
		size   uint64
		max    int64
	}{
		{"three PPMd of 1 GiB", []coderSpec{ppmd, ppmd, ppmd}, 1 << 20, 2 << 30},
		{"four LZMA of 1 GiB", []coderSpec{lzma1, lzma1, lzma1, lzma1}, 1 << 30, 2 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sizes := make([]uint64, len(tc.coders))
			for i := range sizes {
				sizes[i] = tc.size
			}
			data := oneFileArchive(make([]byte, 64), tc.coders, sizes, 0)
			var err error
			got := allocDuring(func() {
				_, err = readEntry0(data, arc.Limits{MaxMemory: tc.max, MaxDictionary: -1})
			})
			if !errors.Is(err, errs.ErrLimit) {
				t.Fatalf("got %v, want ErrLimit", err)
			}
			t.Logf("%v after %d bytes", err, got)
			if got > 4<<20 {
				t.Errorf("allocated %d bytes before refusing", got)
			}
		})
	}
}

// TestPPMdTablesCounted: a PPMd coder needs its model's tables
// (ppmd.Overhead: the block-sum cache, SEE and binary contexts, the heap
// check of a restored model) under MaxMemory besides the arena and its
// input buffer.
func TestPPMdTablesCounted(t *testing.T) {
	const mem = 1 << 20
	c := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, mem)}
	data := oneFileArchive(make([]byte, 64), []coderSpec{c}, []uint64{100}, 0)
	need := int64(packReaderMem + mem + ppmdFixedMem + ppmd.Overhead(mem))
	if _, err := readEntry0(data, arc.Limits{MaxMemory: need - 1}); !errors.Is(err, errs.ErrLimit) {
		t.Fatalf("MaxMemory one byte short of the model with its tables: %v, want ErrLimit", err)
	}
	if _, err := readEntry0(data, arc.Limits{MaxMemory: need}); errors.Is(err, errs.ErrLimit) {
		t.Fatalf("MaxMemory covering the model with its tables: %v", err)
	}
}

// TestWindowFollowsOutput: a folder declaring a 1 GiB LZMA2 stream over
// a few bytes does not allocate the window up front, and a 4 GiB
// dictionary over a small file extracts under a 1 MiB MaxDictionary.
func TestWindowFollowsOutput(t *testing.T) {
	content := bytes.Repeat([]byte("window "), 1700) // 11.9 KB
	packed := lzma2Stored(content)
	crc := crc32.ChecksumIEEE(content)
	data := oneFileArchive(packed, []coderSpec{lzma2Coder(40)}, []uint64{uint64(len(content))}, crc)
	got, err := readEntry0(data, arc.Limits{MaxDictionary: 1 << 20})
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("4 GiB dictionary over %d bytes: %v", len(content), err)
	}

	lie := oneFileArchive(packed, []coderSpec{lzma2Coder(38)}, []uint64{1 << 30}, 0)
	n := allocDuring(func() { _, err = readEntry0(lie, arc.Limits{}) })
	if err == nil {
		t.Fatal("a stream shorter than declared read without error")
	}
	if !errors.Is(err, errs.ErrTruncated) && !errors.Is(err, errs.ErrCorrupt) {
		t.Errorf("got %v, want truncated or corrupt", err)
	}
	t.Logf("%d bytes declared as 1 GiB: %v after %d bytes allocated", len(packed), err, n)
	if n > 8<<20 {
		t.Errorf("allocated %d bytes", n)
	}
}

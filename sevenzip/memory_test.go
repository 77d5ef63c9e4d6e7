package sevenzip

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
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

// folderSpec is one folder of multiFolderArchive: a single coder over
// one pack stream, holding one file of size bytes.
type folderSpec struct {
	coder coderSpec
	pack  []byte
	size  uint64
}

// multiFolderArchive stores one unnamed file per folder.
func multiFolderArchive(folders []folderSpec) []byte {
	n := uint64(len(folders))
	var pack, sizes, recs, unpack []byte
	for _, f := range folders {
		pack = append(pack, f.pack...)
		sizes = append(sizes, num(uint64(len(f.pack)))...)
		r, u := folderRecord([]coderSpec{f.coder}, []uint64{f.size})
		recs, unpack = append(recs, r...), append(unpack, u...)
	}
	hdr := cat([]byte{idHeader, idMainStreamsInfo, idPackInfo}, num(0), num(n), []byte{idSize}, sizes, []byte{idEnd},
		[]byte{idUnpackInfo, idFolder}, num(n), []byte{0}, recs, []byte{idCodersUnpackSize}, unpack, []byte{idEnd, idEnd},
		[]byte{idFilesInfo}, num(n), []byte{idEnd, idEnd})
	return build7z(pack, hdr)
}

// TestHostileModelMemory: under the CLI's MaxMemory (2 GiB) a PPMd coder
// declaring a 4 GiB model, and a chain of three 1.5 GiB ones, are
// refused before their arenas are allocated; so is an LZMA window of
// 3 GiB (the output it declares) under a lifted MaxDictionary.
func TestHostileModelMemory(t *testing.T) {
	const limit = 2 << 30
	p4 := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, ppmd.MaxMemory)}
	p15 := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 3<<29)}
	lz := coderSpec{id: []byte{0x03, 0x01, 0x01}, props: []byte{0x5D, 0xFF, 0xFF, 0xFF, 0xFF}}
	for _, tc := range []struct {
		name   string
		coders []coderSpec
		size   uint64
	}{
		{"PPMd of 4 GiB", []coderSpec{p4}, 10 << 10},
		{"three PPMd of 1.5 GiB", []coderSpec{p15, p15, p15}, 10 << 10},
		{"LZMA window of 3 GiB", []coderSpec{lz}, 3 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sizes := make([]uint64, len(tc.coders))
			for i := range sizes {
				sizes[i] = tc.size
			}
			data := oneFileArchive(make([]byte, 64), tc.coders, sizes, 0)
			var err error
			got := allocDuring(func() {
				_, err = readEntry0(data, arc.Limits{MaxMemory: limit, MaxDictionary: -1})
			})
			if !errors.Is(err, errs.ErrLimit) {
				t.Fatalf("got %v, want ErrLimit", err)
			}
			if got > 4<<20 {
				t.Errorf("allocated %d bytes before refusing", got)
			}
		})
	}
}

// TestBigFoldersTakeTurns: folders that each need more than half of
// MaxMemory share one unit, so a parallel extraction decodes them one
// after another (two at once would need more than the limit); small
// folders keep units of their own.
func TestBigFoldersTakeTurns(t *testing.T) {
	const limit = 2 << 30
	big := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 1800<<20)}
	small := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 16<<20)}
	data := multiFolderArchive([]folderSpec{{big, make([]byte, 8), 10}, {small, make([]byte, 8), 10}, {big, make([]byte, 8), 10}, {small, make([]byte, 8), 10}})
	a, err := openWith(data, arc.Limits{MaxMemory: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	u := a.caps().Units()
	if len(u) != 4 || u[0] != u[2] || u[1] == u[3] || u[1] == u[0] || u[3] == u[0] {
		t.Fatalf("units %v: want the two big folders together, the small ones apart", u)
	}

	// With 8 workers a folder's share is 256 MiB: 300 MiB folders take
	// turns too (one of 1.8 GiB and seven of 300 MiB at once would need
	// 3.9 GiB).
	mid := coderSpec{id: []byte{0x03, 0x04, 0x01}, props: ppmdProps(6, 300<<20)}
	data = multiFolderArchive([]folderSpec{{big, make([]byte, 8), 10}, {mid, make([]byte, 8), 10}, {small, make([]byte, 8), 10}, {mid, make([]byte, 8), 10}})
	a8, err := Open(bytes.NewReader(data), int64(len(data)), arc.WithLimits(arc.Limits{MaxMemory: limit}), conf.Workers(8))
	if err != nil {
		t.Fatal(err)
	}
	defer a8.Close()
	u = a8.caps().Units()
	if u[0] != u[1] || u[1] != u[3] || u[2] == u[0] {
		t.Fatalf("units %v with 8 workers: want every folder above 256 MiB together, the 16 MiB one apart", u)
	}
}

// TestFolderEndNotParked: a decoder that has reached the end of its
// folder is closed, not kept for reuse: its window or model would stay
// allocated beside the next folder's.
func TestFolderEndNotParked(t *testing.T) {
	content := []byte("the whole folder")
	f := folderSpec{lzma2Coder(16), lzma2Stored(content), uint64(len(content))}
	a, err := openWith(multiFolderArchive([]folderSpec{f, f}), arc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := range 2 {
		if b, err := readIndex(a, i); err != nil || !bytes.Equal(b, content) {
			t.Fatalf("entry %d: %q, %v", i, b, err)
		}
		a.mu.Lock()
		n := len(a.idle)
		a.mu.Unlock()
		if n != 0 {
			t.Fatalf("after entry %d, the last of its folder: %d decoders parked", i, n)
		}
	}
}

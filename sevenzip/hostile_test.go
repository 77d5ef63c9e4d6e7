package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// build7z wraps a plain header and pack data in a signature header.
func build7z(pack, header []byte) []byte {
	var b bytes.Buffer
	b.Write(signature[:])
	b.Write([]byte{0, 4})
	var sh [24]byte
	binary.LittleEndian.PutUint64(sh[4:], uint64(len(pack)))
	binary.LittleEndian.PutUint64(sh[12:], uint64(len(header)))
	binary.LittleEndian.PutUint32(sh[20:], crc32.ChecksumIEEE(header))
	binary.LittleEndian.PutUint32(sh[0:], crc32.ChecksumIEEE(sh[4:]))
	b.Write(sh[:])
	b.Write(pack)
	b.Write(header)
	return b.Bytes()
}

func openBytes(data []byte) (*Archive, error) {
	return Open(bytes.NewReader(data), int64(len(data)), nil)
}

func TestHostileHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pack   []byte
		header []byte
	}{
		{"huge numFiles", nil, []byte{idHeader, idFilesInfo, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, idEnd, idEnd}},
		{"huge numFolders", nil, []byte{idHeader, idMainStreamsInfo, idUnpackInfo, idFolder, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, idEnd}},
		{"huge numCoders", []byte{1}, []byte{idHeader, idMainStreamsInfo,
			idPackInfo, 0, 1, idSize, 1, idEnd,
			idUnpackInfo, idFolder, 1, 0, 0xC0, 0xFF, 0xFF, idEnd}},
		{"bind pair out of range", []byte{1, 2}, []byte{idHeader, idMainStreamsInfo,
			idPackInfo, 0, 1, idSize, 1, idEnd,
			idUnpackInfo, idFolder, 1, 0,
			2, 0x01, 0x00, 0x01, 0x00, // two Copy coders
			9, 0, // bind pair in 9 <- out 0
			idCodersUnpackSize, 1, 1, idEnd, idEnd, idFilesInfo, 1, idEnd, idEnd}},
		{"huge substream count", []byte{1}, []byte{idHeader, idMainStreamsInfo,
			idPackInfo, 0, 1, idSize, 1, idEnd,
			idUnpackInfo, idFolder, 1, 0, 1, 0x01, 0x00, idCodersUnpackSize, 1, idEnd,
			idSubStreamsInfo, idNumUnpackStream, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, idEnd, idEnd}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openBytes(build7z(tc.pack, tc.header))
			if !errors.Is(err, errs.ErrCorrupt) {
				t.Errorf("got %v, want a corrupt error", err)
			}
		})
	}
}

// TestCoderCycle builds a folder whose second coder feeds itself; Open
// of the entry must fail cleanly.
func TestCoderCycle(t *testing.T) {
	header := []byte{idHeader, idMainStreamsInfo,
		idPackInfo, 0, 1, idSize, 2, idEnd,
		idUnpackInfo, idFolder, 1, 0,
		2,
		0x11, 0x00, 2, 1, // coder 0: Copy, 2 in, 1 out
		0x11, 0x00, 1, 2, // coder 1: Copy, 1 in, 2 out
		1, 1, // in 1 <- out 1
		2, 2, // in 2 <- out 2 (coder 1 feeds itself)
		idCodersUnpackSize, 1, 1, 1, idEnd, idEnd,
		idFilesInfo, 1, idEnd, idEnd}
	a, err := openBytes(build7z([]byte{'a', 'b'}, header))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := a.Open(0)
	if err == nil {
		_, err = io.ReadAll(rc)
	}
	t.Log(err)
	if !errors.Is(err, errs.ErrCorrupt) && !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("got %v", err)
	}
}

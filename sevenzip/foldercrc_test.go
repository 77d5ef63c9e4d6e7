package sevenzip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"testing"

	"github.com/go-unarc/unarc/internal/errs"
)

// withFolderCRC returns the plain-header 7z data, whose one folder holds
// nSub files, with a folder CRC (UnpackDigest) of crc added to its
// UnpackInfo. 7-Zip writes one only for a folder of a single file (and
// an encoded header), where it doubles the file's; other writers put it
// on solid folders too.
func withFolderCRC(t *testing.T, data []byte, nSub byte, crc uint32) []byte {
	t.Helper()
	off := binary.LittleEndian.Uint64(data[12:])
	size := binary.LittleEndian.Uint64(data[20:])
	pack, hdr := data[32:32+off], data[32+off:32+off+size]
	// UnpackInfo ends with kEnd right before the SubStreamsInfo that
	// gives the folder its files.
	mark := []byte{idEnd, idSubStreamsInfo, idNumUnpackStream, nSub}
	if bytes.Count(hdr, mark) != 1 {
		t.Fatalf("the header holds %d places for a folder CRC", bytes.Count(hdr, mark))
	}
	at := bytes.Index(hdr, mark)
	rec := []byte{idCRC, 1, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(rec[2:], crc)
	return build7z(pack, cat(hdr[:at], rec, hdr[at:]))
}

// TestSolidFolderCRC: the CRC of a folder of several files is checked
// once the folder has been read to its end from its start: a wrong one
// fails the read that reaches the end (as 7zz reports a CRC error there),
// a right one passes, and reading only the first file checks nothing.
func TestSolidFolderCRC(t *testing.T) {
	orig, err := os.ReadFile("../testdata/7z/filter_delta4_copy.7z") // one solid folder of two files, plain header
	if err != nil {
		t.Fatal(err)
	}
	a, err := openBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.si.folders) != 1 || a.si.folders[0].numSub != 2 || a.si.folders[0].hasCRC {
		t.Fatalf("want one folder of two files without a folder CRC")
	}
	var whole []byte
	for i := range a.Entries() {
		b, err := readIndex(a, i)
		if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, b...)
	}
	a.Close()
	good := crc32.ChecksumIEEE(whole)

	t.Run("right", func(t *testing.T) {
		a, err := openBytes(withFolderCRC(t, orig, 2, good))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if !a.si.folders[0].hasCRC {
			t.Fatal("the folder CRC was not parsed")
		}
		for i := range a.Entries() {
			if _, err := readIndex(a, i); err != nil {
				t.Errorf("entry %d: %v", i, err)
			}
		}
	})
	t.Run("wrong, in order", func(t *testing.T) {
		a, err := openBytes(withFolderCRC(t, orig, 2, good^1))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if _, err := readIndex(a, 0); err != nil {
			t.Fatalf("first file (the folder is not read to its end): %v", err)
		}
		if _, err := readIndex(a, 1); !errors.Is(err, errs.ErrChecksum) {
			t.Fatalf("last file: %v, want ErrChecksum", err)
		}
	})
	t.Run("wrong, last file alone", func(t *testing.T) {
		a, err := openBytes(withFolderCRC(t, orig, 2, good^1))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		if _, err := readIndex(a, 1); !errors.Is(err, errs.ErrChecksum) {
			t.Fatalf("last file after skipping the first: %v, want ErrChecksum", err)
		}
	})
	t.Run("wrong, read at an offset", func(t *testing.T) {
		// A reader started inside the folder (a Copy folder is read
		// directly there) has not seen its start: it cannot check the
		// folder's CRC and must not fail on it.
		files := [][]byte{bytes.Repeat([]byte("first "), 500), bytes.Repeat([]byte("second "), 500)}
		a, err := openBytes(solidCopyArchive(files, crc32.ChecksumIEEE(cat(files...))^1))
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		n := int64(len(files[1]))
		rc, got, err := a.caps().OpenAt(1, n-10)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		if got == 0 {
			t.Fatal("OpenAt read the Copy folder from its start")
		}
		if b, err := io.ReadAll(rc); err != nil || !bytes.Equal(b, files[1][got:]) {
			t.Fatalf("OpenAt(1, %d) from %d: %d bytes, %v", n-10, got, len(b), err)
		}
		if _, err := readIndex(a, 1); !errors.Is(err, errs.ErrChecksum) {
			t.Fatalf("the same file read from the start: %v, want ErrChecksum", err)
		}
	})
}

// solidCopyArchive stores files in one Copy folder whose CRC is
// folderCRC, each file with its own right CRC.
func solidCopyArchive(files [][]byte, folderCRC uint32) []byte {
	return solidCopy(files, folderCRC, true)
}

func solidCopy(files [][]byte, folderCRC uint32, fileCRCs bool) []byte {
	le := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	pack := cat(files...)
	sub := []byte{idSubStreamsInfo, idNumUnpackStream}
	sub = append(sub, num(uint64(len(files)))...)
	sub = append(sub, idSize)
	for _, f := range files[:len(files)-1] {
		sub = append(sub, num(uint64(len(f)))...)
	}
	if fileCRCs {
		sub = append(sub, idCRC, 1)
		for _, f := range files {
			sub = append(sub, le(crc32.ChecksumIEEE(f))...)
		}
	}
	sub = append(sub, idEnd)
	var names []byte
	for i := range files {
		names = append(names, 'f', 0, byte('0'+i), 0, 0, 0)
	}
	hdr := cat([]byte{idHeader, idMainStreamsInfo, idPackInfo}, num(0), num(1), []byte{idSize}, num(uint64(len(pack))), []byte{idEnd},
		[]byte{idUnpackInfo, idFolder, 1, 0, 1, 0x01, 0x00, idCodersUnpackSize}, num(uint64(len(pack))),
		[]byte{idCRC, 1}, le(folderCRC), []byte{idEnd},
		sub, []byte{idEnd},
		[]byte{idFilesInfo}, num(uint64(len(files))), []byte{idName}, num(uint64(len(names)+1)), []byte{0}, names,
		[]byte{idEnd, idEnd})
	return build7z(pack, hdr)
}

func readIndex(a *Archive, i int) ([]byte, error) {
	rc, err := a.Open(i)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

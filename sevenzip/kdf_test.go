package sevenzip

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/aes7z"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// aesFolders builds an archive of n non-solid folders, each one AES
// coder over file i's content "file i"; folder i's salt is salt(i).
func aesFolders(t *testing.T, n int, cycles byte, salt func(i int) []byte, pw string) []byte {
	return aesFoldersOver(t, n, cycles, salt, pw, false)
}

// aesFoldersOver is aesFolders with, when lz, an LZMA2 coder after AES.
func aesFoldersOver(t *testing.T, n int, cycles byte, salt func(i int) []byte, pw string, lz bool) []byte {
	var pack, packSizes, folders, unpack []byte
	var names []byte
	for i := 0; i < n; i++ {
		data := []byte(fmt.Sprintf("file %d", i))
		s := salt(i)
		iv := make([]byte, 16)
		iv[0] = byte(i)
		props := append([]byte{cycles | 0xC0, byte(len(s)-1)<<4 | 15}, s...)
		props = append(props, iv...)
		p, err := aes7z.ParseProps(props)
		if err != nil {
			t.Fatal(err)
		}
		key, _ := aes7z.Key(pw, &p)
		blk, _ := aes.NewCipher(key[:])
		plain := data
		if lz {
			plain = lzma2Stored(data)
		}
		padded := make([]byte, (len(plain)+15)&^15)
		copy(padded, plain)
		cipher.NewCBCEncrypter(blk, iv).CryptBlocks(padded, padded)
		pack = append(pack, padded...)
		packSizes = append(packSizes, num(uint64(len(padded)))...)
		aesC := coderSpec{id: []byte{0x06, 0xF1, 0x07, 0x01}, props: props}
		f, u := folderRecord([]coderSpec{aesC}, []uint64{uint64(len(data))})
		if lz {
			f, u = folderRecord([]coderSpec{lzma2Coder(16), aesC}, []uint64{uint64(len(data)), uint64(len(plain))})
		}
		folders = append(folders, f...)
		unpack = append(unpack, u...)
		for _, c := range fmt.Sprintf("f%d", i) {
			names = append(names, byte(c), 0)
		}
		names = append(names, 0, 0)
	}
	hdr := cat([]byte{idHeader, idMainStreamsInfo, idPackInfo}, num(0), num(uint64(n)), []byte{idSize}, packSizes, []byte{idEnd},
		[]byte{idUnpackInfo, idFolder}, num(uint64(n)), []byte{0}, folders, []byte{idCodersUnpackSize}, unpack, []byte{idEnd, idEnd},
		[]byte{idFilesInfo}, num(uint64(n)), []byte{idName}, num(uint64(len(names)+1)), []byte{0}, names, []byte{idEnd, idEnd})
	return build7z(pack, hdr)
}

// TestKDFBudget: every distinct key is charged once to MaxKDFRounds,
// repeated salts are served from the Archive's cache.
func TestKDFBudget(t *testing.T) {
	const n, cycles = 6, 10
	read := func(data []byte, max int64) (int, error) {
		cfg := &arc.Config{
			Limits:   arc.Limits{MaxKDFRounds: max},
			Password: func(*arc.Entry) (string, error) { return "pw", nil },
		}
		a, err := openWithCfg(data, cfg)
		if err != nil {
			return 0, err
		}
		defer a.Close()
		for i := range a.Entries() {
			rc, err := a.Open(i)
			if err == nil {
				var b []byte
				b, err = io.ReadAll(rc)
				rc.Close()
				if err == nil && string(b) != fmt.Sprintf("file %d", i) {
					err = fmt.Errorf("entry %d reads %q", i, b)
				}
			}
			if err != nil {
				return i, err
			}
		}
		return n, nil
	}
	distinct := aesFolders(t, n, cycles, func(i int) []byte { return []byte{byte(i), 1, 2, 3} }, "pw")
	if got, err := read(distinct, 3<<cycles); got != 3 || !errors.Is(err, errs.ErrLimit) {
		t.Errorf("one salt per folder, budget for 3 keys: stopped at entry %d with %v, want 3 and ErrLimit", got, err)
	}
	if _, err := read(distinct, n<<cycles); err != nil {
		t.Errorf("budget for every key: %v", err)
	}
	same := aesFolders(t, n, cycles, func(int) []byte { return []byte{9, 9} }, "pw")
	if _, err := read(same, 1<<cycles); err != nil {
		t.Errorf("one salt for all folders, budget for one key: %v", err)
	}
}

func openWithCfg(data []byte, cfg *arc.Config) (*Archive, error) {
	return Open(bytes.NewReader(data), int64(len(data)), conf.From(cfg))
}

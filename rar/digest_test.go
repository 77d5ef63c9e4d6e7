package rar

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// TestEncryptedDigests: an entry of rar -p (data encrypted, headers not)
// is verifiable. RAR5 stores its CRC-32 or BLAKE2sp turned into a MAC
// with the password's hash key, and reading checks it, so it is reported
// as HashKind CRC32-MAC or BLAKE2sp-MAC with the stored bytes; RAR4's CRC
// is plain. Issue 29: these entries said they had no checksum.
func TestEncryptedDigests(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind string // "" for a plain CRC32
	}{
		{"rar5_pw.rar", hashCRC32MAC},
		{"rar5_pw_stored.rar", hashCRC32MAC},
		{"rar5_pw_blake.rar", hashBLAKE2spMAC},
		{"rar5_pw_vol.part1.rar", hashCRC32MAC},
		{"rar5_pw_blake_vol.part1.rar", hashBLAKE2spMAC},
		{"rar5_hp_stored.rar", ""}, // -hp: headers encrypted, checksums plain
		{"rar4_pw.rar", ""},
		{"rar4_pw_stored.rar", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(testdata, tc.name)
			a, err := openPath(t, path, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			files := 0
			for i, e := range a.Entries() {
				if e.IsDir() {
					continue
				}
				files++
				checkDigest(t, e, tc.kind, a.files[i].crc)
				if _, err := readAll(a, i); err != nil {
					t.Errorf("%s: %v", e.Name, err)
				}
			}
			if files == 0 {
				t.Fatal("no files")
			}
			// The forward-only Reader lists the same digests for entries
			// in one volume (a split entry's comes with its last part).
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := NewReader(f, conf.From(config(t, path, "test")))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if e.IsDir() || r.cur.split {
					continue
				}
				checkDigest(t, e, tc.kind, r.cur.crc)
			}
		})
	}
}

func checkDigest(t *testing.T, e *arc.Entry, kind string, crc uint32) {
	t.Helper()
	if !e.Verifiable() {
		t.Errorf("%s: not verifiable", e.Name)
	}
	switch kind {
	case "":
		if !e.HasCRC32 || e.CRC32 != crc || e.HashKind != "" {
			t.Errorf("%s: HasCRC32 %v CRC32 %08x HashKind %q; want the plain CRC %08x", e.Name, e.HasCRC32, e.CRC32, e.HashKind, crc)
		}
	case hashCRC32MAC:
		if e.HasCRC32 || e.HashKind != kind || !bytes.Equal(e.Hash, binary.BigEndian.AppendUint32(nil, crc)) {
			t.Errorf("%s: HasCRC32 %v HashKind %q Hash %x; want %s %08x", e.Name, e.HasCRC32, e.HashKind, e.Hash, kind, crc)
		}
	default:
		if e.HasCRC32 || e.HashKind != kind || len(e.Hash) != 32 {
			t.Errorf("%s: HasCRC32 %v HashKind %q Hash %x; want %s of 32 bytes", e.Name, e.HasCRC32, e.HashKind, e.Hash, kind)
		}
	}
}

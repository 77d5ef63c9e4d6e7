// Package rar reads RAR archives: the RAR 5.0 container (rar 5 and later)
// and the RAR 1.5–4.x container, in one package because both share the
// volume logic, the entry model and the data chain
//
//	volumes -> AES-CBC decryptor -> unpacker (stored, v1.5/2.0/2.9/5.0) -> checksum
//
// The format is chosen by the marker block: "Rar!\x1a\x07\x01\x00" for
// RAR 5.0 and "Rar!\x1a\x07\x00" for 1.5–4.x (technote "RAR 5.0 archive
// format", section "General archive structure"). An archive may be
// prefixed by an SFX module; the marker is searched for as unrar does.
//
// # Security
//
// Header sizes are bounded (RAR5: 2 MiB, RAR4: 64 KiB by the format),
// nothing is allocated from an untrusted count, dictionary sizes are
// checked against Config.Limits before a decoder is built, and a wrong
// password is reported as errs.ErrPassword, never as data.
//
// Checksums: an entry's CRC-32 is Entry.CRC32 and its BLAKE2sp (-htb)
// Entry.Hash. With rar -p (data encrypted, headers not), RAR5 stores
// either turned into a MAC with a key derived from the password; the
// entry is as verifiable as a plain one, with HashKind "CRC32-MAC" or
// "BLAKE2sp-MAC" and the stored MAC in Hash. RAR 4.x stores a plain CRC.
package rar

import (
	"bytes"
	"io"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/pool"
)

var (
	sig5 = []byte("Rar!\x1a\x07\x01\x00") // RAR 5.0 marker
	sig4 = []byte("Rar!\x1a\x07\x00")     // RAR 1.5–4.x marker block
)

// maxSFX bounds how far into a file the marker is searched for: SFX
// modules are a few hundred KiB; unrar searches the first 4 MiB
// (MAXSFXSIZE), and so does sniff, which runs on every input.
const maxSFX = 4 << 20

// Format registers RAR with the root package.
var Format = arc.Format{
	Name:       "rar",
	Extensions: []string{".rar", ".part1.rar", ".r00", ".exe"},
	Magic:      [][]byte{sig5, sig4},
	Sniff:      sniff,
	Open:       open,
	NewReader:  newReader,
	OpenIndex:  openIndex,
}

func sniff(ra io.ReaderAt, size int64) bool {
	if size < 0 {
		return false
	}
	_, _, err := findMarker(ra, size)
	return err == nil
}

// findMarker returns the offset of the first RAR marker within maxSFX
// bytes and the container version (5 or 4).
func findMarker(ra io.ReaderAt, size int64) (int64, int, error) {
	// Most archives start with the marker: check that before scanning.
	var head [8]byte
	if n, _ := ra.ReadAt(head[:min(8, size)], 0); n >= 7 {
		if bytes.Equal(head[:7], sig4) {
			return 0, 4, nil
		}
		if n == 8 && bytes.Equal(head[:8], sig5) {
			return 0, 5, nil
		}
	}
	const chunk = 64 << 10
	bp := pool.Get(chunk + 8)
	defer pool.Put(bp)
	buf := *bp
	limit := min(size, maxSFX)
	for off := int64(0); off < limit; off += chunk {
		n, err := ra.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n == 0 && err != nil {
			break
		}
		b := buf[:n]
		for i := 0; i < len(b) && off+int64(i) < limit; {
			j := bytes.Index(b[i:], sig4[:6])
			if j < 0 {
				break
			}
			j += i
			if j+7 <= len(b) && b[j+6] == 0 {
				return off + int64(j), 4, nil
			}
			if j+8 <= len(b) && b[j+6] == 1 && b[j+7] == 0 {
				return off + int64(j), 5, nil
			}
			i = j + 1
		}
	}
	return 0, 0, errFormat
}

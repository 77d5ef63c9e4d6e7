// Package rar reads RAR archives, from RAR 1.5 to RAR 7: the RAR 5.0
// container (rar 5 and later) and the RAR 1.5–4.x container, in one
// package because both share the volume logic, the entry model and the
// data chain
//
//	volumes -> decryptor -> decoder family -> checksum
//
// The container is chosen by the marker block: "Rar!\x1a\x07\x01\x00" for
// RAR 5.0 and "Rar!\x1a\x07\x00" for 1.5–4.x (technote "RAR 5.0 archive
// format", section "General archive structure"). An archive may be
// prefixed by an SFX module; the marker is searched for in the first
// 4 MiB, as unrar does. It is usually used through the root package
// (unarc.Open detects the format); used on its own, the password, limits
// and volumes come as arc options.
//
// # What is read
//
// Every compression algorithm rar has written: RAR 5.0 (algorithm 50) and
// RAR 7's larger dictionaries (70); RAR 2.9 for RAR 3.x and 4.x (LZ, the
// standard VM filters, PPMd); RAR 2.0 (20, 26: LZ and audio); RAR 1.5
// (13 to 15, which unrar decodes with its 1.5 decoder too). Stored
// entries, solid archives, directories, symlinks and junctions (reading
// one gives its target), hard links and file copies (rar
// -oi: they read as their source's content), older file versions (rar
// -ver, listed with arc.WithFileVersions), archive comments (stored and
// packed) and the locked flag.
//
// Archive gives random access (Open over an io.ReaderAt): any entry, in
// any order, from several goroutines. Solid entries are decoded by a few
// decoders the Archive keeps (see "Solid archives" on Archive): reading
// in order decodes the solid stream once, and entries of different solid
// runs decode at the same time. A RAR5 entry's decoder may also use
// several goroutines (the root's WithWorkers) when Limits.MaxMemory allows.
// Reader reads forward-only from an io.Reader (NewReader): a pipe or
// standard input; a solid stream is decoded as it goes.
//
// Seeking (through the root's OpenSeekable): a stored entry is read from
// any offset directly, AES-encrypted or not; a compressed one (any
// family, solid or not, AES or the RAR 1.5/2.0 ciphers) resumes from the
// nearest decoder checkpoint the Archive took while an earlier seeking
// reader decoded it (the root's WithCheckpoints), else decodes from the
// start of its entry or solid run. Checkpoints and the whole listing can
// be kept in an index (the root's Archive.Index and WithIndex), so a
// later open parses no header (it checks their digests).
//
// # Encryption
//
// RAR5 AES-256 (PBKDF2-HMAC-SHA256, with its password check value), RAR
// 3.x/4.x AES-128, the RAR 2.0 block cipher and the RAR 1.5 and 1.3
// stream ciphers; encrypted headers (rar -hp) in RAR5 and RAR 3.x/4.x.
// A wrong password is the root's ErrPassword, never data: where the
// format has no check value (RAR 1.3 to 4.x data), a checksum or decoder
// failure of an encrypted entry is reported as ErrPassword. Each distinct
// key derivation is charged to Limits.MaxKDFRounds.
//
// Checksums: an entry's CRC-32 is Entry.CRC32 and its BLAKE2sp (-htb)
// Entry.Hash, checked when its content has been read to the end. With rar
// -p (data encrypted, headers not), RAR5 stores either turned into a MAC
// with a key derived from the password; the entry is as verifiable as a
// plain one, with HashKind "CRC32-MAC" or "BLAKE2sp-MAC" and the stored
// MAC in Hash. RAR 4.x stores a plain CRC.
//
// # Volumes
//
// Multi-volume sets in every naming rar used (".partN.rar", and ".rar",
// ".r00", ".r01" …, also ".s00" after ".r99"), found beside the first
// through arc.WithVolumeOpener; given a later volume, Open starts from the
// first. A missing later volume does not fail Open: the entries before it
// read, the one that continues into it fails with ErrTruncated, and
// Warnings names it. Byte-split copies ("x.rar.001", ".002" …) are joined.
//
// # Not supported
//
// Writing; repairing with a recovery record (rar -rr: reported by
// Warnings as ErrRecoveryRecord, not used); the RAR 1.4 and older
// container (marker "RE~^"); algorithm 36 (a RAR 3.6 alpha's, refused as
// unrar 5 refuses it); NTFS alternate streams, ACLs and the RAR5 quick-open
// record (skipped); a file copy read forward-only by a Reader
// (ErrUnsupported: copy the extracted source).
//
// # Security
//
// Header sizes are bounded (RAR5: 2 MiB, RAR4: 64 KiB by the format),
// nothing is allocated from an untrusted count, the index an Archive
// keeps is bounded by Limits.MaxEntries and MaxHeaderMemory, entry sizes
// by MaxEntrySize, and dictionary sizes are checked against
// Limits.MaxDictionary before a decoder is built; a window is never
// larger than the data it will hold.
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

// sniff reports whether a RAR marker (RAR 1.5 to 7) is in the first 4 MiB
// of ra, after an SFX module or not.
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

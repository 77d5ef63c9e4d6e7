// Package zip reads ZIP archives (PKWARE APPNOTE 6.3.10): random access
// through the central directory (Open, Archive) and forward-only reading
// of a stream through the local headers (NewReader, Reader).
//
// Methods: Store, Deflate, Deflate64, LZMA, BZip2, Zstandard, PPMd
// (var.I rev.1, both restoration methods), XZ (method 95, through
// package xz: concatenated streams and padding, as 7-Zip reads them) and
// the legacy PKZIP methods Shrink, Reduce (1 to 4) and Implode. Zip64
// sizes, offsets and entry counts; data descriptors with or without
// signature; prepended data (SFX stubs) with or without adjusted
// offsets; UTF-8 names, the Info-ZIP Unicode path field, and CP437 (or
// Config.DecodeName) for names without the UTF-8 flag; DOS,
// extended-timestamp and NTFS times; Unix modes and symlinks; archive and
// entry comments. Encrypted entries (ZipCrypto, WinZip AES AE-1/AE-2
// with 128-, 192- and 256-bit keys, PKWARE strong encryption with AES and
// a password) are decrypted with the password, per entry. Other methods
// and ciphers are listed, and opening them fails with an error matching
// unarc.ErrUnsupported (or unarc.ErrPasswordRequired without a
// password). Overlapping entry data is refused as corrupt.
//
// The root's OpenSeekable reads a ZIP entry from an offset: a stored
// entry (plain or WinZip AES) directly, a compressed one from the nearest
// checkpoint its decoder took on an earlier pass (every method above but
// Store, plain, WinZip AES or ZipCrypto). The root's Archive.Index and
// WithIndex save and reopen the listing without reading the central directory again (its bytes are
// digested and checked). Each entry's decoder is bounded by
// Limits.MaxMemory and MaxDictionary before it allocates.
//
// Consistency: an entry whose local header disagrees with the central
// directory in method, name, or (without a data descriptor) CRC-32 or
// sizes, and a Zip64 extra field that repeats the sizes with other
// values, are refused as corrupt by both APIs (the Reader's Directory
// compares the central directory with the local headers it went by).
// Where only the end records' bookkeeping is off and every entry can be
// read exactly (a wrong directory offset, size or entry count, data
// before, inside or after the archive, a damaged or missing end record,
// a missing or misplaced Zip64 record, a cut comment) the archive opens
// and Warnings says what was recovered from, as 7zz lists and tests such
// archives with a "Headers Error". A '\' in a name is a separator for
// MS-DOS and Windows hosts and a literal byte for Unix ones. A name ends
// at its first NUL byte, as 7-Zip and Python's zipfile read it (the
// bytes after it are kept for comparing local and central names only).
// A name that is empty then (it starts with NUL, or is stored empty) is
// the archive's file name without its extension, as 7-Zip names it:
// "data.zip" gives "data", and with no archive name "[Content]".
// A Zip64 locator is one only where the layout holds: 20 bytes before
// the end record, outside the central directory the 32-bit record
// describes, pointing at a Zip64 end record; the signature's bytes in the
// last entry's name are part of that name.
//
// The package can be used on its own with an *arc.Config (package
// github.com/go-unarc/unarc/arc); most programs use the root package,
// which detects the format and adds extraction and the fs.FS view.
package zip

// Record signatures (APPNOTE 4.3.7, 4.3.9, 4.3.12, 4.3.14, 4.3.15, 4.3.16).
const (
	sigLocal       = 0x04034b50 // "PK\x03\x04" local file header
	sigCentral     = 0x02014b50 // "PK\x01\x02" central directory file header
	sigEnd         = 0x06054b50 // "PK\x05\x06" end of central directory record
	sigEnd64       = 0x06064b50 // "PK\x06\x06" Zip64 end of central directory record
	sigEnd64Loc    = 0x07064b50 // "PK\x06\x07" Zip64 end of central directory locator
	sigDescriptor  = 0x08074b50 // "PK\x07\x08" data descriptor (optional signature)
	sigSpannedMark = 0x30304b50 // "PK00": single-segment archive that was meant to be spanned
)

// Fixed record lengths, signature included.
const (
	localLen    = 30 // APPNOTE 4.3.7
	centralLen  = 46 // APPNOTE 4.3.12
	endLen      = 22 // APPNOTE 4.3.16
	end64LocLen = 20 // APPNOTE 4.3.15
	end64Len    = 56 // APPNOTE 4.3.14 (fixed part)
)

// Local file header (APPNOTE 4.3.7), offsets from the signature:
//
//	 0 signature          4
//	 4 version needed     2
//	 6 flags              2
//	 8 method             2
//	10 mod time, date     2+2 (MS-DOS)
//	14 crc-32             4
//	18 compressed size    4
//	22 uncompressed size  4
//	26 name length        2
//	28 extra length       2
//
// Central directory header (APPNOTE 4.3.12):
//
//	 0 signature          4
//	 4 version made by    2 (high byte: host system)
//	 6 version needed     2
//	 8 flags              2
//	10 method             2
//	12 mod time, date     2+2
//	16 crc-32             4
//	20 compressed size    4
//	24 uncompressed size  4
//	28 name length        2
//	30 extra length       2
//	32 comment length     2
//	34 disk number start  2
//	36 internal attrs     2
//	38 external attrs     4
//	42 local header off.  4

// General purpose flag bits (APPNOTE 4.4.4).
const (
	flagEncrypted  = 1 << 0
	flagLZMAEOS    = 1 << 1  // method 14: the stream ends with an end marker
	flagDescriptor = 1 << 3  // CRC and sizes follow the data
	flagStrong     = 1 << 6  // PKWARE strong encryption
	flagUTF8       = 1 << 11 // name and comment are UTF-8
	flagMasked     = 1 << 13 // central directory encrypted (local header values masked)
)

// methodAES is WinZip AES (APPNOTE 4.4.5's method 99): the real method
// is in extra 0x9901. The compression methods are rows of the method
// table (methods.go), each in its method_<name>.go.
const methodAES = 99

// Extra field header IDs (APPNOTE 4.5, 4.6).
const (
	extraZip64       = 0x0001
	extraNTFS        = 0x000a
	extraExtTime     = 0x5455 // "UT" extended timestamp
	extraUnicodePath = 0x7075 // "up" Info-ZIP Unicode path
	extraAES         = 0x9901 // WinZip AES
)

// Host systems in the "version made by" high byte (APPNOTE 4.4.2).
const (
	hostDOS         = 0
	hostUnix        = 3
	hostHPFS        = 6
	hostNTFS        = 10
	hostNTFSInfoZIP = 11 // Info-ZIP's and 7-Zip's number for NTFS (APPNOTE: MVS)
	hostVFAT        = 14
	hostOSX         = 19
)

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// zip64Disagrees reports whether the Zip64 extra field b of a header
// whose 32-bit sizes are not saturated repeats them with other values.
// APPNOTE 4.5.3 puts a value in the field only when its header field is
// 0xFFFFFFFF, but writers that always write the field are common, and
// are harmless while both say the same; when they differ, a reader
// taking the header and one taking the extra field see different data.
// A local header with a data descriptor has no sizes to disagree with.
func zip64Disagrees(h *header, b []byte) bool {
	if len(b) < 16 || h.usize == 0xffffffff || h.csize == 0xffffffff || (!h.central && h.flags&flagDescriptor != 0) {
		return false
	}
	return le.Uint64(b) != uint64(h.usize) || le.Uint64(b[8:]) != uint64(h.csize)
}

package zip

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// cp437High maps the bytes 0x80..0xFF of IBM code page 437 to Unicode
// (APPNOTE appendix D: names and comments without the UTF-8 flag are in
// CP437); the lower half is ASCII.
var cp437High = [128]rune([]rune(
	"ÇüéâäàåçêëèïîìÄÅ" + // 0x80
		"ÉæÆôöòûùÿÖÜ¢£¥₧ƒ" + // 0x90
		"áíóúñÑªº¿⌐¬½¼¡«»" + // 0xA0
		"░▒▓│┤╡╢╖╕╣║╗╝╜╛┐" + // 0xB0
		"└┴┬├─┼╞╟╚╔╩╦╠═╬╧" + // 0xC0
		"╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" + // 0xD0
		"αßΓπΣσµτΦΘΩδ∞φε∩" + // 0xE0
		"≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0")) // 0xF0

// decodeCP437 decodes b as code page 437.
func decodeCP437(b []byte) string {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		} else {
			n += utf8.RuneLen(cp437High[c-0x80])
		}
	}
	out := make([]byte, 0, n)
	for _, c := range b {
		if c < 0x80 {
			out = append(out, c)
		} else {
			out = utf8.AppendRune(out, cp437High[c-0x80])
		}
	}
	return string(out)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// legacyText decodes a name or comment stored without the UTF-8 flag.
// ASCII is the same in every code page. A caller's decoder (Config.
// DecodeName: Shift-JIS, GBK …) gets every other name as raw bytes.
// Without one, text that is valid UTF-8 is kept as UTF-8 — many Unix and
// macOS tools write UTF-8 without setting the flag, and CP437 text with
// bytes above 0x7F is almost never valid UTF-8 — and the rest is CP437.
func legacyText(b []byte, decode func([]byte) string) string {
	switch {
	case isASCII(b):
		return string(b)
	case decode != nil:
		return decode(b)
	case utf8.Valid(b):
		return string(b)
	}
	return decodeCP437(b)
}

// cutNUL returns name up to its first NUL byte. A name is a C string to
// the tools that wrote and read ZIP first: 7-Zip and Python's zipfile
// end it there, and so do we (what follows is no part of any path; the
// whole raw name still matches the local header's).
func cutNUL(name []byte) []byte {
	if i := bytes.IndexByte(name, 0); i >= 0 {
		return name[:i]
	}
	return name
}

// entryText decodes a name or comment by the header's UTF-8 flag.
func entryText(b []byte, flags uint16, decode func([]byte) string) string {
	if flags&flagUTF8 != 0 {
		return string(b)
	}
	return legacyText(b, decode)
}

// backslashSeparates decides what a '\' in a stored name is, as Info-ZIP
// unzip does: the path separator for hosts whose file systems use it
// (MS-DOS FAT, OS/2 HPFS, Windows NTFS and VFAT — tools there wrote '\'
// where APPNOTE 4.4.17 says '/'), a literal byte of the name for every
// other host (Unix allows it in file names). The host is the high byte
// of "version made by" (APPNOTE 4.4.2); NTFS is 10 in APPNOTE and 11 in
// Info-ZIP and 7-Zip, and both are taken.
//
// A local header has no host byte, so a stream cannot know. It reads '\'
// as a separator (the common case: Windows tools) unless the header
// carries an extra field only Unix writers add (Info-ZIP's and bsdtar's
// "ux"/"Ux"/"UX", the ASi Unix field): then it is literal, as the
// directory will say. An entry made on Unix without such a field (7-Zip
// writes none) is named with '/' by the stream and with '\' by the
// Archive; the root refuses a name that leaves the destination under
// either reading, so the difference is one of naming, never of safety.
//
// A name that already holds a '/' was written with APPNOTE's separator:
// a '\' in it is a byte of the name (in Shift-JIS and other double-byte
// code pages 0x5C is the second byte of many characters; 7-Zip keeps
// these), whatever the host.
func backslashSeparates(h *header, name string, extra []byte) bool {
	if strings.IndexByte(name, '/') >= 0 {
		return false
	}
	if h.central {
		switch h.madeBy >> 8 {
		case hostDOS, hostHPFS, hostNTFS, hostNTFSInfoZIP, hostVFAT:
			return true
		}
		return false
	}
	for len(extra) >= 4 {
		id, n := le.Uint16(extra), int(le.Uint16(extra[2:]))
		if 4+n > len(extra) {
			break
		}
		switch id {
		case 0x7875, 0x7855, 0x5855, extraASi:
			return false
		}
		extra = extra[4+n:]
	}
	return true
}

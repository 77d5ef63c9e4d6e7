package zip

import "unicode/utf8"

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

// entryText decodes a name or comment by the header's UTF-8 flag.
func entryText(b []byte, flags uint16, decode func([]byte) string) string {
	if flags&flagUTF8 != 0 {
		return string(b)
	}
	return legacyText(b, decode)
}

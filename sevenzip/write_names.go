package sevenzip

import (
	"strings"
	"unicode/utf8"

	"github.com/go-unarc/unarc/internal/archwrite"
	"github.com/go-unarc/unarc/internal/errs"
)

// ErrInvalidName is matched (errors.Is) by the error of CreateHeader,
// Create and AddTree for an entry name the Writer refuses: absolute,
// with a drive letter, a "..", "." or empty element, a NUL, or the name
// of an entry already in the archive. WithCleanNames cleans the first
// kinds instead. It is unarc.ErrInvalidName.
var ErrInvalidName = errs.ErrInvalidName

func invalidName(name, why string) error {
	return archwrite.InvalidName("7z writer", name, why)
}

// escapeName returns s with every byte that is not part of valid UTF-8
// replaced by U+EF00 plus the byte (U+EF80..U+EFFF), as 7-Zip on Unix
// stores such names and maps them back to the bytes on extraction.
func escapeName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = 0xEF00 | rune(s[i])
		}
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// entryName returns the name an entry named raw is stored under, after
// the trailing slash (a directory) and leading "./" are cut and bytes
// that are not UTF-8 escaped, or an error matching ErrInvalidName.
// A name already in the archive is refused too (CreateHeader records
// each name it writes).
func (w *Writer) entryName(raw string) (name string, dir bool, err error) {
	name, dir = archwrite.SplitName(raw)
	name = escapeName(name)
	if w.cfg.CleanNames {
		name = archwrite.CleanName(name)
	}
	if why := archwrite.CheckName(name); why != "" {
		return "", false, invalidName(raw, why)
	}
	if w.st.names == nil {
		w.st.names = make(map[string]struct{})
	}
	if _, dup := w.st.names[name]; dup {
		return "", false, invalidName(raw, "already in the archive")
	}
	return name, dir, nil
}

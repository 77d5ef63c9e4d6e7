// Package archwrite holds what the archive writers (sevenzip, zip) share:
// the entry-name checks of CreateHeader and WithCleanNames, Unix modes
// and Windows FILETIMEs, and the file-tree walk behind AddFS and
// AddTree. The format packages keep their own headers and options.
package archwrite

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
)

// InvalidName is the error for an entry name a writer refuses; prefix
// names the writer ("7z writer").
func InvalidName(prefix, name, why string) error {
	return fmt.Errorf("%s: %w %q: %s", prefix, errs.ErrInvalidName, name, why)
}

// CleanName is what WithCleanNames makes of a name: no drive letter, no
// leading slash, no empty or "." elements, and ".." resolved (one at the
// start dropped), as path.Clean on the name made absolute.
func CleanName(name string) string {
	if HasDrive(name) {
		name = name[2:]
	}
	return strings.TrimPrefix(path.Clean("/"+name), "/")
}

// HasDrive reports a Windows drive prefix ("C:").
func HasDrive(name string) bool {
	return len(name) >= 2 && name[1] == ':' &&
		('a' <= name[0]|0x20 && name[0]|0x20 <= 'z')
}

// CheckName returns why name (slash-separated, no trailing slash) cannot
// be an entry's name, or "".
func CheckName(name string) string {
	switch {
	case name == "":
		return "empty"
	case strings.IndexByte(name, 0) >= 0:
		return "holds a NUL"
	case name[0] == '/':
		return "absolute"
	case HasDrive(name):
		return "has a drive letter"
	}
	for elem := range strings.SplitSeq(name, "/") {
		switch elem {
		case "":
			return "has an empty element"
		case ".":
			return `has a "." element`
		case "..":
			return `has a ".." element`
		}
	}
	return ""
}

// SplitName cuts the trailing slashes (a directory) and leading "./"
// off a name given to CreateHeader.
func SplitName(raw string) (name string, dir bool) {
	name = raw
	if strings.HasSuffix(name, "/") {
		dir = true
		name = strings.TrimRight(name, "/")
	}
	for strings.HasPrefix(name, "./") {
		name = name[2:]
	}
	return name, dir
}

// SpecialTypes are the file types stored with their Unix type and no
// data, as 7-Zip stores them.
const SpecialTypes = fs.ModeNamedPipe | fs.ModeSocket | fs.ModeDevice | fs.ModeCharDevice

// UnixMode converts an fs.FileMode to st_mode.
func UnixMode(m fs.FileMode) uint32 {
	st := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		st |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		st |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		st |= 0o1000
	}
	switch {
	case m&fs.ModeDir != 0:
		st |= 0o040000
	case m&fs.ModeSymlink != 0:
		st |= 0o120000
	case m&fs.ModeNamedPipe != 0:
		st |= 0o010000
	case m&fs.ModeSocket != 0:
		st |= 0o140000
	case m&fs.ModeCharDevice != 0:
		st |= 0o020000
	case m&fs.ModeDevice != 0:
		st |= 0o060000
	default:
		st |= 0o100000
	}
	return st
}

// Filetime is t as a Windows FILETIME: 100 ns intervals since
// 1601-01-01 UTC (t must not be before then).
func Filetime(t time.Time) uint64 {
	const epochDiff = 116444736000000000
	return uint64(t.Unix())*1e7 + uint64(t.Nanosecond()/100) + epochDiff
}

// Package meta holds the format-neutral conversions of entry metadata
// that the ZIP, RAR and 7z readers share: Windows FILETIME and MS-DOS
// timestamps to time.Time, Unix st_mode and Windows attributes to
// fs.FileMode, and the bound on a symlink target kept in memory.
//
// Every conversion here is total: any input gives a defined result and
// none allocates. ReadLinkTarget, the one reader, allocates the target.
package meta

import (
	"io"
	"io/fs"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
)

// MaxLinkTarget bounds a symlink target read from entry data or a
// header: a longer "target" is not a link a file system would accept
// (PATH_MAX is 4 KiB on Linux), and the bound keeps it from costing
// memory.
const MaxLinkTarget = 64 << 10

// ReadLinkTarget reads a symlink target stored as entry data, reading at
// most one byte more than MaxLinkTarget: a longer one is errs.ErrLimit.
func ReadLinkTarget(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxLinkTarget+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxLinkTarget {
		return "", errs.Limit("symlink target longer than %d bytes", MaxLinkTarget)
	}
	return string(b), nil
}

// filetimeEpoch is 1601-01-01 to 1970-01-01 in seconds.
const filetimeEpoch = 11644473600

// Filetime converts a Windows FILETIME (100 ns ticks since 1601-01-01
// UTC) to a UTC time.Time.
//
// Overflow rule: 0 means "not recorded" and gives the zero Time. Every
// other value is converted exactly: the largest, 2^64-1 ticks, falls in
// the year 60056, well inside time.Time, so no value is clamped or
// wraps (the conversion works in seconds, never in int64 ticks from
// 1970, which would overflow above 2^63).
func Filetime(ft uint64) time.Time {
	if ft == 0 {
		return time.Time{}
	}
	return time.Unix(int64(ft/1e7)-filetimeEpoch, int64(ft%1e7)*100).UTC()
}

// DOSTime converts an MS-DOS date and time (APPNOTE 4.4.6; RAR 1.5–4
// stores the same pair as one 32-bit value, date in the high half). The
// zone is not recorded; like archive/zip and unrar's listing it is read
// as UTC.
//
// Rules: date and time both 0 mean "not recorded" and give the zero
// Time. The year field counts from 1980, so a valid field never gives an
// earlier year. Out-of-range fields (month 0 or 13–15, day 0 or beyond
// the month, hour 24–31, minute 60–63, second 60–62) are normalised the
// way time.Date does, as archive/zip does: month 0 of 1980 is December
// 1979, the only way a result precedes 1980.
func DOSTime(date, tm uint16) time.Time {
	if date == 0 && tm == 0 {
		return time.Time{}
	}
	return time.Date(int(date>>9)+1980, time.Month(date>>5&0xf), int(date&0x1f),
		int(tm>>11), int(tm>>5&0x3f), int(tm&0x1f)*2, 0, time.UTC)
}

// DOSTime32 is DOSTime for the 32-bit form (date<<16 | time).
func DOSTime32(t uint32) time.Time {
	return DOSTime(uint16(t>>16), uint16(t))
}

// Unix st_mode bits (POSIX <sys/stat.h>; the values are the same on every
// system archivers record).
const (
	sIFMT   = 0o170000
	sIFSOCK = 0o140000
	sIFLNK  = 0o120000
	sIFREG  = 0o100000
	sIFBLK  = 0o060000
	sIFDIR  = 0o040000
	sIFCHR  = 0o020000
	sIFIFO  = 0o010000
	sISUID  = 0o4000
	sISGID  = 0o2000
	sISVTX  = 0o1000
)

// UnixMode converts a Unix st_mode to an fs.FileMode: the permission
// bits, setuid/setgid/sticky as fs.ModeSetuid/ModeSetgid/ModeSticky
// (so an extractor can strip them), and the file type: directory,
// symlink, named pipe, socket, character device (fs.ModeDevice|
// fs.ModeCharDevice) and block device (fs.ModeDevice). A regular file,
// a type of 0 (some archivers record only the permissions) and an
// unknown type give no type bits.
func UnixMode(st uint32) fs.FileMode {
	m := fs.FileMode(st & 0o777)
	if st&sISUID != 0 {
		m |= fs.ModeSetuid
	}
	if st&sISGID != 0 {
		m |= fs.ModeSetgid
	}
	if st&sISVTX != 0 {
		m |= fs.ModeSticky
	}
	switch st & sIFMT {
	case sIFDIR:
		m |= fs.ModeDir
	case sIFLNK:
		m |= fs.ModeSymlink
	case sIFIFO:
		m |= fs.ModeNamedPipe
	case sIFSOCK:
		m |= fs.ModeSocket
	case sIFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case sIFBLK:
		m |= fs.ModeDevice
	}
	return m
}

// UnixEntryMode is UnixMode cut to what arc.Entry.Mode carries: of the
// types only fs.ModeDir and fs.ModeSymlink stay; pipes, sockets and
// devices come out as regular files holding the stored data, as 7-Zip
// and unrar extract them.
func UnixEntryMode(st uint32) fs.FileMode {
	m := UnixMode(st)
	return m &^ (fs.ModeType &^ (fs.ModeDir | fs.ModeSymlink))
}

// Windows file attribute bits (FILE_ATTRIBUTE_READONLY, _DIRECTORY).
const (
	WinReadOnly  = 0x01
	WinDirectory = 0x10
)

// WinMode converts Windows (MS-DOS) file attributes to an fs.FileMode,
// as 7-Zip and unrar do on Unix: 0o644 for a file, fs.ModeDir|0o755 for
// FILE_ATTRIBUTE_DIRECTORY, with the write bits cleared for
// FILE_ATTRIBUTE_READONLY. Other attributes (hidden, system, archive,
// reparse point…) do not change the mode.
func WinMode(attr uint32) fs.FileMode {
	var m fs.FileMode = 0o644
	if attr&WinDirectory != 0 {
		m = fs.ModeDir | 0o755
	}
	if attr&WinReadOnly != 0 {
		m &^= 0o222
	}
	return m
}

// Package errs holds the sentinel errors shared by every format and codec
// package. The root package re-exports them, so callers match with
// errors.Is(err, unarc.ErrChecksum) without the format packages importing
// the root (which would be a cycle). Their texts carry no "unarc: "
// prefix: whoever shows an error names its source once (the root prefixes
// archive-level errors, EntryError the entry, the CLI the archive).
package errs

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

var (
	// ErrFormat: the input is not an archive of any supported format.
	ErrFormat = errors.New("not an archive")
	// ErrCorrupt: the archive structure or compressed data is invalid.
	ErrCorrupt = errors.New("corrupt data")
	// ErrTruncated: the input ends before the archive or stream does.
	// Errors built with Truncated also match io.ErrUnexpectedEOF.
	ErrTruncated = errors.New("truncated input")
	// ErrChecksum: decoded data does not match its stored checksum or size.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrPasswordRequired: the entry or header is encrypted and no password was given.
	ErrPasswordRequired = errors.New("password required")
	// ErrPassword: the password given is wrong.
	ErrPassword = errors.New("wrong password")
	// ErrUnsupported: a compression method, filter, encryption or format
	// version this library does not implement.
	ErrUnsupported = errors.New("unsupported method or version")
	// ErrInsecurePath: an entry name or link target would escape the
	// extraction directory.
	ErrInsecurePath = errors.New("insecure path")
	// ErrLimit: a configured limit (memory, dictionary, entry size, ratio)
	// would be exceeded.
	ErrLimit = errors.New("limit exceeded")
	// ErrInvalidOption: the caller passed an option value that cannot be
	// meant (a nil callback, a NaN ratio). Not an archive error.
	ErrInvalidOption = errors.New("invalid option")
	// ErrInvalidName: a name given to a writer cannot be stored as an
	// entry name: absolute, with a drive letter, a "..", "." or empty
	// element, a NUL, or the name of an entry already written. Like
	// ErrInvalidOption it concerns the caller's input, not an archive.
	ErrInvalidName = errors.New("invalid entry name")
)

// truncatedError matches both ErrTruncated and io.ErrUnexpectedEOF.
type truncatedError struct{ msg string }

func (e *truncatedError) Error() string { return "truncated input: " + e.msg }
func (e *truncatedError) Is(target error) bool {
	return target == ErrTruncated || target == io.ErrUnexpectedEOF
}

// Truncated returns an error for input that ended early; what says where.
func Truncated(what string) error { return &truncatedError{msg: what} }

// Corrupt wraps ErrCorrupt with a formatted detail.
func Corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Unsupported wraps ErrUnsupported with a formatted detail (name the method).
func Unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// LimitError is a crossed limit: it matches ErrLimit, and Field names
// the arc.Limits field that set it ("MaxRatio"), so a front end can say
// how to lift it. Field is "" when the detail names no Limits field.
type LimitError struct {
	Field  string
	detail string
}

func (e *LimitError) Error() string        { return ErrLimit.Error() + ": " + e.detail }
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// limitFields are the arc.Limits fields a limit error may name (matched
// as whole words, so MaxMemory is not found in MaxHeaderMemory).
var limitFields = [...]string{
	"MaxDictionary", "MaxMemory", "MaxHeaderMemory", "MaxEntries", "MaxEntrySize",
	"MaxTotalSize", "MaxRatio", "RatioFloor", "MaxNameLength", "MaxPathDepth", "MaxKDFRounds",
}

// Limit returns a *LimitError with a formatted detail. The detail names
// the Limits field that was crossed ("passes MaxRatio (1000)"), and
// Field is the first one it names: every limit error says which limit it
// is anyway, and the callers in the format packages need no second
// argument to keep in step with the text.
func Limit(format string, args ...any) error {
	d := fmt.Sprintf(format, args...)
	return &LimitError{Field: fieldIn(d), detail: d}
}

// LimitOf returns a *LimitError for the Limits field named by field,
// whatever the detail says.
func LimitOf(field, format string, args ...any) error {
	return &LimitError{Field: field, detail: fmt.Sprintf(format, args...)}
}

// fieldIn returns the first Limits field named as a whole word in s.
func fieldIn(s string) string {
	best, at := "", len(s)
	for _, f := range limitFields {
		for off := 0; ; {
			i := strings.Index(s[off:], f)
			if i < 0 {
				break
			}
			i += off
			end := i + len(f)
			if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
				if i < at {
					best, at = f, i
				}
				break
			}
			off = end
		}
	}
	return best
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// EOF maps an io.EOF or io.ErrUnexpectedEOF met in the middle of a
// structure to a truncation error; other errors pass through.
func EOF(err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return Truncated(what)
	}
	return err
}

// incompleteError marks an archive-level warning that says the archive
// is not whole (cut inside a header after the entries it lists).
type incompleteError struct{ error }

func (e *incompleteError) Unwrap() error { return e.error }

// Incomplete marks err, a warning of a format Archive (engine.Warner), as
// one that makes the archive incomplete: its entries are listed and read,
// but the root's Extract and Verify return err once they are done, so a
// cut archive does not pass as whole. Warnings of what an archive may
// legitimately lack (a missing end-of-archive record) are not marked.
// A format Reader marks the same cut when its Next meets it after an
// entry whose data was whole, so the root reports it as the archive's,
// not as that entry's.
func Incomplete(err error) error { return &incompleteError{err} }

// IsIncomplete reports whether err was marked by Incomplete.
func IsIncomplete(err error) bool {
	var ie *incompleteError
	return errors.As(err, &ie)
}

// noEndError marks the warning of an archive whose volume ends at a
// block boundary without the end-of-archive record a writer may leave
// out (rar -en): it still matches ErrTruncated, since a file cut at that
// boundary looks the same, but the command line exits 0 on it, as unrar
// does, printing the warning.
type noEndError struct{ error }

func (e *noEndError) Unwrap() error { return e.error }

// Is makes a NoEnd warning match ErrNoEnd, besides what it wraps.
func (e *noEndError) Is(target error) bool { return target == ErrNoEnd }

// ErrNoEnd is matched by a warning marked by NoEnd.
var ErrNoEnd = errors.New("end-of-archive record missing")

// NoEnd marks err as the warning of a missing end-of-archive record.
func NoEnd(err error) error { return &noEndError{err} }

// IsNoEnd reports whether err was marked by NoEnd.
func IsNoEnd(err error) bool {
	var ne *noEndError
	return errors.As(err, &ne)
}

// noticeError marks a warning that cannot change what is extracted: a
// redundant record that disagrees with the one the reader used (every
// reader uses the same), bytes the archive's offsets do not count. It
// still matches what it wraps (ErrCorrupt, ErrTruncated); the command
// line prints it and exits 0, as 7zz does.
type noticeError struct{ error }

func (e *noticeError) Unwrap() error { return e.error }

// Is makes a Notice warning match ErrNotice, besides what it wraps.
func (e *noticeError) Is(target error) bool { return target == ErrNotice }

// ErrNotice is matched by a warning marked by Notice.
var ErrNotice = errors.New("notice")

// Notice marks the warning err as one that cannot change what is
// extracted (see noticeError).
func Notice(err error) error { return &noticeError{err} }

package unarc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-unarc/unarc/internal/errs"
)

// Sentinel errors. Every error the library returns for bad input wraps
// exactly one of these; match with errors.Is.
var (
	ErrFormat           = errs.ErrFormat           // not an archive of a supported format
	ErrCorrupt          = errs.ErrCorrupt          // archive structure or compressed data invalid
	ErrTruncated        = errs.ErrTruncated        // input ends early (also matches io.ErrUnexpectedEOF)
	ErrChecksum         = errs.ErrChecksum         // data does not match its stored CRC / hash / size
	ErrPasswordRequired = errs.ErrPasswordRequired // encrypted, and no password given
	ErrPassword         = errs.ErrPassword         // the password is wrong
	ErrUnsupported      = errs.ErrUnsupported      // method, filter, encryption or version not implemented
	ErrInsecurePath     = errs.ErrInsecurePath     // entry path or link target escapes the destination
	ErrLimit            = errs.ErrLimit            // a configured limit would be exceeded
)

// ErrInvalidOption is matched by the error of a call given an option
// value that cannot be meant — Open, OpenFile, OpenFS or NewReader (a nil
// callback, a NaN or sub-1 MaxRatio), Extract (an unknown Overwrite
// policy), Verify (an unknown Digest), the format packages' and the
// writer's options. It concerns the caller's code, not the archive.
var ErrInvalidOption = errs.ErrInvalidOption

// ErrNoEnd is matched by a warning (Archive.Warnings, Reader.Warnings)
// that an archive ends without the end-of-archive record a writer may
// leave out (rar -en). The warning also matches ErrTruncated, since a
// file cut at that boundary looks the same; unrar accepts such an
// archive, and so the unarc command exits 0 on it, printing the warning.
var ErrNoEnd = errs.ErrNoEnd

// ErrNotice is matched by a warning (Archive.Warnings, Reader.Warnings)
// that cannot change what is extracted: a redundant record that
// disagrees with the one every reader uses (a ZIP's Zip64 end record
// against its 32-bit one, the end record's directory size or offset
// when the entries' own offsets are right), unknown bytes between
// records, a cut archive comment. The warning also matches the class
// it belongs to (ErrCorrupt, ErrTruncated); the unarc command prints it
// and exits 0, as 7zz does. A warning that does not match it may mean
// that readers differ on the data (docs/cli.md lists the classes).
var ErrNotice = errs.ErrNotice

// ErrInvalidName is matched by the error of a writer (sevenzip.Writer)
// given an entry name it refuses: absolute, with a drive letter, a "..",
// "." or empty element, or already written. Like ErrInvalidOption it
// concerns the caller's input, not an archive.
var ErrInvalidName = errs.ErrInvalidName

// LimitName returns the name of the Limits field whose limit err
// crossed ("MaxRatio", "MaxTotalSize", …), so a program can tell its
// user which setting lifts it; FreeSpace for Extract's free-space check;
// "" when err matches no ErrLimit or the limit is none of those. For an *ExtractError it is the
// first limit among the entries' errors.
func LimitName(err error) string {
	var le *errs.LimitError
	if errors.As(err, &le) {
		return le.Field
	}
	return ""
}

// EntryError is an error that concerns one entry of an archive. Every
// error about an entry — from OpenEntry, from reading the reader it
// returns (Read, WriteTo, Close), from Reader.Next/Read/WriteTo and from
// Extract — is an *EntryError, and its text names the entry once:
// "dir/a.txt: checksum mismatch: CRC32 …".
type EntryError struct {
	Entry string // entry name as stored
	Err   error
}

// Error is the entry's name and Err's text. Format packages and
// sentinels do not name the entry or carry a "unarc: " prefix, so
// e.Err.Error() is the message without the entry name.
func (e *EntryError) Error() string { return e.Entry + ": " + e.Err.Error() }

func (e *EntryError) Unwrap() error { return e.Err }

// ExtractError lists the entries that failed during Extract; the others
// were extracted. errors.Is matches any of the wrapped errors. It keeps
// the first 1000 of them and counts the rest in Omitted, so
// an archive of a million bad entries costs no million errors.
type ExtractError struct {
	Errors  []*EntryError
	Omitted int // failures past the first 1000, not listed
}

// maxExtractErrors is how many entry errors an ExtractError lists: a
// policy of this package, not a setting.
const maxExtractErrors = 1000

// Failed is the number of entries that failed.
func (e *ExtractError) Failed() int { return len(e.Errors) + e.Omitted }

func (e *ExtractError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries failed", e.Failed())
	for i, ee := range e.Errors {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", e.Failed()-5)
			break
		}
		b.WriteString("; ")
		b.WriteString(ee.Error())
	}
	return b.String()
}

// Unwrap returns the per-entry errors, so errors.Is and errors.As see them.
func (e *ExtractError) Unwrap() []error {
	out := make([]error, len(e.Errors))
	for i, ee := range e.Errors {
		out[i] = ee
	}
	return out
}

// sameFailure reports whether archive, an error that ended the whole
// archive, is entry's error again: a sticky error (a limit tripped, a
// stream cut) that failed an entry is what the next Next or read
// returns too. It must be that error (errors.Is) and say the same.
func sameFailure(entry, archive error) bool {
	return errors.Is(entry, archive) && strings.HasSuffix(entry.Error(), archive.Error())
}

// sameClass reports whether next, the error that ended the archive,
// blames last, the entry that failed last, again for the same kind of
// failure: a stream's Next after an entry cut short blames that entry
// with another text ("entry data runs past the end", then "data area").
func sameClass(last, next *EntryError) bool {
	if last.Entry != next.Entry {
		return false
	}
	for _, s := range sentinels {
		if errors.Is(last.Err, s) != errors.Is(next.Err, s) {
			return false
		}
	}
	return true
}

func entryErr(name string, err error) error {
	if err == nil {
		return nil
	}
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	return &EntryError{Entry: name, Err: err}
}

// archiveError presents an archive-level error (from Open or NewReader)
// with one "unarc: " prefix: the sentinels' own texts have none. When
// the archive has a name (OpenFile, OpenFS) the text names it once, as
// ExtractError's names each entry once: "unarc: a.rar: not an archive".
// errors.Is and errors.As see the wrapped error unchanged.
type archiveError struct {
	name string // file the error is about; "" for a reader without one
	err  error
}

func (e *archiveError) Error() string {
	s := strings.TrimPrefix(e.err.Error(), "unarc: ")
	if e.name == "" {
		return "unarc: " + s
	}
	return "unarc: " + e.name + ": " + s
}

func (e *archiveError) Unwrap() error { return e.err }

// archiveErr gives an error about the archive as a whole the "unarc: "
// prefix; an *EntryError, or an error the library did not make (an os
// error opening a file), passes through.
func archiveErr(err error) error {
	if err == nil {
		return nil
	}
	var ee *EntryError
	if errors.As(err, &ee) {
		return err
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return &archiveError{err: err}
		}
	}
	return err
}

// namedErr makes an error of OpenFile or OpenFS name the archive file
// (name) once. An error that already names a file (an os error opening
// it, or a volume's own error) keeps that name; every other error, an
// entry's included, is wrapped as an archiveError of name.
func namedErr(name string, err error) error {
	if err == nil || err == context.Canceled || err == context.DeadlineExceeded {
		return err // a cancelled open (WithContext) is ctx.Err() itself
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == name {
		return err
	}
	if ae, ok := err.(*archiveError); ok {
		if ae.name != "" {
			return err
		}
		return &archiveError{name: name, err: ae.err}
	}
	return &archiveError{name: name, err: err}
}

// sentinels are the bad-input classes every library error wraps one of.
var sentinels = []error{ErrFormat, ErrCorrupt, ErrTruncated, ErrChecksum, ErrPasswordRequired,
	ErrPassword, ErrUnsupported, ErrInsecurePath, ErrLimit}

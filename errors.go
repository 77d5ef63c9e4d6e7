package unarc

import (
	"errors"
	"fmt"
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

// EntryError is an error that concerns one entry of an archive.
type EntryError struct {
	Entry string // entry name as stored
	Err   error
}

func (e *EntryError) Error() string { return e.Entry + ": " + e.Message() }

// Message is the error text without the entry name: format packages often
// name the entry in their own message, and the "unarc: " prefix of the
// sentinel adds nothing after it.
func (e *EntryError) Message() string {
	msg := strings.TrimPrefix(e.Err.Error(), "unarc: ")
	msg = strings.TrimPrefix(msg, e.Entry+": ")
	msg = strings.TrimPrefix(msg, "unarc: ")
	return strings.Replace(msg, ": "+e.Entry+": ", ": ", 1)
}
func (e *EntryError) Unwrap() error { return e.Err }

// ExtractError lists every entry that failed during Extract; the others
// were extracted. errors.Is matches any of the wrapped errors.
type ExtractError struct {
	Errors []*EntryError
}

func (e *ExtractError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d entries failed", len(e.Errors))
	for i, ee := range e.Errors {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(e.Errors)-5)
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

package unarc

import (
	"errors"
	"sync"
)

// maxPasswordTries is how many answers a password prompt may give for one
// need (the headers, or one OpenEntry) before the wrong-password error is
// returned: the first answer and two retries.
const maxPasswordTries = 3

// ErrAborted matches the error of an operation that a password callback
// stopped by returning an error. The callback's own error is wrapped too,
// so errors.Is matches both. It is not one of the bad-input sentinels:
// the archive is not at fault.
var ErrAborted = errors.New("aborted by the password callback")

// PasswordRequest is what a password prompt (WithPasswordPrompt) is
// asked with.
type PasswordRequest struct {
	// Entry is the entry whose data needs the password; nil when the
	// archive's headers are encrypted (then the answer opens the listing
	// and, as a rule, every entry).
	Entry *Entry
	// Attempt counts the answers asked for this need: 1 for the first,
	// up to 3 (the first answer and two retries).
	Attempt int
	// Wrong reports that the previous answer was rejected (ErrPassword).
	Wrong bool
}

// abortError is a password callback's error: it aborts the operation.
type abortError struct{ err error }

func (e *abortError) Error() string        { return "password callback: " + e.err.Error() }
func (e *abortError) Unwrap() error        { return e.err }
func (e *abortError) Is(target error) bool { return target == ErrAborted }

// passwords is the password state of one Archive or Reader: the prompt,
// the cached answer, and a sticky abort. Formats reach it through
// arc.Config.Password; it is safe for concurrent use.
type passwords struct {
	prompt func(PasswordRequest) (string, error)
	fixed  bool // WithPassword: asking again gives the same answer, so no retries

	mu      sync.Mutex
	have    bool
	pw      string
	gen     int   // counts answers, so a retry marks only the answer it used
	abort   error // set once the callback returned an error
	attempt int   // > 1: the next ask is a retry after a wrong answer
	asks    int   // answers asked, for tests and Warnings
}

func newPasswords(o *options) *passwords {
	if o.prompt == nil {
		return nil
	}
	return &passwords{prompt: o.prompt, fixed: o.fixedPassword}
}

// get is arc.Config.Password: the cached answer, or the prompt's.
func (p *passwords) get(e *Entry) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abort != nil {
		return "", p.abort
	}
	if p.have {
		return p.pw, nil
	}
	req := PasswordRequest{Entry: e, Attempt: 1}
	if p.attempt > 1 {
		req.Attempt, req.Wrong = p.attempt, true
	}
	// The prompt runs under the lock: concurrent needs wait for one
	// answer instead of asking the user several times at once.
	p.asks++
	pw, err := p.prompt(req)
	if err != nil {
		p.abort = &abortError{err}
		return "", p.abort
	}
	p.have, p.pw, p.attempt = true, pw, 0
	p.gen++
	return pw, nil
}

// generation returns the answer count before an attempt.
func (p *passwords) generation() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gen
}

// rejected records that an attempt begun at generation gen failed with
// ErrPassword; it reports whether to try again (and ask again).
func (p *passwords) rejected(gen, attempt int) bool {
	if p == nil || p.fixed || attempt >= maxPasswordTries {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abort != nil {
		return false
	}
	if p.gen == gen && !p.have {
		return false // nothing was asked: the format did not use our answer
	}
	if p.gen == gen || p.gen == gen+1 {
		// The answer this attempt used is wrong: forget it.
		p.have, p.pw = false, ""
		p.attempt = attempt + 1
	}
	return true
}

// retry runs op, asking for the password again after a wrong answer, up
// to maxPasswordTries answers.
func retry[T any](p *passwords, op func() (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		gen := 0
		if p != nil {
			gen = p.generation()
		}
		v, err := op()
		if err == nil || !errors.Is(err, ErrPassword) || !p.rejected(gen, attempt) {
			return v, err
		}
	}
}

// forget drops the cached answer after a read failed with ErrPassword
// (a format without a password check found out at the data's end), if
// it is still the answer the entry was opened with: the next need asks
// again, as a retry.
func (p *passwords) forget(gen int) {
	if p.fixed {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen == gen && p.have {
		p.have, p.pw, p.attempt = false, "", 2
	}
}

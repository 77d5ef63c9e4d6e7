package unarc

import "github.com/go-unarc/unarc/internal/arc"

// Option configures Open, OpenFile and NewReader.
type Option func(*options)

// Progress reports extraction progress: the entry being written, the
// bytes of it written so far, and the bytes written in this Extract call.
type Progress struct {
	Entry        *Entry
	EntryWritten int64
	TotalWritten int64
	Done         bool // the entry is complete (or failed)
}

type options struct {
	password func(*Entry) (string, error)
	limits   Limits
	progress func(Progress)

	overwrite   Overwrite               // Extract: policy for existing paths (extract_options.go)
	conflict    ConflictFunc            // Extract: per-conflict decision, overrides overwrite
	filter      func(*Entry) bool       // Extract: entries to write; nil = all
	preserve    bool                    // Extract: keep permission bits exactly (no umask)
	extractHook func(stage, rel string) // tests only: called between extraction steps
}

// WithPassword sets the password used for every encrypted entry and for
// encrypted headers.
func WithPassword(pw string) Option {
	return func(o *options) {
		o.password = func(*Entry) (string, error) { return pw, nil }
	}
}

// WithPasswordFunc sets a callback asked for the password of an encrypted
// entry (e is nil for encrypted archive headers). Returning an error
// aborts the operation with that error.
func WithPasswordFunc(fn func(e *Entry) (string, error)) Option {
	return func(o *options) { o.password = fn }
}

// WithLimits bounds memory, dictionary, entry size and compression ratio.
func WithLimits(l Limits) Option {
	return func(o *options) { o.limits = l }
}

// WithProgress sets a callback that Extract calls as entries are written.
func WithProgress(fn func(Progress)) Option {
	return func(o *options) { o.progress = fn }
}

func buildOptions(opts []Option) *options {
	o := &options{}
	for _, fn := range opts {
		fn(o)
	}
	o.limits = o.limits.WithDefaults()
	return o
}

func (o *options) config() *arc.Config {
	return &arc.Config{Password: o.password, Limits: o.limits, Budget: arc.NewBudget(o.limits)}
}

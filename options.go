package unarc

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"runtime"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
	"github.com/go-unarc/unarc/internal/errs"
)

// Option configures Open, OpenFile, OpenFS and NewReader.
//
// Open options say what opening needs: the password, the limits, where
// the other volumes are, an index to reopen from, checkpoints, decoding
// workers and a context. What one Extract or Verify call does is given to
// that call (ExtractOption, VerifyOption).
//
// An option given a value that cannot be meant (a nil callback, a NaN
// ratio) makes the call fail with an error matching ErrInvalidOption,
// before anything is read.
type Option func(*options) error

// invalid is the error of an option given a value that cannot be meant.
func invalid(format string, args ...any) error {
	return fmt.Errorf("unarc: %w: "+format, append([]any{errs.ErrInvalidOption}, args...)...)
}

type options struct {
	prompt        func(PasswordRequest) (string, error)
	fixedPassword bool
	limits        Limits        // as WithLimits set them: the request
	bounds        engine.Limits // limits resolved (buildOptions): what every check applies
	decodeName    func([]byte) string
	// volumes: where the other volumes of a set opened with Open come
	// from; volName is the first volume's name in that namespace.
	volName string
	volOpen func(name string) (io.ReaderAt, int64, error)
	index   *Index // reopen from this index (index.go)
	workers int    // WithWorkers; resolved to >= 1 by buildOptions
	// ctx cancels the open (WithContext); nil: it cannot be cancelled.
	ctx context.Context

	checkpoints engine.CheckpointPolicy // OpenSeekable (seekable.go)
	debData     bool                    // WithDebData
}

// WithDebData opens a Debian package (.deb) as its data tarball
// (data.tar, .gz, .xz, .zst, .bz2, .lzma): the files the package
// installs, rather than the ar archive of debian-binary, control.tar.*
// and data.tar.* it is. A package without a data tarball fails with
// ErrFormat; other formats ignore the option.
func WithDebData() Option {
	return func(o *options) error { o.debData = true; return nil }
}

// WithPassword sets the password used for every encrypted entry and for
// encrypted headers. A wrong password fails with ErrPassword at once (it
// is not retried).
func WithPassword(pw string) Option {
	return func(o *options) error {
		o.prompt = func(PasswordRequest) (string, error) { return pw, nil }
		o.fixedPassword = true
		return nil
	}
}

// WithPasswordFunc sets a callback asked for a password: e is the entry
// that needs it, or nil for encrypted archive headers. It is
// WithPasswordPrompt without the attempt details; the same caching,
// retry and abort rules apply.
func WithPasswordFunc(fn func(e *Entry) (string, error)) Option {
	if fn == nil {
		return func(*options) error { return invalid("WithPasswordFunc(nil)") }
	}
	return WithPasswordPrompt(func(r PasswordRequest) (string, error) { return fn(r.Entry) })
}

// WithPasswordPrompt sets a callback asked for a password when one is
// needed and none is known:
//
//   - The answer is cached for the life of the Archive (or Reader) and
//     used for every later need without asking again: most archives use
//     one password for the headers and every entry.
//   - When an answer is rejected with ErrPassword (by Open for encrypted
//     headers, or by OpenEntry — formats that store a password check),
//     the callback is asked again for that need with Wrong set, up to
//     three answers in all; then the ErrPassword error is returned.
//     A wrong password that a format only finds at the end of the data
//     (RAR 2.9 has no check value: ErrPassword after the data check)
//     cannot be retried: it fails that read, the cached answer is
//     forgotten, and the next OpenEntry of any entry asks again. Where a
//     wrong password shows only as ErrChecksum (7z AES entries), the
//     library cannot tell it from damage. A Reader never retries: its
//     stream cannot be read again.
//   - An error returned by the callback aborts the operation that asked
//     (Open, OpenEntry, Next, Extract): it fails with an error matching
//     both ErrAborted and the callback's error. The Archive then asks no
//     more; every later need fails the same way.
//
// Calls are serialized: concurrent OpenEntry calls wait for one answer.
// The callback must not use the Archive it answers for.
func WithPasswordPrompt(fn func(req PasswordRequest) (string, error)) Option {
	return func(o *options) error {
		if fn == nil {
			return invalid("WithPasswordPrompt(nil)")
		}
		o.prompt, o.fixedPassword = fn, false
		return nil
	}
}

// WithLimits bounds memory, dictionary, entry size and compression ratio.
func WithLimits(l Limits) Option {
	return func(o *options) error {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("unarc: %w", err)
		}
		o.limits = l
		return nil
	}
}

// WithNameDecoder sets how names and comments stored in a legacy code
// page are decoded: ZIP entries without the UTF-8 flag (other formats
// store Unicode). fn gets the raw bytes of every such name that is not
// plain ASCII, e.g. a Shift-JIS or GBK decoder from golang.org/x/text.
// By default such names are decoded as IBM code page 437, as the ZIP
// specification says, except that names which are valid UTF-8 are kept
// as they are (many tools write UTF-8 without setting the flag). The
// Info-ZIP Unicode path field, when its checksum matches, still wins.
func WithNameDecoder(fn func(raw []byte) string) Option {
	return func(o *options) error {
		if fn == nil {
			return invalid("WithNameDecoder(nil)")
		}
		o.decodeName = fn
		return nil
	}
}

// WithVolumes lets Open find the other volumes of a multi-volume set (RAR
// parts, split ZIP, 7z.001 …) in fsys: name is the path in fsys of the
// volume passed to Open, and the others are looked up beside it with the
// format's naming rules. Files opened from fsys are closed by
// Archive.Close. OpenFS does the same in one call; OpenFile needs no
// option (it uses the operating system's files).
func WithVolumes(fsys fs.FS, name string) Option {
	if fsys == nil {
		return func(*options) error { return invalid("WithVolumes with a nil fs.FS") }
	}
	return WithVolumeOpener(name, func(vol string) (io.ReaderAt, int64, error) { return openFSFile(fsys, vol) })
}

// WithVolumeOpener is WithVolumes for any storage (object stores, HTTP
// ranges): open returns the volume named vol (a name derived from name by
// the format's naming rules, '/'-separated if name is) with its size, or
// an error matching fs.ErrNotExist when there is none. A returned value
// that implements io.Closer is closed by Archive.Close.
func WithVolumeOpener(name string, open func(vol string) (io.ReaderAt, int64, error)) Option {
	return func(o *options) error {
		if open == nil {
			return invalid("WithVolumeOpener with a nil opener")
		}
		o.volName, o.volOpen = name, open
		return nil
	}
}

// WithWorkers sets how many goroutines Extract and Verify may decode on
// (default: runtime.GOMAXPROCS). Independent units — ZIP entries,
// non-solid RAR entries, RAR solid runs, 7z folders — are decoded
// concurrently, each unit in order on one goroutine, so at most n
// decoders (each within Limits.MaxMemory) are live at once; what the
// caller sees (files, errors, progress, the overwrite policy, limits) is
// what one goroutine would produce, in entry order. Where fewer units
// than n are decoded, the spare goroutines go to decoders that can split
// one entry (zstd frames). n = 1 decodes everything on the calling
// goroutine, as before. A Reader (a forward-only stream) always
// extracts on one goroutine.
func WithWorkers(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return invalid("WithWorkers(%d): need at least 1", n)
		}
		o.workers = n
		return nil
	}
}

// WithContext makes Open, OpenFile, OpenFS and NewReader stop when ctx
// is done: the call then fails with ctx.Err() itself (context.Canceled
// or context.DeadlineExceeded). Opening a compressed tarball decodes the
// whole stream to list it, which takes as long as the stream is large;
// other formats read their headers. ctx governs the open only: the
// Archive or Reader it returns does not keep it (Extract and Verify take
// their own). Key derivation for encrypted headers is not interrupted;
// the open stops at the next read after it.
func WithContext(ctx context.Context) Option {
	return func(o *options) error {
		if ctx == nil {
			return invalid("WithContext(nil)")
		}
		o.ctx = ctx
		return nil
	}
}

func buildOptions(opts []Option) (*options, error) {
	o := &options{checkpoints: defaultCheckpoints}
	for _, fn := range opts {
		if fn == nil {
			continue
		}
		if err := fn(o); err != nil {
			return nil, err
		}
	}
	b, err := conf.Limits(o.limits)
	if err != nil {
		return nil, fmt.Errorf("unarc: %w", err)
	}
	o.bounds = b
	if o.workers == 0 {
		o.workers = runtime.GOMAXPROCS(0)
	}
	// Checkpoints count against Limits.MaxMemory as well (seekable.go).
	o.checkpoints.MaxMemory = min(o.checkpoints.MaxMemory, o.bounds.MaxMemory)
	return o, nil
}

// config is the format configuration of one Open or NewReader: its own
// password state and key-derivation budget.
func (o *options) config() (*arc.Config, *passwords) {
	pw := newPasswords(o)
	cfg := &arc.Config{Limits: o.limits, DecodeName: o.decodeName, DebData: o.debData}
	cfg.Bounds = o.bounds
	cfg.Budget = conf.NewBudget(o.bounds)
	cfg.Workers = o.workers
	if pw != nil {
		cfg.Password = pw.get
	}
	return cfg, pw
}

package unarc

import "io/fs"

// Overwrite is Extract's policy for an entry whose path already exists in
// the destination with something this Extract call did not write.
//
// Whatever the policy, Extract never follows a symlink that was already
// there, never removes or replaces a directory or a special file, and
// never deletes a file to put a directory in its place: such a conflict
// fails that entry with an error matching fs.ErrExist that names the
// path (or, under OverwriteRename, the entry is written beside it). A
// symlink that was there counts as a file: the policy keeps it, replaces
// the link itself (never what it points to) or writes beside it. A
// symlink that already is what a symlink entry would make (the same
// target: an earlier extraction's) is no conflict: every policy but
// OverwriteAlways keeps it silently; OverwriteAlways replaces it as it
// replaces files.
//
// A hard link whose target entry was skipped because a regular file was
// there is made to that file; if the target's path holds anything else
// (a symlink is never followed), the link is skipped with a note in
// Progress.Skipped. If the target entry failed as a conflict, so does the
// link. Later entries of the same archive with the same name replace
// earlier ones, as every extractor does.
type Overwrite int

const (
	// OverwriteError fails the entry (errors.Is(err, fs.ErrExist)) and
	// leaves the existing path alone. It is the default.
	OverwriteError Overwrite = iota
	// OverwriteSkip leaves an existing regular file or symlink alone and
	// skips the entry without an error. Other conflicts are still errors.
	OverwriteSkip
	// OverwriteAlways replaces an existing regular file or symlink
	// (atomically, by renaming the new one over it; a symlink is replaced,
	// not followed). Other conflicts are still errors.
	OverwriteAlways
	// OverwriteRename keeps both: the entry is written as name_1.ext
	// (name_2.ext, …) beside what exists, as 7-Zip's -aou does. A directory
	// entry over a non-directory is still an error.
	OverwriteRename
)

func (p Overwrite) String() string {
	switch p {
	case OverwriteError:
		return "error"
	case OverwriteSkip:
		return "skip"
	case OverwriteAlways:
		return "overwrite"
	case OverwriteRename:
		return "rename"
	}
	return "invalid"
}

// ConflictFunc decides one conflict: e is the entry, path its
// '/'-separated path inside the destination, existing what is there now.
// It is only asked about conflicts the policy could resolve (an existing
// regular file or symlink, or anything under OverwriteRename); returning
// OverwriteError fails the entry as usual.
type ConflictFunc func(e *Entry, path string, existing fs.FileInfo) Overwrite

// ExtractOption configures one Extract call (Archive.Extract or
// Reader.Extract): what to write, what to do with paths that exist, how
// to report progress. Each call takes its own, so one Archive can extract
// two different subsets, or the same one under two policies.
//
// An option given a value that cannot be meant (a nil callback, an
// unknown Overwrite policy) makes Extract fail with an error matching
// ErrInvalidOption before anything is created.
type ExtractOption func(*extractOptions) error

// extractOptions are the settings of one Extract call.
type extractOptions struct {
	overwrite Overwrite         // policy for existing paths
	conflict  ConflictFunc      // per-conflict decision, overrides overwrite
	filter    func(*Entry) bool // entries to write; nil = all
	preserve  bool              // keep permission bits exactly (no umask)
	progress  func(Progress)
	// noSpaceCheck: WithSpaceCheck(false) (space.go).
	noSpaceCheck bool
}

func buildExtractOptions(opts []ExtractOption) (*extractOptions, error) {
	xo := &extractOptions{}
	for _, fn := range opts {
		if fn == nil {
			continue
		}
		if err := fn(xo); err != nil {
			return nil, err
		}
	}
	return xo, nil
}

// WithOverwrite sets Extract's policy for paths that already exist
// (default OverwriteError).
func WithOverwrite(p Overwrite) ExtractOption {
	return func(o *extractOptions) error {
		if p > OverwriteRename {
			return invalid("WithOverwrite(%d): no such policy", p)
		}
		o.overwrite = p
		return nil
	}
}

// WithConflictFunc makes Extract ask fn about each existing regular file
// or symlink (an interactive "overwrite?" prompt); it takes precedence over
// WithOverwrite for the conflicts it is asked about.
func WithConflictFunc(fn ConflictFunc) ExtractOption {
	return func(o *extractOptions) error {
		if fn == nil {
			return invalid("WithConflictFunc(nil)")
		}
		o.conflict = fn
		return nil
	}
}

// WithFilter makes Extract write only the entries for which keep returns
// true. Directories needed to hold a chosen entry are still created. With
// an Archive, entries after the last chosen one are not decoded at all;
// in a solid archive, decoding stops after the last chosen entry.
func WithFilter(keep func(*Entry) bool) ExtractOption {
	return func(o *extractOptions) error {
		if keep == nil {
			return invalid("WithFilter(nil)")
		}
		o.filter = keep
		return nil
	}
}

// WithPreservePermissions makes Extract restore permission bits exactly
// as stored instead of masking them with the process umask (the default,
// like tar without -p), and the sticky bit of directories (a 01777
// directory stays one). Setuid and setgid bits are never set: an archive
// must not make set-ID programs. Either way a mode is never more open
// than stored: 0000 stays 0000.
func WithPreservePermissions(keep bool) ExtractOption {
	return func(o *extractOptions) error { o.preserve = keep; return nil }
}

// Progress reports extraction progress: the entry being written, the
// bytes of it written so far, and the bytes written in this Extract call.
type Progress struct {
	Entry        *Entry
	EntryWritten int64
	TotalWritten int64
	Done         bool // the entry is complete (or failed)
	// Skipped, when not empty, says why the entry was not written: a
	// device node, FIFO or socket (tar lists them) is never created.
	Skipped string
}

// WithProgress sets a callback that Extract calls as entries are
// written, on the calling goroutine, in entry order.
func WithProgress(fn func(Progress)) ExtractOption {
	return func(o *extractOptions) error {
		if fn == nil {
			return invalid("WithProgress(nil)")
		}
		o.progress = fn
		return nil
	}
}

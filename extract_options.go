package unarc

import "io/fs"

// Overwrite is Extract's policy for an entry whose path already exists in
// the destination with something this Extract call did not write.
//
// Whatever the policy, Extract never removes, replaces or follows a
// directory, a symlink or any other non-regular file that was already
// there, and never deletes a file to put a directory in its place: such a
// conflict fails that entry with an error matching fs.ErrExist that names
// the path (or, under OverwriteRename, the entry is written beside it).
// Later entries of the same archive with the same name replace earlier
// ones, as every extractor does.
type Overwrite int

const (
	// OverwriteError fails the entry (errors.Is(err, fs.ErrExist)) and
	// leaves the existing path alone. It is the default.
	OverwriteError Overwrite = iota
	// OverwriteSkip leaves an existing regular file alone and skips the
	// entry without an error. Other conflicts are still errors.
	OverwriteSkip
	// OverwriteAlways replaces an existing regular file (atomically, by
	// renaming the new one over it). Other conflicts are still errors.
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
// regular file, or anything under OverwriteRename); returning
// OverwriteError fails the entry as usual.
type ConflictFunc func(e *Entry, path string, existing fs.FileInfo) Overwrite

// WithOverwrite sets Extract's policy for paths that already exist.
func WithOverwrite(p Overwrite) Option {
	return func(o *options) error {
		if p > OverwriteRename {
			return invalid("WithOverwrite(%d): no such policy", p)
		}
		o.overwrite = p
		return nil
	}
}

// WithConflictFunc makes Extract ask fn about each existing regular file
// (an interactive "overwrite?" prompt); it takes precedence over
// WithOverwrite for the conflicts it is asked about.
func WithConflictFunc(fn ConflictFunc) Option {
	return func(o *options) error {
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
func WithFilter(keep func(*Entry) bool) Option {
	return func(o *options) error {
		if keep == nil {
			return invalid("WithFilter(nil)")
		}
		o.filter = keep
		return nil
	}
}

// WithPreservePermissions makes Extract restore permission bits exactly
// as stored instead of masking them with the process umask (the default,
// like tar without -p). Setuid, setgid and sticky bits are never set.
func WithPreservePermissions(keep bool) Option {
	return func(o *options) error { o.preserve = keep; return nil }
}

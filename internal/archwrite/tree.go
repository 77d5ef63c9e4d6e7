package archwrite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// Tree is a writer's side of AddFS and AddTree: its options and how it
// adds one entry.
type Tree struct {
	Prefix     string // names the writer in errors ("7z writer")
	FollowRoot bool   // WithFollowRoot
	// FileErrors is WithFileErrors' handler, or nil (the walk stops).
	FileErrors func(name string, err error) error
	// Create adds an entry and returns the io.Writer for its content
	// (nil for an entry without data); a refused name is an error
	// matching errs.ErrInvalidName.
	Create func(name string, modified time.Time, mode fs.FileMode) (io.Writer, error)
}

// Item is a file a walk found.
type Item struct {
	Name string
	Info fs.FileInfo
	Key  int // the writer's to set (the 7z writer sorts by filter)
}

// Collect walks fsys from root (fs.WalkDir order) and returns what to
// add: directories, regular files, symlinks and the SpecialTypes. When
// skip is not nil, entries for which it returns true are left out (a
// directory with everything under it). A root that is a symlink is the
// only item, unless FollowRoot.
func (t *Tree) Collect(fsys fs.FS, root string, skip func(name string, d fs.DirEntry) bool) ([]Item, error) {
	if !t.FollowRoot {
		// fs.WalkDir follows a root symlink (it calls fs.Stat).
		info, err := fs.Lstat(fsys, root)
		if err != nil {
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if skip != nil && skip(root, fs.FileInfoToDirEntry(info)) {
				return nil, nil
			}
			return []Item{{Name: root, Info: info}}, nil
		}
	}
	var items []Item
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if d == nil && name == root {
				return err // the root itself: not a file of the tree
			}
			// A directory that cannot be read is stored without its
			// contents; an entry that vanished is left out.
			what := "skipped"
			if d != nil && d.IsDir() {
				what = "its contents are left out"
			}
			return t.FileError(name, what, err)
		}
		if name == "." {
			return nil
		}
		if skip != nil && skip(name, d) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return t.FileError(name, "skipped", err)
		}
		switch typ := info.Mode().Type(); {
		case typ == 0, typ == fs.ModeDir, typ == fs.ModeSymlink, typ&SpecialTypes != 0 && typ&^SpecialTypes == 0:
		default:
			return t.FileError(name, "skipped", errs.Unsupported("a file of type %v", typ))
		}
		items = append(items, Item{Name: name, Info: info})
		return nil
	})
	return items, err
}

// FileError reports a problem with one file of the tree: to the
// FileErrors handler, whose answer it returns, or as the walk's error.
// what says what became of the file.
func (t *Tree) FileError(name, what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The name is given once, by whoever shows the error.
		err = fmt.Errorf("%s: %s: %w", what, pe.Op, pe.Err)
	} else {
		err = fmt.Errorf("%s: %w", what, err)
	}
	if t.FileErrors != nil {
		return t.FileErrors(name, err)
	}
	return fmt.Errorf("%s: %s: %w", t.Prefix, name, err)
}

// Add adds one file of the tree. Its errors are the writer's own (the
// archive cannot go on) or those of FileError.
func (t *Tree) Add(fsys fs.FS, name string, info fs.FileInfo) error {
	stored, mod, mode := path.Clean(name), info.ModTime(), info.Mode()
	create := func() (io.Writer, error) {
		ew, err := t.Create(stored, mod, mode)
		if errors.Is(err, errs.ErrInvalidName) {
			return nil, t.FileError(name, "skipped", err)
		}
		return ew, err
	}
	switch {
	case info.IsDir(), info.Mode()&SpecialTypes != 0:
		_, err := create()
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(fsys, name)
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				err = errs.Unsupported("a symlink in a file system without ReadLink")
			}
			return t.FileError(name, "skipped", err)
		}
		ew, err := create()
		if ew == nil {
			return err
		}
		_, err = io.WriteString(ew, target)
		return err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return t.FileError(name, "skipped", err)
	}
	defer f.Close()
	size := info.Size()
	before, err := f.Stat()
	if err != nil {
		before = nil
	} else {
		// What the open file is: it may have changed since the walk.
		if !before.Mode().IsRegular() {
			return t.FileError(name, "skipped", fmt.Errorf("no longer a regular file (%v)", before.Mode().Type()))
		}
		size, mod, mode = before.Size(), before.ModTime(), before.Mode()
	}
	ew, err := create()
	if ew == nil {
		return err
	}
	n, rerr, err := copyFile(ew, f, size)
	switch {
	case err != nil:
		return err // the archive's own error
	case rerr != nil:
		return t.FileError(name, fmt.Sprintf("stored the %d bytes read of %d", n, size), rerr)
	case n < size:
		return t.FileError(name, fmt.Sprintf("stored the %d bytes read of %d", n, size), ErrShrank)
	case n > size:
		return t.FileError(name, fmt.Sprintf("stored its first %d bytes", size), ErrGrew)
	}
	if before != nil {
		// Written in place while read, as GNU tar checks.
		if st, err := f.Stat(); err == nil && (st.Size() != size || !st.ModTime().Equal(before.ModTime())) {
			return t.FileError(name, "stored as read", ErrChanged)
		}
	}
	return nil
}

// What happened to a file while it was read.
var (
	ErrShrank  = errors.New("the file shrank while it was read")
	ErrGrew    = errors.New("the file grew while it was read")
	ErrChanged = errors.New("the file changed while it was read")
)

// copyFile copies the first size bytes of f to ew. It returns how many
// it copied (size+1 when f has more), the error reading f and the error
// writing ew.
func copyFile(ew io.Writer, f io.Reader, size int64) (n int64, rerr, werr error) {
	bp := pool.Get(64 << 10)
	defer pool.Put(bp)
	buf := *bp
	for n < size {
		m, err := f.Read(buf[:min(int64(len(buf)), size-n)])
		if m > 0 {
			if _, werr = ew.Write(buf[:m]); werr != nil {
				return n, nil, werr
			}
			n += int64(m)
		}
		if err == io.EOF {
			return n, nil, nil
		}
		if err != nil {
			return n, err, nil
		}
	}
	// Is there more than Stat said?
	for range 100 {
		m, err := f.Read(buf[:1])
		if m > 0 {
			return n + 1, nil, nil
		}
		if err != nil {
			return n, nil, nil
		}
	}
	return n, nil, nil
}

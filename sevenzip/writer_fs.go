package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"

	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/pool"
)

// AddFS adds the files of fsys, walked from its root with fs.WalkDir,
// as archive/zip.Writer.AddFS does: directories, regular files with
// their modification times and modes, and (unlike archive/zip) symlinks
// when fsys implements fs.ReadLinkFS (os.DirFS does), stored as 7-Zip
// -snl stores them. Named pipes, sockets and devices are stored as
// 7-Zip stores them: their type and mode, no data. With the automatic
// filter, executables are added after the other files, grouped by
// filter, so each filter gets one folder.
//
// A file that cannot be stored as it is — it cannot be opened or read,
// its name is refused (ErrInvalidName), or it changes while it is read
// (size or modification time) — stops AddFS with an error naming it,
// unless WithFileErrors says to go on. What was added until then stays
// in the archive: the Writer can still be closed into a valid archive.
func (w *Writer) AddFS(fsys fs.FS) error { return w.AddTree(fsys, ".", nil) }

// AddTree is AddFS for the part of fsys under root (a file or a
// directory, named by its path in fsys, as `7zz a dir` stores dir/…).
// When skip is not nil, entries for which it returns true are left out
// (a directory with everything under it). A root that is a symlink is
// stored as a link (7zz -snl), unless WithFollowRoot is set.
func (w *Writer) AddTree(fsys fs.FS, root string, skip func(name string, d fs.DirEntry) bool) error {
	type item struct {
		name   string
		info   fs.FileInfo
		filter Filter
	}
	var items []item
	if !w.cfg.followRoot {
		// fs.WalkDir follows a root symlink (it calls fs.Stat).
		info, err := fs.Lstat(fsys, root)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if skip != nil && skip(root, fs.FileInfoToDirEntry(info)) {
				return nil
			}
			return w.addFile(fsys, root, info)
		}
	}
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
			return w.fileError(name, what, err)
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
			return w.fileError(name, "skipped", err)
		}
		switch t := info.Mode().Type(); {
		case t == 0, t == fs.ModeDir, t == fs.ModeSymlink, t&specialTypes != 0 && t&^specialTypes == 0:
		default:
			return w.fileError(name, "skipped", errs.Unsupported("a file of type %v", t))
		}
		items = append(items, item{name: name, info: info, filter: FilterNone})
		return nil
	})
	if err != nil {
		return err
	}
	if w.cfg.filter == FilterAuto {
		var buf [sniffSize]byte
		for i := range items {
			if !items[i].info.Mode().IsRegular() || items[i].info.Size() == 0 {
				continue
			}
			// A file that cannot be read here is reported when it is
			// added.
			f, err := fsys.Open(items[i].name)
			if err != nil {
				continue
			}
			n, _ := io.ReadFull(f, buf[:])
			f.Close()
			items[i].filter = sniffFilter(buf[:n])
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].filter < items[j].filter })
	}
	for _, it := range items {
		if err := w.addFile(fsys, it.name, it.info); err != nil {
			return err
		}
	}
	return nil
}

// fileError reports a problem with one file of the tree: to the
// WithFileErrors handler, whose answer it returns, or as AddTree's
// error. what says what became of the file.
func (w *Writer) fileError(name, what string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The name is given once, by whoever shows the error.
		err = fmt.Errorf("%s: %s: %w", what, pe.Op, pe.Err)
	} else {
		err = fmt.Errorf("%s: %w", what, err)
	}
	if w.cfg.fileErrors != nil {
		return w.cfg.fileErrors(name, err)
	}
	return fmt.Errorf("7z writer: %s: %w", name, err)
}

// addFile adds one file of the tree. Its errors are the Writer's own
// (the archive cannot go on) or those of fileError.
func (w *Writer) addFile(fsys fs.FS, name string, info fs.FileInfo) error {
	h := &FileHeader{Name: path.Clean(name), Modified: info.ModTime(), Mode: info.Mode()}
	create := func() (io.Writer, error) {
		ew, err := w.CreateHeader(h)
		if errors.Is(err, ErrInvalidName) {
			return nil, w.fileError(name, "skipped", err)
		}
		return ew, err
	}
	switch {
	case info.IsDir(), info.Mode()&specialTypes != 0:
		_, err := create()
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(fsys, name)
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				err = errs.Unsupported("a symlink in a file system without ReadLink")
			}
			return w.fileError(name, "skipped", err)
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
		return w.fileError(name, "skipped", err)
	}
	defer f.Close()
	size := info.Size()
	before, err := f.Stat()
	if err != nil {
		before = nil
	} else {
		// What the open file is: it may have changed since the walk.
		if !before.Mode().IsRegular() {
			return w.fileError(name, "skipped", fmt.Errorf("no longer a regular file (%v)", before.Mode().Type()))
		}
		size, h.Modified, h.Mode = before.Size(), before.ModTime(), before.Mode()
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
		return w.fileError(name, fmt.Sprintf("stored the %d bytes read of %d", n, size), rerr)
	case n < size:
		return w.fileError(name, fmt.Sprintf("stored the %d bytes read of %d", n, size), errShrank)
	case n > size:
		return w.fileError(name, fmt.Sprintf("stored its first %d bytes", size), errGrew)
	}
	if before != nil {
		// Written in place while read, as GNU tar checks.
		if st, err := f.Stat(); err == nil && (st.Size() != size || !st.ModTime().Equal(before.ModTime())) {
			return w.fileError(name, "stored as read", errChanged)
		}
	}
	return nil
}

var (
	errShrank  = errors.New("the file shrank while it was read")
	errGrew    = errors.New("the file grew while it was read")
	errChanged = errors.New("the file changed while it was read")
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

package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"

	"github.com/go-unarc/unarc/internal/pool"
)

// AddFS adds the files of fsys, walked from its root with fs.WalkDir,
// as archive/zip.Writer.AddFS does: directories, regular files with
// their modification times and modes, and (unlike archive/zip) symlinks
// when fsys implements fs.ReadLinkFS (os.DirFS does), stored as 7-Zip
// -snl stores them. Other file types are an error. With the automatic
// filter, executables are added after the other files, grouped by
// filter, so each filter gets one folder.
func (w *Writer) AddFS(fsys fs.FS) error { return w.AddTree(fsys, ".", nil) }

// AddTree is AddFS for the part of fsys under root (a file or a
// directory, named by its path in fsys, as `7zz a dir` stores dir/…).
// When skip is not nil, entries for which it returns true are left out
// (a directory with everything under it).
func (w *Writer) AddTree(fsys fs.FS, root string, skip func(name string, d fs.DirEntry) bool) error {
	type item struct {
		name   string
		info   fs.FileInfo
		filter Filter
	}
	var items []item
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
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
			return err
		}
		switch t := info.Mode().Type(); {
		case t == 0, t == fs.ModeDir, t == fs.ModeSymlink:
		default:
			return fmt.Errorf("7z writer: %s: cannot add a %v", name, t)
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
			f, err := fsys.Open(items[i].name)
			if err != nil {
				return err
			}
			n, err := io.ReadFull(f, buf[:])
			f.Close()
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				return err
			}
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

func (w *Writer) addFile(fsys fs.FS, name string, info fs.FileInfo) error {
	h := &FileHeader{Name: path.Clean(name), Modified: info.ModTime(), Mode: info.Mode()}
	switch {
	case info.IsDir():
		_, err := w.CreateHeader(h)
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := fs.ReadLink(fsys, name)
		if err != nil {
			if errors.Is(err, errors.ErrUnsupported) {
				return fmt.Errorf("7z writer: %s: symlink in a file system without ReadLink", name)
			}
			return err
		}
		ew, err := w.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = io.WriteString(ew, target)
		return err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	ew, err := w.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = pool.Copy(ew, f)
	return err
}

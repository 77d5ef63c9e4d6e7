package sevenzip

import (
	"io"
	"io/fs"
	"sort"
	"time"

	"github.com/go-unarc/unarc/internal/archwrite"
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
	t := w.tree()
	items, err := t.Collect(fsys, root, skip)
	if err != nil {
		return err
	}
	if w.cfg.filter == FilterAuto {
		var buf [sniffSize]byte
		for i := range items {
			items[i].Key = int(FilterNone)
			if !items[i].Info.Mode().IsRegular() || items[i].Info.Size() == 0 {
				continue
			}
			// A file that cannot be read here is reported when it is
			// added.
			f, err := fsys.Open(items[i].Name)
			if err != nil {
				continue
			}
			n, _ := io.ReadFull(f, buf[:])
			f.Close()
			items[i].Key = int(sniffFilter(buf[:n]))
		}
		sort.SliceStable(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	}
	for _, it := range items {
		if err := t.Add(fsys, it.Name, it.Info); err != nil {
			return err
		}
	}
	return nil
}

// tree is the Writer's side of the shared tree walk.
func (w *Writer) tree() *archwrite.Tree {
	return &archwrite.Tree{
		Prefix:     "7z writer",
		FollowRoot: w.cfg.FollowRoot,
		FileErrors: w.cfg.FileErrors,
		Create: func(name string, mod time.Time, mode fs.FileMode) (io.Writer, error) {
			return w.CreateHeader(&FileHeader{Name: name, Modified: mod, Mode: mode})
		},
	}
}

package zip

import (
	"io"
	"io/fs"
	"time"

	"github.com/go-unarc/unarc/internal/archwrite"
)

// AddFS adds the files of fsys, walked from its root with fs.WalkDir,
// as archive/zip.Writer.AddFS does: directories, regular files with
// their modification times and modes and the Writer's method, and
// (unlike archive/zip) symlinks when fsys implements fs.ReadLinkFS
// (os.DirFS does), stored as Info-ZIP stores them (the target as the
// content, S_IFLNK in the mode). Named pipes, sockets and devices are
// stored with their type and mode and no data.
//
// A file that cannot be stored as it is — it cannot be opened or read,
// its name is refused (ErrInvalidName), or it changes while it is read
// (size or modification time) — stops AddFS with an error naming it,
// unless WithFileErrors says to go on. What was added until then stays
// in the archive: the Writer can still be closed into a valid archive.
func (w *Writer) AddFS(fsys fs.FS) error { return w.AddTree(fsys, ".", nil) }

// AddTree is AddFS for the part of fsys under root (a file or a
// directory, named by its path in fsys, as `zip -r x.zip dir` stores
// dir/…). When skip is not nil, entries for which it returns true are
// left out (a directory with everything under it). A root that is a
// symlink is stored as a link, unless WithFollowRoot is set.
func (w *Writer) AddTree(fsys fs.FS, root string, skip func(name string, d fs.DirEntry) bool) error {
	if w.life.Err != nil {
		return w.life.Err
	}
	t := &archwrite.Tree{
		Prefix:     "zip writer",
		FollowRoot: w.cfg.FollowRoot,
		FileErrors: w.cfg.FileErrors,
		Create: func(name string, mod time.Time, mode fs.FileMode) (io.Writer, error) {
			h := &FileHeader{Name: name, Modified: mod, Method: w.cfg.method}
			h.SetMode(mode)
			return w.CreateHeader(h)
		},
	}
	items, err := t.Collect(fsys, root, skip)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := t.Add(fsys, it.Name, it.Info); err != nil {
			return err
		}
	}
	return nil
}

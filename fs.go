package unarc

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// The io/fs view of an Archive: see the Archive type for the rules.

// maxLinkHops bounds symlink resolution, as Linux does (ELOOP at 40).
const maxLinkHops = 40

// fsTree is the io/fs view of an archive: every valid entry path plus the
// directories implied by them. Entries whose names are not valid fs paths
// after cleaning (absolute, "..", empty) are left out of the view.
type fsTree struct {
	nodes map[string]*fsNode
	// target resolves a symlink's target (7z reads it from the entry's
	// data on first use); "" when it cannot be read.
	target func(*Entry) string
}

type fsNode struct {
	name     string // full path; "." for the root
	entry    *Entry // nil for a synthesized directory
	dir      bool
	children []string // base names, sorted
}

func (n *fsNode) symlink() bool { return !n.dir && n.entry != nil && n.entry.Link == LinkSymlink }

// fsName maps a stored entry name to an fs path, or "" if it has none.
func fsName(name string) string {
	name = strings.TrimSuffix(name, "/")
	name = strings.TrimPrefix(name, "./")
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") && backslashEscapes(name) {
		return ""
	}
	clean := path.Clean(name)
	if !fs.ValidPath(clean) || clean == "." {
		return ""
	}
	return clean
}

func buildTree(ents []*Entry) *fsTree {
	t := &fsTree{nodes: map[string]*fsNode{".": {name: ".", dir: true}}}
	var addDir func(p string) *fsNode
	addDir = func(p string) *fsNode {
		if n := t.nodes[p]; n != nil {
			if !n.dir { // a file that other entries use as a directory
				n.dir, n.entry = true, nil
			}
			return n
		}
		n := &fsNode{name: p, dir: true}
		t.nodes[p] = n
		parent := addDir(path.Dir(p))
		parent.children = append(parent.children, path.Base(p))
		return n
	}
	for _, e := range ents {
		p := fsName(e.Name)
		if p == "" {
			continue
		}
		parent := addDir(path.Dir(p))
		if n := t.nodes[p]; n != nil {
			// A later entry of the same name replaces the earlier one,
			// as extraction would; a directory stays a directory.
			if !n.dir || e.IsDir() {
				n.entry = e
			}
			continue
		}
		t.nodes[p] = &fsNode{name: p, entry: e, dir: e.IsDir()}
		parent.children = append(parent.children, path.Base(p))
	}
	for _, n := range t.nodes {
		slices.Sort(n.children)
		n.children = slices.Compact(n.children)
	}
	return t
}

func (a *Archive) fsTree() *fsTree {
	a.fsOnce.Do(func() {
		a.tree = buildTree(a.a.Entries())
		a.tree.target = func(e *Entry) string {
			t, _ := a.LinkTarget(e)
			return t
		}
	})
	return a.tree
}

// lookup finds the node of name, following symlinks in every directory
// component, and in the last one too when follow is set.
func (t *fsTree) lookup(op, name string, follow bool) (*fsNode, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	notExist := &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	if name == "." {
		return t.nodes["."], nil
	}
	hops := 0
	rest := name // what is left to walk, relative to cur
	cur := "."
	for {
		comp, tail, _ := strings.Cut(rest, "/")
		next := comp
		if cur != "." {
			next = cur + "/" + comp
		}
		n := t.nodes[next]
		if n == nil {
			return nil, notExist
		}
		if n.symlink() && (tail != "" || follow) {
			if hops++; hops > maxLinkHops {
				return nil, notExist
			}
			target := t.target(n.entry)
			if target == "" || strings.HasPrefix(target, "/") || strings.Contains(target, "\\") {
				return nil, notExist
			}
			p := path.Join(cur, target)
			if p == ".." || strings.HasPrefix(p, "../") {
				return nil, notExist
			}
			if tail != "" {
				p = path.Join(p, tail)
			}
			if p == "." {
				return t.nodes["."], nil
			}
			cur, rest = ".", p
			continue
		}
		if tail == "" {
			return n, nil
		}
		if !n.dir {
			return nil, notExist
		}
		cur, rest = next, tail
	}
}

// Open implements fs.FS: name is a slash-separated path as fs.ValidPath
// accepts; directories implied by entry paths exist even when the archive
// does not list them. Symlinks are followed inside the archive. A file is
// an fs.File that also implements io.Seeker and io.ReaderAt; opening it
// starts decoding as OpenEntry does (errors such as a missing password
// are reported here, wrapped in *fs.PathError).
func (a *Archive) Open(name string) (fs.File, error) {
	n, err := a.fsTree().lookup("open", name, true)
	if err != nil {
		return nil, err
	}
	base := path.Base(name)
	if n.dir {
		return &fsDir{a: a, n: n, base: base}, nil
	}
	se, err := a.OpenSeekable(n.entry)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fsFile{n: n, base: base, s: se}, nil
}

// Stat implements fs.StatFS from the listing: nothing is decoded or
// decrypted. It follows symlinks.
func (a *Archive) Stat(name string) (fs.FileInfo, error) {
	n, err := a.fsTree().lookup("stat", name, true)
	if err != nil {
		return nil, err
	}
	return fileInfo{n: n, base: path.Base(name)}, nil
}

// Lstat implements fs.ReadLinkFS: like Stat, but a symlink is described
// as itself.
func (a *Archive) Lstat(name string) (fs.FileInfo, error) {
	n, err := a.fsTree().lookup("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return fileInfo{n: n, base: path.Base(name)}, nil
}

// ReadLink implements fs.ReadLinkFS: it returns a symlink's target as
// stored, without resolving it.
func (a *Archive) ReadLink(name string) (string, error) {
	n, err := a.fsTree().lookup("readlink", name, false)
	if err != nil {
		return "", err
	}
	if !n.symlink() {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := a.LinkTarget(n.entry)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return target, nil
}

// ReadDir implements fs.ReadDirFS from the listing, sorted by name.
func (a *Archive) ReadDir(name string) ([]fs.DirEntry, error) {
	t := a.fsTree()
	n, err := t.lookup("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return t.dirEntries(n, n.children), nil
}

// ReadFile implements fs.ReadFileFS: the whole content, verified.
func (a *Archive) ReadFile(name string) ([]byte, error) {
	n, err := a.fsTree().lookup("readfile", name, true)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	rc, err := a.OpenEntry(n.entry)
	if err != nil {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
	}
	defer rc.Close()
	// The declared size is only a hint: a hostile header may claim more
	// than the data holds, so the first buffer is capped.
	hint := n.entry.Size
	if hint < 0 || hint > 1<<20 {
		hint = 1 << 20
	}
	buf := make([]byte, 0, hint+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := rc.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readfile", Path: name, Err: err}
		}
	}
}

func (t *fsTree) dirEntries(n *fsNode, names []string) []fs.DirEntry {
	out := make([]fs.DirEntry, len(names))
	for i, base := range names {
		full := base
		if n.name != "." {
			full = n.name + "/" + base
		}
		out[i] = fileInfo{n: t.nodes[full], base: base}
	}
	return out
}

// fileInfo adapts a node to fs.FileInfo and fs.DirEntry. base is the name
// it was reached by (a followed symlink keeps the link's name, as os.Stat
// does).
type fileInfo struct {
	n    *fsNode
	base string
}

func (fi fileInfo) Name() string { return fi.base }
func (fi fileInfo) Size() int64 {
	if fi.n.entry == nil || fi.n.dir || fi.n.entry.Size < 0 {
		return 0
	}
	return fi.n.entry.Size
}
func (fi fileInfo) Mode() fs.FileMode {
	if fi.n.dir {
		if fi.n.entry == nil {
			return fs.ModeDir | 0o755
		}
		return fs.ModeDir | fi.n.entry.Mode.Perm()
	}
	m := fi.n.entry.Mode
	if fi.n.symlink() {
		m = m&^fs.ModeType | fs.ModeSymlink
	} else {
		m &^= fs.ModeSymlink
	}
	return m
}
func (fi fileInfo) ModTime() time.Time {
	if fi.n.entry == nil {
		return time.Time{}
	}
	return fi.n.entry.Modified
}
func (fi fileInfo) IsDir() bool                { return fi.n.dir }
func (fi fileInfo) Sys() any                   { return fi.n.entry }
func (fi fileInfo) Type() fs.FileMode          { return fi.Mode().Type() }
func (fi fileInfo) Info() (fs.FileInfo, error) { return fi, nil }
func (fi fileInfo) String() string             { return fs.FormatFileInfo(fi) }

// fsFile is an opened regular file: a SeekableEntry (which see), so
// besides fs.File it implements io.Seeker and io.ReaderAt over the
// decoded content, restarting from a checkpoint or a stored offset when
// it goes backwards. io.SeekEnd works from the declared size. ReadAt is
// safe for concurrent use; it does not move the Read offset.
type fsFile struct {
	n    *fsNode
	base string
	s    *SeekableEntry
}

var (
	_ io.Seeker   = (*fsFile)(nil)
	_ io.ReaderAt = (*fsFile)(nil)
)

func (f *fsFile) Stat() (fs.FileInfo, error) { return fileInfo{n: f.n, base: f.base}, nil }

// pathErr presents a SeekableEntry's error as the fs.File's.
func (f *fsFile) pathErr(op string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	if errors.Is(err, fs.ErrClosed) {
		return &fs.PathError{Op: op, Path: f.n.name, Err: fs.ErrClosed}
	}
	if errors.Is(err, fs.ErrInvalid) {
		return &fs.PathError{Op: op, Path: f.n.name, Err: fs.ErrInvalid}
	}
	return err
}

func (f *fsFile) Read(p []byte) (int, error) {
	n, err := f.s.Read(p)
	return n, f.pathErr("read", err)
}

// ReadAt implements io.ReaderAt.
func (f *fsFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.s.ReadAt(p, off)
	return n, f.pathErr("readat", err)
}

// Seek implements io.Seeker. Seeking itself decodes nothing; the next
// Read does.
func (f *fsFile) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekEnd && f.n.entry.Size < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.n.name, Err: errors.New("size unknown")}
	}
	n, err := f.s.Seek(offset, whence)
	return n, f.pathErr("seek", err)
}

func (f *fsFile) Close() error { return f.pathErr("close", f.s.Close()) }

type fsDir struct {
	a    *Archive
	n    *fsNode
	base string
	off  int
}

func (d *fsDir) Stat() (fs.FileInfo, error) { return fileInfo{n: d.n, base: d.base}, nil }
func (d *fsDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: fs.ErrInvalid}
}
func (d *fsDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *fsDir) ReadDir(count int) ([]fs.DirEntry, error) {
	rest := d.n.children[d.off:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	d.off += len(rest)
	return d.a.fsTree().dirEntries(d.n, rest), nil
}

// Sub implements fs.SubFS: the tree under dir (which may be reached
// through symlinks), with the same methods as the Archive — so Stat and
// ReadDir of the sub-tree still decode nothing, unlike the generic
// fs.Sub, which would open entries to stat them. Symlinks keep resolving
// against the whole archive.
func (a *Archive) Sub(dir string) (fs.FS, error) {
	n, err := a.fsTree().lookup("sub", dir, true)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: errors.New("not a directory")}
	}
	if n.name == "." {
		return a, nil
	}
	return &subFS{a: a, dir: n.name}, nil
}

type subFS struct {
	a   *Archive
	dir string
}

var _ interface {
	fs.StatFS
	fs.ReadDirFS
	fs.ReadFileFS
	fs.ReadLinkFS
	fs.SubFS
} = (*subFS)(nil)

// full maps a name in the sub-tree to the archive's path.
func (s *subFS) full(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return s.dir, nil
	}
	return s.dir + "/" + name, nil
}

// rename reports errors under the name the caller used.
func rename(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok {
		return &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
	}
	return err
}

func (s *subFS) Open(name string) (fs.File, error) {
	p, err := s.full("open", name)
	if err != nil {
		return nil, err
	}
	f, err := s.a.Open(p)
	return f, rename(err, name)
}

func (s *subFS) Stat(name string) (fs.FileInfo, error) {
	p, err := s.full("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.a.Stat(p)
	return fi, rename(err, name)
}

func (s *subFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := s.full("lstat", name)
	if err != nil {
		return nil, err
	}
	fi, err := s.a.Lstat(p)
	return fi, rename(err, name)
}

func (s *subFS) ReadLink(name string) (string, error) {
	p, err := s.full("readlink", name)
	if err != nil {
		return "", err
	}
	t, err := s.a.ReadLink(p)
	return t, rename(err, name)
}

func (s *subFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := s.full("readdir", name)
	if err != nil {
		return nil, err
	}
	d, err := s.a.ReadDir(p)
	return d, rename(err, name)
}

func (s *subFS) ReadFile(name string) ([]byte, error) {
	p, err := s.full("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := s.a.ReadFile(p)
	return b, rename(err, name)
}

func (s *subFS) Sub(dir string) (fs.FS, error) {
	p, err := s.full("sub", dir)
	if err != nil {
		return nil, err
	}
	sub, err := s.a.Sub(p)
	return sub, rename(err, dir)
}

package unarc

import (
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// fsTree is the io/fs view of an archive: every valid entry path plus the
// directories implied by them. Entries whose names are not valid fs paths
// after cleaning (absolute, "..", empty) are left out of the view.
type fsTree struct {
	nodes map[string]*fsNode
}

type fsNode struct {
	name     string // full path; "." for the root
	entry    *Entry // nil for a synthesized directory
	dir      bool
	children []string // base names, sorted
}

// fsName maps a stored entry name to an fs path, or "" if it has none.
func fsName(name string) string {
	name = strings.TrimSuffix(name, "/")
	name = strings.TrimPrefix(name, "./")
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
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
	a.fsOnce.Do(func() { a.tree = buildTree(a.a.Entries()) })
	return a.tree
}

// Open implements fs.FS: name is a slash-separated path as fs.ValidPath
// accepts; directories implied by entry paths exist even when the archive
// does not list them. Symlinks are reported as such and not followed.
func (a *Archive) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	t := a.fsTree()
	n := t.nodes[name]
	if n == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if n.dir {
		return &fsDir{a: a, n: n}, nil
	}
	rc, err := a.OpenEntry(n.entry)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &fsFile{n: n, rc: rc}, nil
}

// fileInfo adapts a node to fs.FileInfo and fs.DirEntry.
type fileInfo struct{ n *fsNode }

func (fi fileInfo) Name() string { return path.Base(fi.n.name) }
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
	if fi.n.entry.Link == LinkSymlink {
		m = m&^fs.ModeType | fs.ModeSymlink
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

type fsFile struct {
	n  *fsNode
	rc io.ReadCloser
}

func (f *fsFile) Stat() (fs.FileInfo, error) { return fileInfo{f.n}, nil }
func (f *fsFile) Read(p []byte) (int, error) { return f.rc.Read(p) }
func (f *fsFile) Close() error               { return f.rc.Close() }

type fsDir struct {
	a   *Archive
	n   *fsNode
	off int
}

func (d *fsDir) Stat() (fs.FileInfo, error) { return fileInfo{d.n}, nil }
func (d *fsDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.n.name, Err: fs.ErrInvalid}
}
func (d *fsDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *fsDir) ReadDir(count int) ([]fs.DirEntry, error) {
	t := d.a.fsTree()
	rest := d.n.children[d.off:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && count < len(rest) {
		rest = rest[:count]
	}
	out := make([]fs.DirEntry, len(rest))
	for i, base := range rest {
		full := base
		if d.n.name != "." {
			full = d.n.name + "/" + base
		}
		out[i] = fileInfo{t.nodes[full]}
	}
	d.off += len(rest)
	return out, nil
}

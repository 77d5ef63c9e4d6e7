package unarc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-unarc/unarc/internal/errs"
)

// Extract writes every entry of the archive into dir (created if needed),
// safely:
//
//   - entry names that are absolute, contain a ".." component, a
//     backslash or a drive letter are refused with ErrInsecurePath;
//   - symlinks whose target is absolute or leaves dir, and hard links to
//     anything but a file this call extracted, are refused likewise;
//   - nothing is ever written through a symlink (an earlier entry's or a
//     pre-existing one): a path whose parent is a symlink is refused;
//   - each file is written under a temporary name and renamed into place
//     only after its checksum verified, so a failed entry never appears
//     under its final name; the other entries are still extracted;
//   - modification times and permission bits are restored (never
//     setuid, setgid or sticky).
//
// The returned *ExtractError names every entry that failed. ctx cancels
// between and during entries.
func (a *Archive) Extract(ctx context.Context, dir string) error {
	x, err := newExtractor(ctx, dir, a.opts)
	if err != nil {
		return err
	}
	for _, e := range a.Entries() {
		if err := ctx.Err(); err != nil {
			return x.finish(err)
		}
		x.entry(e, func() (io.ReadCloser, error) { return a.OpenEntry(e) })
	}
	return x.finish(nil)
}

// Extract writes every remaining entry of the stream into dir with the
// same safety rules as Archive.Extract. A hard link can only refer to a
// file extracted earlier in the same call.
func (r *Reader) Extract(ctx context.Context, dir string) error {
	x, err := newExtractor(ctx, dir, r.opts)
	if err != nil {
		return err
	}
	x.stream = true
	for {
		if err := ctx.Err(); err != nil {
			return x.finish(err)
		}
		e, err := r.Next()
		if err == io.EOF {
			return x.finish(nil)
		}
		if err != nil {
			return x.finish(err) // the stream cannot go on past a broken header
		}
		x.entry(e, func() (io.ReadCloser, error) { return io.NopCloser(r), nil })
	}
}

type dirMeta struct {
	path  string
	mode  fs.FileMode
	mtime time.Time
}

type extractor struct {
	ctx    context.Context
	root   string // absolute
	opts   *options
	dirs   []dirMeta
	files  map[string]bool // slash paths of regular files written, for hard links
	errs   []*EntryError
	total  int64
	stream bool // entries come from a forward-only Reader
}

func newExtractor(ctx context.Context, dir string, o *options) (*extractor, error) {
	if dir == "" {
		dir = "."
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	return &extractor{ctx: ctx, root: root, opts: o, files: map[string]bool{}}, nil
}

func (x *extractor) fail(e *Entry, err error) {
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry != e.Name {
		ee = &EntryError{Entry: e.Name, Err: err}
	}
	x.errs = append(x.errs, ee)
	if x.opts.progress != nil {
		x.opts.progress(Progress{Entry: e, TotalWritten: x.total, Done: true})
	}
}

// finish applies directory times and modes (deepest first, after their
// contents were written) and assembles the error.
func (x *extractor) finish(fatal error) error {
	slices.SortFunc(x.dirs, func(a, b dirMeta) int { return len(b.path) - len(a.path) })
	for _, d := range x.dirs {
		os.Chmod(d.path, d.mode)
		if !d.mtime.IsZero() {
			os.Chtimes(d.path, d.mtime, d.mtime)
		}
	}
	if fatal != nil {
		if len(x.errs) == 0 {
			return fatal
		}
		var ee *EntryError
		if errors.As(fatal, &ee) {
			x.errs = append(x.errs, ee)
		} else {
			x.errs = append(x.errs, &EntryError{Entry: "(archive)", Err: fatal})
		}
	}
	if len(x.errs) == 0 {
		return nil
	}
	return &ExtractError{Errors: x.errs}
}

// localName checks an entry name and returns it cleaned, '/'-separated,
// relative to the destination. "" with nil error means the root itself.
func localName(name string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q: %s", errs.ErrInsecurePath, name, why)
	}
	switch {
	case name == "":
		return bad("empty name")
	case strings.ContainsRune(name, 0):
		return bad("NUL in name")
	case strings.ContainsRune(name, '\\'):
		return bad("backslash in name")
	case strings.HasPrefix(name, "/"):
		return bad("absolute path")
	case len(name) >= 2 && name[1] == ':' && isLetter(name[0]):
		return bad("drive letter")
	}
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return bad("'..' component")
		}
	}
	clean := path.Clean(name)
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// checkLinkTarget refuses a symlink target that is absolute or could lead
// outside the destination. ".." is allowed only as leading components:
// those resolve against real directories (parents are never symlinks),
// while a ".." after another component could climb out through a symlink.
func checkLinkTarget(rel, target string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: link %q -> %q: %s", errs.ErrInsecurePath, rel, target, why)
	}
	switch {
	case target == "":
		return bad("empty target")
	case strings.ContainsRune(target, 0):
		return bad("NUL in target")
	case strings.ContainsRune(target, '\\'):
		return bad("backslash in target")
	case strings.HasPrefix(target, "/"):
		return bad("absolute target")
	case len(target) >= 2 && target[1] == ':' && isLetter(target[0]):
		return bad("drive letter")
	}
	depth := strings.Count(rel, "/") // directories above the link, within root
	leading := true
	for _, c := range strings.Split(target, "/") {
		switch c {
		case "", ".":
		case "..":
			if !leading {
				return bad("'..' after a name")
			}
			depth--
			if depth < 0 {
				return bad("leaves the destination")
			}
		default:
			leading = false
		}
	}
	return nil
}

// prepareParent creates the parent directories of rel, refusing to pass
// through a symlink or a non-directory.
func (x *extractor) prepareParent(rel string) (string, error) {
	dir := x.root
	parent := path.Dir(rel)
	if parent == "." {
		return dir, nil
	}
	for _, c := range strings.Split(parent, "/") {
		dir = filepath.Join(dir, c)
		st, err := os.Lstat(dir)
		switch {
		case err == nil && st.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%w: %q: parent %q is a symlink", errs.ErrInsecurePath, rel, c)
		case err == nil && !st.IsDir():
			return "", fmt.Errorf("unarc: %q: parent %q is not a directory", rel, c)
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", err
			}
		default:
			return "", err
		}
	}
	return dir, nil
}

func filePerm(e *Entry, dir bool) fs.FileMode {
	p := e.Mode.Perm()
	if p == 0 {
		if dir {
			return 0o755
		}
		return 0o644
	}
	if dir {
		p |= 0o700 // we must be able to write into it while extracting
	}
	return p
}

func (x *extractor) entry(e *Entry, open func() (io.ReadCloser, error)) {
	rel, err := localName(e.Name)
	if err != nil {
		x.fail(e, err)
		return
	}
	if rel == "" { // the destination itself
		return
	}
	parent, err := x.prepareParent(rel)
	if err != nil {
		x.fail(e, err)
		return
	}
	final := filepath.Join(x.root, filepath.FromSlash(rel))
	switch {
	case e.IsDir() && e.Link == LinkNone:
		err = x.dir(e, final)
	case e.Link == LinkSymlink || e.Link == LinkJunction:
		target := e.LinkTarget
		if target == "" {
			// The format could not read the target up front (encrypted,
			// or an unsupported method): reading it says why.
			target, err = readLinkTarget(open)
		}
		if err == nil {
			err = x.symlink(e, target, rel, parent, final)
		}
	case e.Link == LinkHardlink:
		err = x.hardlink(e, rel, parent, final)
	case e.Link == LinkCopy && x.stream:
		// A forward-only stream cannot go back for the source's data:
		// copy the file this call already extracted.
		err = x.file(e, rel, parent, final, func() (io.ReadCloser, error) { return x.openExtracted(e) })
	default:
		err = x.file(e, rel, parent, final, open)
	}
	if err != nil {
		x.fail(e, err)
	}
}

func (x *extractor) dir(e *Entry, final string) error {
	st, err := os.Lstat(final)
	switch {
	case err == nil && st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %q: directory path is a symlink", errs.ErrInsecurePath, e.Name)
	case err == nil && !st.IsDir():
		// A file by that name came earlier: the later entry wins.
		if err := os.Remove(final); err != nil {
			return err
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(final, 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	x.dirs = append(x.dirs, dirMeta{final, filePerm(e, true), e.Modified})
	return nil
}

// place renames a finished temporary file over final; an existing
// directory there is an error, an existing file or symlink is replaced
// (rename never follows it).
func place(tmp, final string) error {
	if st, err := os.Lstat(final); err == nil && st.IsDir() {
		os.Remove(tmp)
		return fmt.Errorf("unarc: %s exists and is a directory", final)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func tempName(parent string) string {
	return filepath.Join(parent, fmt.Sprintf(".unarc-%d-%d.tmp", os.Getpid(), time.Now().UnixNano()))
}

// maxLinkTarget bounds a symlink target read from entry data.
const maxLinkTarget = 64 << 10

func readLinkTarget(open func() (io.ReadCloser, error)) (string, error) {
	rc, err := open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxLinkTarget+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxLinkTarget {
		return "", fmt.Errorf("%w: symlink target longer than %d bytes", errs.ErrLimit, maxLinkTarget)
	}
	return string(b), nil
}

func (x *extractor) symlink(e *Entry, target, rel, parent, final string) error {
	if e.Link == LinkJunction {
		return fmt.Errorf("%w: %q: junctions are not extracted", errs.ErrInsecurePath, e.Name)
	}
	if err := checkLinkTarget(rel, target); err != nil {
		return err
	}
	tmp := tempName(parent)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if !e.Modified.IsZero() {
		lchtimes(tmp, e.Modified)
	}
	delete(x.files, rel)
	return place(tmp, final)
}

func (x *extractor) hardlink(e *Entry, rel, parent, final string) error {
	target, err := localName(e.LinkTarget)
	if err != nil || target == "" {
		return fmt.Errorf("%w: hard link %q -> %q", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	if !x.files[target] {
		return fmt.Errorf("%w: hard link %q -> %q: target is not a file extracted before it", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	src := filepath.Join(x.root, filepath.FromSlash(target))
	if st, err := os.Lstat(src); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%w: hard link %q -> %q: target is not a regular file", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	tmp := tempName(parent)
	if err := os.Link(src, tmp); err != nil {
		return err
	}
	if err := place(tmp, final); err != nil {
		return err
	}
	x.files[rel] = true
	return nil
}

// openExtracted opens the file an earlier entry of this call wrote, for a
// file-copy entry (RAR5) read from a stream.
func (x *extractor) openExtracted(e *Entry) (io.ReadCloser, error) {
	target, err := localName(e.LinkTarget)
	if err != nil || target == "" || !x.files[target] {
		return nil, fmt.Errorf("%w: file copy %q of %q: source was not extracted before it", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	src := filepath.Join(x.root, filepath.FromSlash(target))
	if st, err := os.Lstat(src); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: file copy %q: source is not a regular file", errs.ErrInsecurePath, e.Name)
	}
	return os.Open(src)
}

// ctxWriter stops a long copy when the context is cancelled.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
	x   *extractor
	e   *Entry
	n   int64
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.x.total += int64(n)
	if c.x.opts.progress != nil {
		c.x.opts.progress(Progress{Entry: c.e, EntryWritten: c.n, TotalWritten: c.x.total})
	}
	return n, err
}

func (x *extractor) file(e *Entry, rel, parent, final string, open func() (io.ReadCloser, error)) error {
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	f, err := os.CreateTemp(parent, ".unarc-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	cw := &ctxWriter{ctx: x.ctx, w: f, x: x, e: e}
	_, err = io.Copy(cw, rc)
	if err == nil {
		err = f.Chmod(filePerm(e, false))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if !e.Modified.IsZero() {
		os.Chtimes(tmp, e.Modified, e.Modified)
	}
	if err := place(tmp, final); err != nil {
		return err
	}
	x.files[rel] = true
	if x.opts.progress != nil {
		x.opts.progress(Progress{Entry: e, EntryWritten: cw.n, TotalWritten: x.total, Done: true})
	}
	return nil
}

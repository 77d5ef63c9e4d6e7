package unarc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/errs"
	"github.com/go-unarc/unarc/internal/meta"
)

// Extract writes the entries of the archive (all, or those WithFilter
// keeps) into dir, created if needed. opts are this call's own
// (WithFilter, WithOverwrite, WithConflictFunc, WithPreservePermissions,
// WithProgress, WithSpaceCheck): the same Archive can extract another
// subset, or the same one under another policy, in a later call. Every file system operation goes
// through an os.Root opened on dir, so no entry name, link or concurrent
// change of the tree (a directory swapped for a symlink while Extract
// runs) can make it create, write, link, rename or change anything
// outside dir. On top of that:
//
//   - entry names that are absolute, contain a ".." component or a drive
//     letter, with '\' read as a separator or not, are refused with
//     ErrInsecurePath (a '\' that a format keeps in a name is a literal
//     character on Unix);
//   - symlinks whose target is absolute or leaves dir, and hard links to
//     anything but a file this call extracted (or, when the overwrite
//     policy skipped it, the regular file kept in its place), are
//     refused likewise;
//   - nothing is ever written through a symlink (an earlier entry's or a
//     pre-existing one): an entry under a symlink is refused;
//   - before anything is written, the sizes the chosen entries declare
//     are judged: more than Limits.MaxTotalSize, or more than the free
//     space of dir's file system (WithSpaceCheck), fails with ErrLimit;
//   - names longer than Limits.MaxNameLength or deeper than
//     Limits.MaxPathDepth fail with ErrLimit before anything is created;
//   - paths that already exist are handled by the Overwrite policy
//     (WithOverwrite; default OverwriteError): a symlink that was there
//     is never followed (the policy may replace the link itself), a
//     directory or special file is never removed or replaced, and a file
//     is never deleted to make room for a directory; such conflicts fail
//     the entry with an error matching fs.ErrExist; a symlink identical
//     to the entry's (an earlier extraction's) is no conflict;
//   - each file is written under a temporary name and renamed into place
//     only after its checksum verified, so a failed entry never appears
//     under its final name; the other entries are still extracted;
//   - modification times and permission bits are restored, masked by the
//     process umask unless WithPreservePermissions (never setuid or
//     setgid; the sticky bit of a directory only with
//     WithPreservePermissions), never more open than stored (0000 stays
//     0000); directories get their modes and times last, after their
//     entries were written into them. Times of any year are
//     set as stored (never through UnixNano, which wraps outside
//     1678-2262); what the file system cannot hold it clamps to its
//     nearest (ext4: 1901-2446).
//
// The returned *ExtractError names every entry that failed. ctx cancels
// between and during entries; the entry being written is removed, and the
// error is ctx.Err() itself (context.Canceled or DeadlineExceeded, in
// every format and path), not an ExtractError: entries that failed before
// are not listed.
func (a *Archive) Extract(ctx context.Context, dir string, opts ...ExtractOption) error {
	xo, err := buildExtractOptions(opts)
	if err != nil {
		return err
	}
	if err := a.extract(ctx, dir, xo); err != nil {
		return err
	}
	return incomplete(a.a) // a cut archive: its entries were extracted
}

func (a *Archive) extract(ctx context.Context, dir string, xo *extractOptions) error {
	ents := a.Entries()
	last := len(ents) - 1
	if xo.filter != nil {
		// Stop after the last chosen entry: in a solid archive nothing
		// after it is decoded.
		for last >= 0 && !xo.filter(ents[last]) {
			last--
		}
	}
	// Judge what the chosen entries declare before writing anything.
	total, files := declaredTotal(ents[:last+1], xo.filter, writesData)
	if err := a.checkDeclaredTotal(total); err != nil {
		return err
	}
	if free, ok := xo.spaceOf(dir); ok {
		if err := checkSpace(dir, total, declaredNeed(total, files), free); err != nil {
			return err
		}
	}
	x, err := newExtractor(ctx, dir, a.opts, xo)
	if err != nil {
		return err
	}
	if c, ok := a.view.(engine.EntryChecker); ok {
		x.check = func(e *Entry) error { return c.CheckEntry(e.Index) }
	}
	if x.xo.filter != nil {
		x.unselected = func(name string, before int) func() (io.ReadCloser, error) {
			for i := before - 1; i >= 0; i-- {
				if t := ents[i]; t.Name == name && t.Link == LinkNone && !t.IsDir() {
					if x.xo.filter(t) {
						return nil // chosen: the link refers to what was written
					}
					return func() (io.ReadCloser, error) { return a.OpenEntry(t) }
				}
			}
			return nil
		}
	}
	if p, ok := a.parallelPlan(ents[:last+1], x.xo.filter); ok {
		return a.extractParallel(ctx, x, ents[:last+1], p)
	}
	for _, e := range ents[:last+1] {
		if x.xo.filter != nil && !x.xo.filter(e) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return x.finish(err)
		}
		x.entry(e, func() (io.ReadCloser, error) { return a.OpenEntry(e) })
		if x.aborted || a.acct.exhausted() != nil {
			// A callback said stop, or the archive's output budget is
			// spent (MaxTotalSize, MaxRatio): no later entry can be written.
			return x.finish(nil)
		}
	}
	return x.finish(nil)
}

// Extract writes every remaining entry of the stream (or those
// WithFilter keeps) into dir with the same safety rules and options as
// Archive.Extract. A hard link can only refer to a file extracted earlier
// in the same call.
//
// A compressed tarball's checksum (a gzip member's CRC-32, an xz block's
// check) covers many entries and is read only where the member or block
// ends, after them. Extract therefore keeps the files of such a stream
// under temporary names until the stream was read to its end: if a check
// fails, each of them is removed and its entry fails with ErrChecksum (a
// failed entry never stays under its final name); if the stream breaks
// otherwise (truncated, corrupt), the files decoded whole before the
// damage are put in place and the damage is reported. At most 1024 files
// wait at once; older ones are put in place unverified, and removed again
// if a check then fails.
func (r *Reader) Extract(ctx context.Context, dir string, opts ...ExtractOption) error {
	xo, err := buildExtractOptions(opts)
	if err != nil {
		return err
	}
	x, err := newExtractor(ctx, dir, r.opts, xo)
	if err != nil {
		return err
	}
	x.stream = true
	x.acct = r.acct
	x.holdFiles = streamChecked(r.r)
	free, checkFree := xo.spaceOf(dir)
	var decl, need int64 // declared bytes of the entries so far, and declaredNeed of them
	for {
		if err := ctx.Err(); err != nil {
			return x.finish(err)
		}
		e, err := r.Next()
		if err == io.EOF {
			x.release(nil) // the stream's checks all passed
			x.applyDirectory(r)
			return x.finish(nil)
		}
		if err != nil {
			x.release(err)
			return x.finish(err) // the stream cannot go on past a broken header
		}
		if x.xo.filter != nil && !x.xo.filter(e) {
			continue
		}
		// A stream declares its sizes one entry at a time: judge each
		// before decoding it. A refusal ends the extraction, as a spent
		// budget does (going on would decode the entry to skip it).
		if e.Size >= 0 && writesData(e) {
			if err := r.checkDeclaredEntry(e); err != nil {
				x.fail(e, err)
				return x.finish(nil)
			}
			decl, need = satAdd(decl, e.Size), satAdd(need, declaredNeed(e.Size, 1))
			if checkFree {
				if err := checkSpace(dir, decl, need, free); err != nil {
					x.fail(e, err)
					return x.finish(nil)
				}
			}
		}
		x.entry(e, func() (io.ReadCloser, error) { return io.NopCloser(r), nil })
		if x.aborted {
			return x.finish(nil)
		}
	}
}

// specialModes are the file types Extract never creates.
const specialModes = fs.ModeDevice | fs.ModeCharDevice | fs.ModeNamedPipe | fs.ModeSocket | fs.ModeIrregular

// made says what this Extract call put at a path.
type made uint8

const (
	madeNothing made = iota
	madeDir
	madeFile // a regular file (also a hard link to one)
	madeLink // a symlink
)

type dirMeta struct {
	rel   string
	mode  fs.FileMode
	mtime time.Time
}

type extractor struct {
	ctx     context.Context
	root    *os.Root
	opts    *options        // the Archive's or Reader's: limits
	xo      *extractOptions // this call's
	umask   fs.FileMode
	aborted bool // a password callback returned an error: stop after this entry
	// cancelled: an entry failed because ctx was cancelled.
	cancelled bool
	omitted   int // failures past maxExtractErrors
	dirs      []dirMeta
	mine      map[string]made   // what this call created, by '/'-path inside root
	placed    map[string]string // entry path -> path it was written to, when renamed
	// kept: paths whose entry was not written because something existed
	// there: skipped (OverwriteSkip) or refused (OverwriteError).
	kept   map[string]Overwrite
	errs   []*EntryError
	total  int64
	stream bool // entries come from a forward-only Reader
	// acct is the Reader's output account: file copies written from an
	// already extracted file are output too (MaxTotalSize, MaxRatio).
	acct *account
	// cur is a handle on the current entry's parent directory (curDir
	// inside root), opened after its path was checked: operations on
	// names in it take one component instead of a walk from the root.
	cur    *os.Root
	curDir string
	// unselected opens the data of the regular file called name before
	// entry index before, when the filter left it out (so a hard link to
	// it is written as a copy); nil otherwise.
	unselected func(name string, before int) func() (io.ReadCloser, error)
	// stage is the current entry's data decoded ahead by a parallel
	// Extract (extract_parallel.go), or nil: decode it now.
	stage *staged
	// streamed: regular files written from a stream, entry path -> where,
	// for what a ZIP central directory says after them (stream_links.go).
	streamed map[string]streamedFile
	// holdFiles: files wait under temporary names for the stream's check
	// (extract_hold.go); held by destination, holding in entry order,
	// early those put in place unverified past maxHeld.
	holdFiles bool
	held      map[string]*heldFile
	holding   []*heldFile
	early     []*heldFile
	// check checks an entry of an Archive opened from an index against
	// the archive before anything is made for it (engine.EntryChecker), or
	// is nil.
	check func(*Entry) error
}

func newExtractor(ctx context.Context, dir string, o *options, xo *extractOptions) (*extractor, error) {
	if dir == "" {
		dir = "."
	}
	// The destination itself is the caller's choice: create it by path,
	// then do everything else relative to a handle on it.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	x := &extractor{ctx: ctx, root: root, opts: o, xo: xo, mine: map[string]made{}, placed: map[string]string{}, kept: map[string]Overwrite{}}
	if !xo.preserve {
		x.umask = processUmask()
	}
	return x, nil
}

// extractHook, set by tests only, is called between extraction steps
// (to change the destination under a running Extract).
var extractHook func(stage, rel string)

func (x *extractor) hook(stage, rel string) {
	if extractHook != nil {
		extractHook(stage, rel)
	}
}

// dirOf is path.Dir for a clean relative path, without allocating.
func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// on returns the handle and name for rel: the current parent directory's
// handle and the base name when rel is in it, else the root and rel.
func (x *extractor) on(rel string) (*os.Root, string) {
	if x.cur != nil && dirOf(rel) == x.curDir {
		if x.curDir == "." {
			return x.cur, rel
		}
		return x.cur, rel[len(x.curDir)+1:]
	}
	return x.root, rel
}

// openParent opens the handle on rel's parent directory for the entry.
func (x *extractor) openParent(rel string) error {
	d := dirOf(rel)
	if d == "." {
		x.cur, x.curDir = x.root, d
		return nil
	}
	r, err := x.root.OpenRoot(d)
	if err != nil {
		return fsErr(err)
	}
	x.cur, x.curDir = r, d
	return nil
}

func (x *extractor) closeParent() {
	if x.cur != nil && x.cur != x.root {
		x.cur.Close()
	}
	x.cur, x.curDir = nil, ""
}

func (x *extractor) fail(e *Entry, err error) {
	var ee *EntryError
	if !errors.As(err, &ee) || ee.Entry != e.Name {
		ee = &EntryError{Entry: e.Name, Err: err}
	}
	if len(x.errs) < maxExtractErrors {
		x.errs = append(x.errs, ee)
	} else {
		x.omitted++
	}
	if errors.Is(err, ErrAborted) {
		x.aborted = true // the password callback said stop: no more entries
	}
	if cerr := x.ctx.Err(); cerr != nil && errors.Is(err, cerr) {
		x.cancelled = true
	}
	if x.xo.progress != nil {
		x.xo.progress(Progress{Entry: e, TotalWritten: x.total, Done: true})
	}
}

// finish applies directory times and modes (deepest first, after their
// contents were written), closes the root and assembles the error.
func (x *extractor) finish(fatal error) error {
	if x.ctx.Err() != nil || x.aborted {
		x.dropHeld() // stopped: nothing unverified is put in place
	} else {
		x.release(fatal) // what holds if nothing did yet (a limit ended it)
	}
	slices.SortStableFunc(x.dirs, func(a, b dirMeta) int {
		return strings.Count(b.rel, "/") - strings.Count(a.rel, "/")
	})
	for _, d := range x.dirs {
		// Only a directory this call made, and still a directory (not
		// swapped for a link since).
		if st, err := x.root.Lstat(d.rel); err != nil || !st.IsDir() {
			continue
		}
		x.root.Chmod(d.rel, d.mode)
		if !d.mtime.IsZero() {
			chtimes(x.root, d.rel, d.mtime)
		}
	}
	x.root.Close()
	if cerr := x.ctx.Err(); cerr != nil && (x.cancelled || errors.Is(fatal, cerr)) {
		// Stopped by ctx: that is the error, whatever the format and
		// wherever it struck (between entries, in one, in a decoder).
		return cerr
	}
	if fatal != nil {
		if len(x.errs) == 0 {
			return fatal
		}
		var ee *EntryError
		if errors.As(fatal, &ee) {
			if !slices.ContainsFunc(x.errs, func(f *EntryError) bool { return f.Entry == ee.Entry && errors.Is(f.Err, ee.Err) }) &&
				!sameClass(x.errs[len(x.errs)-1], ee) {
				x.errs = append(x.errs, ee) // not an entry's failure twice
			}
		} else if !slices.ContainsFunc(x.errs, func(f *EntryError) bool { return sameFailure(f.Err, fatal) }) {
			// A sticky error (a limit tripped in an entry, a stream
			// cut in one) also ends the archive: it is that entry's.
			x.errs = append(x.errs, &EntryError{Entry: "(archive)", Err: fatal})
		}
	}
	if len(x.errs) == 0 {
		return nil
	}
	return &ExtractError{Errors: x.errs, Omitted: x.omitted}
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
	case strings.ContainsRune(name, '\\') && backslashEscapes(name):
		return bad("leaves the destination if '\\' is a separator")
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

// backslashEscapes reports whether name, read with '\' as a path
// separator, is absolute, has a drive letter or a ".." component. A
// format decides what a backslash is (ZIP: a separator for MS-DOS and
// Windows hosts, which the zip package converts, a literal byte for
// Unix ones); a name that keeps one is extracted with it as a literal
// character on Unix, and refused if the other reading, that of Windows
// or of another tool, would climb out.
func backslashEscapes(name string) bool {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || len(n) >= 2 && n[1] == ':' && isLetter(n[0]) {
		return true
	}
	for _, c := range strings.Split(n, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

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

// checkNameLimits applies MaxNameLength and MaxPathDepth before anything
// of the entry is created.
func (x *extractor) checkNameLimits(e *Entry, rel string) error {
	lim := &x.opts.bounds
	if n := int64(len(e.Name)); n > lim.MaxNameLength {
		return errs.Limit("name of %d bytes is over MaxNameLength (%d)", n, lim.MaxNameLength)
	}
	if d := int64(strings.Count(rel, "/") + 1); d > lim.MaxPathDepth {
		return errs.Limit("path of %d components is over MaxPathDepth (%d)", d, lim.MaxPathDepth)
	}
	return nil
}

// kindName names what a mode is, for conflict messages.
func kindName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// conflict is the error of a path already taken by something the user
// had (or the archive made) that Extract will not replace.
func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", fs.ErrExist, fmt.Sprintf(format, args...))
}

// fsErr makes a file-system refusal readable; ENAMETOOLONG is kept
// matchable (errors.Is(err, syscall.ENAMETOOLONG)).
func fsErr(err error) error {
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return fmt.Errorf("name too long for the destination file system: %w", err)
	}
	return err
}

// prepareParents makes the directories above rel, refusing to pass
// through a symlink or a non-directory.
func (x *extractor) prepareParents(rel string) error {
	for i := 0; ; {
		j := strings.IndexByte(rel[i:], '/')
		if j < 0 {
			return nil
		}
		p := rel[:i+j]
		i += j + 1
		if x.mine[p] == madeDir {
			continue // made by this call; os.Root still refuses it if swapped for a link
		}
		if err := x.ensureDir(p); err != nil {
			return err
		}
	}
}

func (x *extractor) ensureDir(p string) error {
	st, err := x.root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		err = x.root.Mkdir(p, 0o755)
		if err == nil {
			x.mine[p] = madeDir
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return fsErr(err)
		}
		st, err = x.root.Lstat(p) // created meanwhile: look again
	}
	switch {
	case err != nil:
		return fsErr(err)
	case st.IsDir():
		return nil
	case st.Mode()&fs.ModeSymlink != 0 && x.mine[p] == madeLink:
		return fmt.Errorf("%w: parent %q is a symlink from the archive", errs.ErrInsecurePath, p)
	}
	return conflict("parent %q is %s, not a directory (not followed or replaced)", p, kindName(st.Mode()))
}

// perm is the final mode of e's file or directory: never more open than
// the archive says, 0000 included (the formats give 0644/0755 themselves
// where they store no mode). The umask applies unless
// WithPreservePermissions; then a directory keeps its sticky bit (a
// shared 01777 directory stays one). Setuid and setgid are never set.
// Directories are made usable (0755) while their entries are written,
// and get this mode at the end, deepest first, as GNU tar does.
func (x *extractor) perm(e *Entry, dir bool) fs.FileMode {
	p := e.Mode.Perm() &^ x.umask
	if dir && x.xo.preserve {
		p |= e.Mode & fs.ModeSticky
	}
	return p
}

func (x *extractor) entry(e *Entry, open func() (io.ReadCloser, error)) {
	if x.check != nil {
		if err := x.check(e); err != nil {
			x.fail(e, err)
			return
		}
	}
	rel, err := localName(e.Name)
	if err != nil {
		x.fail(e, err)
		return
	}
	if rel == "" { // the destination itself: only a directory may name it
		if !e.IsDir() || e.Link != LinkNone {
			x.fail(e, fmt.Errorf("%w: %q names the destination itself and is no directory", errs.ErrInsecurePath, e.Name))
		}
		return
	}
	if err := x.checkNameLimits(e, rel); err != nil {
		x.fail(e, err)
		return
	}
	x.hook("entry", rel)
	if err := x.prepareParents(rel); err != nil {
		x.fail(e, err)
		return
	}
	x.hook("create", rel)
	if err := x.openParent(rel); err != nil {
		x.fail(e, err)
		return
	}
	defer x.closeParent()
	switch {
	case e.Mode&specialModes != 0:
		// Device nodes, FIFOs and sockets (tar) are listed but never
		// created: the entry is skipped, said through Progress.Skipped.
		if x.xo.progress != nil {
			x.xo.progress(Progress{Entry: e, TotalWritten: x.total, Done: true, Skipped: "a device node, FIFO or socket is not created"})
		}
	case e.IsDir() && e.Link == LinkNone:
		err = x.dir(e, rel)
	case e.Link == LinkSymlink || e.Link == LinkJunction:
		target := e.LinkTarget
		switch {
		case target == "" && x.stage != nil:
			// Read ahead by a worker; charged to the archive now.
			target, err = x.stage.target, x.stage.openErr
			if cerr := x.stage.acct.commit(); err == nil {
				err = cerr
			}
		case target == "":
			// The format could not read the target up front (encrypted,
			// or an unsupported method): reading it says why.
			target, err = readLinkTarget(open)
		}
		if err == nil {
			err = x.symlink(e, target, rel)
		}
	case e.Link == LinkHardlink:
		err = x.hardlink(e, rel)
	case e.Link == LinkCopy && x.stream:
		// A forward-only stream cannot go back for the source's data:
		// copy the file this call already extracted.
		err = x.file(e, rel, func() (io.ReadCloser, error) { return x.openExtracted(e, open) })
	case x.stage != nil:
		err = x.fileStaged(e, rel, x.stage)
	default:
		err = x.file(e, rel, open)
	}
	if err != nil {
		x.fail(e, err)
	}
}

func (x *extractor) dir(e *Entry, rel string) error {
	x.unhold(rel)
	d, name := x.on(rel)
	err := d.Mkdir(name, 0o755)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fsErr(err)
	}
	if err != nil {
		st, lerr := d.Lstat(name)
		switch {
		case lerr != nil:
			return fsErr(lerr)
		case st.IsDir() && x.mine[rel] != madeDir:
			return nil // the user's directory: merge into it, leave its mode and times
		case st.IsDir():
		case x.mine[rel] == madeFile || x.mine[rel] == madeLink:
			// An earlier entry of this archive: the later one wins.
			if err := d.Remove(name); err != nil {
				return fsErr(err)
			}
			if err := d.Mkdir(name, 0o755); err != nil {
				return fsErr(err)
			}
		default:
			return conflict("it is %s; a directory is not put in its place", kindName(st.Mode()))
		}
	}
	x.mine[rel] = madeDir
	x.dirs = append(x.dirs, dirMeta{rel, x.perm(e, true), e.Modified})
	return nil
}

// errSkip marks an entry the overwrite policy skipped.
var errSkip = errors.New("skipped")

// destination decides where a non-directory entry goes: rel itself, or a
// free name beside it (OverwriteRename). replace says an existing regular
// file at the result may be replaced. errSkip means leave it.
func (x *extractor) destination(e *Entry, rel string) (dst string, replace bool, err error) {
	x.unhold(rel) // a later entry of the same path replaces a held file
	d, name := x.on(rel)
	st, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return rel, false, nil
	}
	if err != nil {
		return "", false, fsErr(err)
	}
	if m := x.mine[rel]; m != madeNothing {
		if st.IsDir() {
			return "", false, conflict("an earlier entry made a directory there")
		}
		return rel, true, nil // an earlier entry of this archive: the later one wins
	}
	// Regular files and symlinks are what a policy may replace or keep;
	// a symlink is replaced as a file is (rename over the link itself),
	// never followed.
	replaceable := st.Mode().IsRegular() || st.Mode()&fs.ModeSymlink != 0
	policy := x.xo.overwrite
	if x.xo.conflict != nil && (replaceable || policy == OverwriteRename) {
		policy = x.xo.conflict(e, rel, st)
	}
	switch {
	case policy == OverwriteRename:
		dst, err := x.freeName(rel)
		return dst, false, err
	case !replaceable:
		x.kept[rel] = OverwriteError
		return "", false, conflict("it is %s; not replaced", kindName(st.Mode()))
	case policy == OverwriteSkip:
		x.kept[rel] = OverwriteSkip
		return "", false, errSkip
	case policy == OverwriteAlways:
		return rel, true, nil
	}
	x.kept[rel] = OverwriteError
	return "", false, conflict("not overwritten (overwrite policy: error)")
}

// freeName finds name_N.ext that nothing occupies, as 7-Zip -aou does.
func (x *extractor) freeName(rel string) (string, error) {
	dir, base := path.Split(rel)
	stem, ext := base, ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		stem, ext = base[:i], base[i:]
	}
	for n := 1; n < 10000; n++ {
		c := fmt.Sprintf("%s%s_%d%s", dir, stem, n, ext)
		if d, n := x.on(c); !lexists(d, n) && x.mine[c] == madeNothing {
			return c, nil
		}
	}
	return "", conflict("no free name beside it")
}

var tempSeq atomic.Uint64

// tempPrefix starts every temporary name: ".unarc-PID-".
var tempPrefix = ".unarc-" + strconv.Itoa(os.Getpid()) + "-"

// tempBase returns a fresh temporary base name (".unarc-PID-N.tmp").
func tempBase() string {
	var b [48]byte
	n := append(append(b[:0], tempPrefix...), strconv.FormatUint(tempSeq.Add(1), 10)...)
	return string(append(n, ".tmp"...))
}

// createTemp makes an exclusive temporary file beside rel.
func (x *extractor) createTemp(rel string) (*os.File, string, error) {
	dir := path.Dir(rel)
	for {
		tmp := path.Join(dir, tempBase())
		d, name := x.on(tmp)
		f, err := d.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", fsErr(err)
		}
		return f, tmp, nil
	}
}

// fillTemp copies src through w (f, or a writer over it) into f, the
// new temporary file tmp, gives it e's mode, closes it and sets e's
// modification time; on failure it removes tmp.
func (x *extractor) fillTemp(f *os.File, tmp string, e *Entry, w io.Writer, src io.Reader) error {
	_, err := io.Copy(w, src)
	if err == nil {
		err = f.Chmod(x.perm(e, false))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.remove(tmp)
		return err
	}
	if !e.Modified.IsZero() {
		d, name := x.on(tmp)
		chtimes(d, name, e.Modified)
	}
	return nil
}

func (x *extractor) tempLinkName(rel string) string {
	return path.Join(path.Dir(rel), tempBase())
}

// place moves the finished temporary tmp to dst. Without replace it
// never clobbers: a hard link fails if dst appeared meanwhile. With
// replace, rename swaps it in atomically (rename never follows a link at
// dst), but only over a regular file.
func (x *extractor) place(tmp, dst string, replace bool) error {
	d, tn := x.on(tmp)
	dd, dn := x.on(dst)
	if d != dd {
		d, tn, dn = x.root, tmp, dst
	}
	if !replace {
		err := d.Link(tn, dn)
		if err == nil {
			d.Remove(tn)
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			d.Remove(tn)
			return conflict("appeared while extracting; not replaced")
		}
		// No hard links here (some file systems): fall back to a check
		// and a rename.
		if lexists(d, dn) {
			d.Remove(tn)
			return conflict("appeared while extracting; not replaced")
		}
	} else if st, err := d.Lstat(dn); err == nil && !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 && x.mine[dst] == madeNothing {
		d.Remove(tn)
		return conflict("it is %s; not replaced", kindName(st.Mode()))
	} else if err == nil && st.IsDir() {
		d.Remove(tn)
		return conflict("it is a directory; not replaced")
	}
	if err := d.Rename(tn, dn); err != nil {
		d.Remove(tn)
		return fsErr(err)
	}
	if replace {
		// rename does nothing when both names are links to one file (a
		// hard link put over itself): the temporary name must go anyway.
		d.Remove(tn)
	}
	return nil
}

// lexists reports whether name exists in d (without following it).
func lexists(d *os.Root, name string) bool {
	_, err := d.Lstat(name)
	return !errors.Is(err, fs.ErrNotExist)
}

func (x *extractor) remove(rel string) {
	d, name := x.on(rel)
	d.Remove(name)
}

func readLinkTarget(open func() (io.ReadCloser, error)) (string, error) {
	rc, err := open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	return meta.ReadLinkTarget(rc)
}

// linkSlot is where a link entry is made: its final path dst, the
// temporary name tmp it is created under (place then moves it to dst),
// and whether it replaces what is there. ok is false when the entry is
// not to be made: skipped by the overwrite policy (err nil) or refused.
func (x *extractor) linkSlot(e *Entry, rel string) (dst, tmp string, replace, ok bool, err error) {
	dst, replace, err = x.destination(e, rel)
	if err == errSkip {
		return "", "", false, false, nil
	}
	if err != nil {
		return "", "", false, false, err
	}
	return dst, x.tempLinkName(dst), replace, true, nil
}

func (x *extractor) symlink(e *Entry, target, rel string) error {
	if e.Link == LinkJunction {
		return fmt.Errorf("%w: %q: junctions are not extracted", errs.ErrInsecurePath, e.Name)
	}
	if err := checkLinkTarget(rel, target); err != nil {
		return err
	}
	if x.sameLink(rel, target) {
		return nil
	}
	dst, tmp, replace, ok, err := x.linkSlot(e, rel)
	if !ok {
		return err
	}
	if d, name := x.on(tmp); true {
		err = d.Symlink(target, name)
	}
	if err != nil {
		return fsErr(err)
	}
	if !e.Modified.IsZero() {
		lchtimes(x.root, tmp, e.Modified)
	}
	if err := x.place(tmp, dst, replace); err != nil {
		return err
	}
	x.mine[dst] = madeLink
	x.record(rel, dst)
	return nil
}

// sameLink reports whether rel already is, before this call touched it,
// the symlink the entry would make (an earlier extraction's): it is then
// kept as it is and counts as this call's link, under every policy but
// OverwriteAlways, which replaces it as it replaces a file.
func (x *extractor) sameLink(rel, target string) bool {
	if x.mine[rel] != madeNothing || x.xo.overwrite == OverwriteAlways {
		return false
	}
	d, name := x.on(rel)
	st, err := d.Lstat(name)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	if t, err := d.Readlink(name); err != nil || t != target {
		return false
	}
	x.mine[rel] = madeLink
	x.record(rel, rel)
	return true
}

func (x *extractor) record(rel, dst string) {
	if dst != rel {
		x.placed[rel] = dst
	} else {
		delete(x.placed, rel)
	}
}

// extracted returns where this call wrote the regular file of entry path
// name, or "" if it did not.
func (x *extractor) extracted(name string) string {
	target, err := localName(name)
	if err != nil || target == "" {
		return ""
	}
	if p, ok := x.placed[target]; ok {
		target = p
	}
	if x.mine[target] != madeFile {
		return ""
	}
	if st, err := x.root.Lstat(target); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return target
}

func (x *extractor) hardlink(e *Entry, rel string) error {
	if _, err := localName(e.LinkTarget); err != nil {
		return fmt.Errorf("%w: hard link %q -> %q", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	// A held target is linked now and held with it (what is under its
	// final name meanwhile may be the file it is to replace).
	src := x.heldTemp(e.LinkTarget)
	held := src != ""
	if !held {
		src = x.extracted(e.LinkTarget)
	}
	if src == "" && x.unselected != nil {
		if open := x.unselected(e.LinkTarget, e.Index); open != nil {
			// The filter left the target out: write its data here instead.
			return x.file(e, rel, open)
		}
	}
	if src == "" {
		kept, note, err := x.keptTarget(e.LinkTarget)
		if err != nil {
			return err
		}
		if note != "" {
			if x.xo.progress != nil {
				x.xo.progress(Progress{Entry: e, TotalWritten: x.total, Done: true, Skipped: note})
			}
			return nil
		}
		src = kept
	}
	if src == "" {
		return fmt.Errorf("%w: hard link %q -> %q: target is not a file extracted before it", errs.ErrInsecurePath, e.Name, e.LinkTarget)
	}
	dst, tmp, replace, ok, err := x.linkSlot(e, rel)
	if !ok {
		return err
	}
	if err := x.root.Link(src, tmp); err != nil {
		return fsErr(err)
	}
	if held {
		x.hold(e, tmp, dst, replace)
	} else if err := x.place(tmp, dst, replace); err != nil {
		return err
	}
	x.mine[dst] = madeFile
	x.record(rel, dst)
	return nil
}

// keptTarget is where a hard link goes whose target entry was not
// written because its path existed. Skipped (OverwriteSkip): the path,
// when it is a regular file (the link is made to what is there), else a
// note saying why the link is skipped instead (a symlink there is never
// followed). Refused (a conflict): the link fails as a conflict too, not
// as an unsafe link. All empty when the target did not exist.
func (x *extractor) keptTarget(name string) (src, note string, err error) {
	rel, err := localName(name)
	if err != nil {
		return "", "", nil
	}
	switch p, ok := x.kept[rel]; {
	case !ok:
		return "", "", nil
	case p != OverwriteSkip:
		return "", "", conflict("its target %q existed and was not replaced", name)
	}
	if st, err := x.root.Lstat(rel); err == nil && st.Mode().IsRegular() {
		return rel, "", nil
	}
	return "", "the link's target was kept as it was, and is not a regular file", nil
}

// openExtracted opens the file an earlier entry of this call wrote, for a
// file-copy entry (RAR5) read from a stream.
func (x *extractor) openExtracted(e *Entry, open func() (io.ReadCloser, error)) (io.ReadCloser, error) {
	// The format says first whether the copy is valid at all (a copy of
	// an entry the stream never had is corrupt).
	rc, err := open()
	if err != nil {
		return nil, err
	}
	var one [1]byte
	_, err = rc.Read(one[:])
	rc.Close()
	if errors.Is(err, errs.ErrCorrupt) {
		return nil, err
	}
	src := x.extracted(e.LinkTarget)
	if src == "" {
		return nil, fmt.Errorf("file copy of %q: the source was not extracted in this call, and a stream cannot go back for it: %w", e.LinkTarget, fs.ErrNotExist)
	}
	f, err := x.root.Open(src)
	if err != nil {
		return nil, err
	}
	return &chargedFile{f: f, acct: x.acct, declared: e.Size >= 0}, nil
}

// chargedFile reads a copy's source file, charging the Reader's account:
// a copy produces output without consuming input.
type chargedFile struct {
	f        *os.File
	acct     *account
	declared bool // the copy's size is declared (it counts toward MaxTotalSize only)
}

func (c *chargedFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	if cerr := c.acct.charge(n, c.declared); cerr != nil {
		return n, cerr
	}
	return n, err
}

func (c *chargedFile) Close() error { return c.f.Close() }

// writeCtx writes p to w unless ctx is done: the check of every write
// of an extraction, sequential (ctxWriter) or staged (stageWriter).
func writeCtx(ctx context.Context, w io.Writer, p []byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return w.Write(p)
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
	n, err := writeCtx(c.ctx, c.w, p)
	c.n += int64(n)
	c.x.total += int64(n)
	if c.x.xo.progress != nil {
		c.x.xo.progress(Progress{Entry: c.e, EntryWritten: c.n, TotalWritten: c.x.total})
	}
	return n, err
}

func (x *extractor) file(e *Entry, rel string, open func() (io.ReadCloser, error)) error {
	dst, replace, err := x.destination(e, rel)
	if err == errSkip {
		return nil
	}
	if err != nil {
		return err
	}
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	f, tmp, err := x.createTemp(dst)
	if err != nil {
		return err
	}
	cw := &ctxWriter{ctx: x.ctx, w: f, x: x, e: e}
	if err := x.fillTemp(f, tmp, e, cw, rc); err != nil {
		return fsErr(err)
	}
	if x.holdFiles {
		x.hold(e, tmp, dst, replace)
	} else if err := x.place(tmp, dst, replace); err != nil {
		return err
	}
	x.mine[dst] = madeFile
	x.record(rel, dst)
	if x.stream && e.Link == LinkNone {
		x.noteStreamed(rel, dst, cw.n)
	}
	if x.xo.progress != nil {
		x.xo.progress(Progress{Entry: e, EntryWritten: cw.n, TotalWritten: x.total, Done: true})
	}
	return nil
}

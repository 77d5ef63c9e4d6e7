package unarc

import (
	"io"

	"github.com/go-unarc/unarc/arc"
)

// A forward-only ZIP stream learns Unix modes, and so which entries are
// symlinks, only from the central directory after the last entry. Reader
// Extract therefore writes every entry as it comes and, at the end,
// applies what the directory says to what it wrote:
//
//   - a regular file the directory calls a symlink becomes one: its
//     content (at most maxStreamLink bytes) is the target, checked like
//     any link target; an unsafe target removes the file this call wrote
//     and fails the entry with ErrInsecurePath;
//   - permission bits of files and directories this call made are set
//     from the directory (umask applied as usual).
//
// What a stream still cannot tell: while it is being read, an entry that
// will be a symlink is a regular file, so a later entry under it is
// refused as a conflict (not as an unsafe path); if the stream ends
// before its directory (truncated), symlinks stay regular files holding
// their target and modes stay 0644/0755; entries the filter skipped or
// that failed are not fixed up; a symlink whose target is larger than
// maxStreamLink stays a file. Local ASi extra fields (0x756e) give the
// mode up front, and those entries are right from the start.

// maxStreamLink is the largest file a directory can turn into a symlink.
const maxStreamLink = 4 << 10

type streamedFile struct {
	dst  string
	size int64
}

func (x *extractor) noteStreamed(rel, dst string, size int64) {
	if x.streamed == nil {
		x.streamed = map[string]streamedFile{}
	}
	x.streamed[rel] = streamedFile{dst, size}
}

// directoryReader is a stream format that can read its trailing index.
type directoryReader interface {
	Directory() ([]*arc.Entry, error)
}

func (x *extractor) applyDirectory(r *Reader) {
	dr, ok := r.r.(directoryReader)
	if !ok {
		return
	}
	ents, err := dr.Directory()
	if err != nil {
		x.fail(&Entry{Name: "(central directory)"}, err)
	}
	dirs := map[string]int{}
	for i, d := range x.dirs {
		dirs[d.rel] = i
	}
	for _, e := range ents {
		rel, err := localName(e.Name)
		if err != nil || rel == "" {
			continue
		}
		if i, ok := dirs[rel]; ok && e.IsDir() && e.Mode.Perm() != 0 {
			x.dirs[i].mode = x.perm(e, true)
			continue
		}
		sf, ok := x.streamed[rel]
		if !ok || x.mine[sf.dst] != madeFile {
			continue
		}
		if e.Link == LinkSymlink {
			if err := x.fileToLink(e, rel, sf); err != nil {
				x.fail(e, err)
			}
			continue
		}
		if !e.IsDir() && e.Mode.Perm() != 0 {
			if st, err := x.root.Lstat(sf.dst); err == nil && st.Mode().IsRegular() {
				x.root.Chmod(sf.dst, x.perm(e, false))
			}
		}
	}
}

// fileToLink replaces the regular file this call wrote for a streamed
// entry with the symlink the central directory says it is.
func (x *extractor) fileToLink(e *Entry, rel string, sf streamedFile) error {
	if sf.size > maxStreamLink {
		return nil // not plausibly a link target: leave the file
	}
	f, err := x.root.Open(sf.dst)
	if err != nil {
		return fsErr(err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStreamLink+1))
	f.Close()
	if err != nil {
		return err
	}
	target := string(b)
	if err := checkLinkTarget(rel, target); err != nil {
		x.root.Remove(sf.dst) // ours; an unsafe link is not left as a file either
		delete(x.mine, sf.dst)
		return err
	}
	tmp := x.tempLinkName(sf.dst)
	if err := x.root.Symlink(target, tmp); err != nil {
		return fsErr(err)
	}
	if !e.Modified.IsZero() {
		lchtimes(x.root, tmp, e.Modified)
	}
	if err := x.place(tmp, sf.dst, true); err != nil {
		return err
	}
	x.mine[sf.dst] = madeLink
	return nil
}

package main

import (
	archivetar "archive/tar"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-unarc/unarc/tar"
)

// tarSuffixes name the tarballs unarc a writes, by the archive's name
// or by -t.
var tarSuffixes = []struct {
	suffix string
	comp   tar.Compression
}{
	{".tar", tar.None},
	{".tar.gz", tar.Gzip}, {".tgz", tar.Gzip},
	{".tar.zst", tar.Zstd}, {".tzst", tar.Zstd},
	{".tar.xz", tar.XZ}, {".txz", tar.XZ},
	{".tar.lz", tar.Lzip}, {".tlz", tar.Lzip},
}

// tarTarget says whether unarc a writes a tarball, and with which
// compressor: -t (tar, tar.gz, tgz, …; 7z for a 7z archive) or else
// the archive's name.
func tarTarget(archive, typ string) (tar.Compression, bool, error) {
	typ = strings.ToLower(typ)
	switch typ {
	case "":
		name := strings.ToLower(archive)
		for _, s := range tarSuffixes {
			if strings.HasSuffix(name, s.suffix) {
				return s.comp, true, nil
			}
		}
		return 0, false, nil
	case "7z", "zip":
		return 0, false, nil
	}
	for _, s := range tarSuffixes {
		if "."+typ == s.suffix {
			if s.comp == tar.None {
				// -t tar: the compressor, if any, from the name.
				if c, ok, _ := tarTarget(archive, ""); ok {
					return c, true, nil
				}
			}
			return s.comp, true, nil
		}
	}
	return 0, false, fmt.Errorf("-t %s: want 7z, zip, tar, tar.gz, tar.zst, tar.xz or tar.lz", typ)
}

// addTar is unarc a for a tarball: the paths are walked as for 7z
// (stored relative to their parent, symlinks as links), each file
// stored with archive/tar's header for it.
func (c *cli) addTar(fl *flag.FlagSet, archive string, paths []string, comp tar.Compression, level, threads int, follow, quiet bool) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "unarc a: "+format+"\n(unarc -h for help)\n", a...)
		return 1
	}
	var bad []string
	opts := []tar.WriterOption{tar.WithCompression(comp), tar.WithThreads(threads)}
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "l":
			opts = append(opts, tar.WithLevel(level))
		case "p", "he", "m", "md", "ms", "mf", "v":
			bad = append(bad, "-"+f.Name)
		}
	})
	if len(bad) > 0 {
		return fail("%s: not for a tar archive (7z only)", strings.Join(bad, ", "))
	}
	if level < 0 || level > 9 {
		return fail("-l %d: want 0..9", level)
	}
	run, ok := c.startAdd(archive, paths, quiet)
	if !ok {
		return 1
	}
	return run.end(c.writeTar(archive, paths, opts, follow, run.prog, run.fileError))
}

// writeTar writes the tarball (to a temporary name renamed at the end,
// or to standard output for "-").
func (c *cli) writeTar(archive string, paths []string, opts []tar.WriterOption, follow bool, prog *progress, warn func(string, error) error) error {
	var out io.Writer = c.stdout
	finish := func(bool) error { return nil }
	var self os.FileInfo // our own output, never added
	if archive != "-" && archive != "" {
		f, done, err := createArchive(archive)
		if err != nil {
			return err
		}
		self, _ = f.Stat()
		out, finish = f, done
	}
	tw, err := tar.NewWriter(out, opts...)
	if err != nil {
		finish(false)
		return err
	}
	t := &tarTree{tw: tw, self: self, warn: warn, links: map[[2]uint64]string{}}
	for _, p := range paths {
		clean := filepath.Clean(p)
		fsys := progressFS{dirFS(filepath.Dir(clean)), prog, c}
		if err = t.add(fsys, filepath.Base(clean), follow); err != nil {
			break
		}
	}
	if cerr := tw.Close(); err == nil {
		err = cerr
	}
	if ferr := finish(err == nil); err == nil {
		err = ferr
	}
	return err
}

// tarTree adds trees to a tarball.
type tarTree struct {
	tw    *tar.Writer
	self  os.FileInfo // our own output, never added
	warn  func(name string, err error) error
	links map[[2]uint64]string // the first name stored of each file with several
}

// add adds root and what is under it. A file that cannot be stored as
// it is goes to warn, whose error stops the walk.
func (t *tarTree) add(fsys fs.FS, root string, follow bool) error {
	if !follow {
		// fs.WalkDir follows a root symlink (it calls fs.Stat).
		info, err := fs.Lstat(fsys, root)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return t.file(fsys, root, info)
		}
	}
	return fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if d == nil && name == root {
				return err
			}
			return t.warn(name, err)
		}
		info, err := d.Info()
		if err != nil {
			return t.warn(name, err)
		}
		if t.self != nil && os.SameFile(info, t.self) {
			return nil
		}
		return t.file(fsys, name, info)
	})
}

var errTarShrank = fmt.Errorf("the file shrank while it was read: stored with zeros at its end")

// file stores one file: its header from archive/tar's FileInfoHeader
// (type, mode, times, owner), then its contents. A file that shrinks is
// padded with zeros and one that grows cut to its size, as GNU tar does,
// each reported. A second name of a file is stored as a hard link to
// the first.
func (t *tarTree) file(fsys fs.FS, name string, info fs.FileInfo) error {
	tw, warn := t.tw, t.warn
	id, several := linkID(info)
	if first, ok := t.links[id]; several && ok {
		h, err := archivetar.FileInfoHeader(info, "")
		if err != nil {
			return warn(name, err)
		}
		h.Name, h.Typeflag, h.Linkname, h.Size = path.Clean(name), archivetar.TypeLink, first, 0
		return tw.WriteHeader(keepTimes(h))
	}
	var link string
	if info.Mode()&fs.ModeSymlink != 0 {
		var err error
		if link, err = fs.ReadLink(fsys, name); err != nil {
			return warn(name, err)
		}
	}
	var f fs.File
	if info.Mode().IsRegular() {
		var err error
		if f, err = fsys.Open(name); err != nil {
			return warn(name, err)
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			info = st // what the open file is now
		}
	}
	h, err := archivetar.FileInfoHeader(info, link)
	if err != nil {
		return warn(name, err)
	}
	h.Name = path.Clean(name)
	if info.IsDir() {
		h.Name += "/"
	}
	if err := tw.WriteHeader(keepTimes(h)); err != nil {
		return err
	}
	if several {
		t.links[id] = h.Name
	}
	if f == nil {
		return nil
	}
	n, err := io.CopyN(tw, f, h.Size)
	if n < h.Size {
		if _, zerr := io.CopyN(tw, zeros{}, h.Size-n); zerr != nil {
			return zerr
		}
		if err == nil || err == io.EOF {
			err = errTarShrank
		}
		return warn(name, err)
	}
	return nil
}

// keepTimes keeps h's modification time to the nanosecond, as the 7z
// writer keeps it to 100 ns: a PAX record where the second is not whole
// (GNU tar --format=posix writes one for every file). Access and change
// times are left out, as GNU tar's default format leaves them.
func keepTimes(h *archivetar.Header) *archivetar.Header {
	h.AccessTime, h.ChangeTime = time.Time{}, time.Time{}
	if h.ModTime.Nanosecond() != 0 {
		h.Format = archivetar.FormatPAX
	}
	return h
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

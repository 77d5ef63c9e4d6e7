package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-unarc/unarc/sevenzip"
	"github.com/go-unarc/unarc/zip"
)

const addUsage = `add (a):
  unarc a [flags] ARCHIVE PATH…   write a new archive (- for standard output)
  The format follows ARCHIVE's name: .zip writes ZIP; .tar, .tar.gz/.tgz,
  .tar.zst/.tzst, .tar.xz/.txz and .tar.lz/.tlz a tarball (-l and -mt
  apply); anything else (and -) 7z. -t TYPE chooses it whatever the name.
  PATHs are stored relative to their parent directory, as 7zz a stores
  them (a/b/dir is stored as dir/…); symlinks are stored as links (7zz -snl),
  a PATH that is a symlink too unless -H; pipes, sockets and devices are
  stored as 7zz stores them (type and mode, no data).
  An existing ARCHIVE is not replaced: unarc a does not update archives.
  A file that cannot be read is skipped, one that changes while read (size
  or mtime) is stored as read (at most the size it had): each is reported,
  the rest is archived, and unarc a exits 1 (as GNU tar for a changed file).
  -t FORMAT          7z or zip (default: from ARCHIVE's extension)
  -p PASSWORD        encrypt the data with 7zAES (AES-256), for ZIP with
                     WinZip AES-256 (AE-2), or -pPASSWORD; not empty
  -H                 follow symlinks given as PATH (bsdtar -H): store what
                     they point to under their name
  -he                encrypt the headers too (names, sizes); needs -p
  -l LEVEL           compression level 0..9 (default 5; 0 stores); for a
                     tarball the compressor's -0..-9 (default: gzip 6,
                     zstd 3, xz 6, lzip 6)
  -t TYPE            7z, zip, tar, tar.gz, tar.zst, tar.xz or tar.lz,
                     whatever the name (-t tar: compressed as the name says)
  -m METHOD          7z: lzma2 (default), lzma, copy, or the 7-Zip-zstd
                     family's zstd, brotli, lz4 (7-Zip itself cannot read
                     these); ZIP: deflate (default), store, lzma or zstd
  The options below are 7z's only, but -mt.
  -md SIZE           dictionary size (default from the level)
  -ms SIZE|N|off     solid block: at most SIZE bytes (64M) or N files (100f)
                     per block; off = one block per file (default: one block)
  -mf FILTER         auto (default: BCJ/ARM64/ARM for executables), none,
                     x86, arm, armt, arm64, delta:N, swap2, swap4
  -mt N              encoder threads (the archive's bytes do not depend on it;
                     ZIP too: entries compressed in parallel)
  -v SIZE            split into volumes ARCHIVE.001, .002, … of SIZE bytes
  -q                 no progress line
`

// addCmd is `unarc a`.
func (c *cli) add(args []string) int {
	fl := flag.NewFlagSet("unarc a", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		password, method, solid, filter string
		format                          string
		he, quiet, follow               bool
		level, threads                  int
		dict, volume                    int64
	)
	fl.StringVar(&password, "p", "", "")
	fl.BoolVar(&he, "he", false, "")
	fl.BoolVar(&quiet, "q", false, "")
	fl.BoolVar(&follow, "H", false, "")
	fl.IntVar(&level, "l", 5, "")
	fl.StringVar(&method, "m", "", "")
	fl.StringVar(&format, "t", "", "")
	fl.StringVar(&solid, "ms", "", "")
	fl.StringVar(&filter, "mf", "auto", "")
	fl.IntVar(&threads, "mt", 0, "")
	fl.Var(sizeFlag{&dict}, "md", "")
	fl.Var(sizeFlag{&volume}, "v", "")
	pos, err := parseAnywhere(fl, unglue(fl, args, "p"))
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(c.stdout, addUsage)
		return 0
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "unarc a: "+format+"\n(unarc -h for help)\n", a...)
		return 1
	}
	if err != nil {
		return fail("%v", err)
	}
	if len(pos) < 2 {
		return fail("need ARCHIVE and at least one PATH")
	}
	archive, paths := pos[0], pos[1:]
	if comp, ok, err := tarTarget(archive, format); err != nil {
		return fail("%v", err)
	} else if ok {
		return c.addTar(fl, archive, paths, comp, level, threads, follow, quiet)
	}
	switch strings.ToLower(format) {
	case "":
		format = "7z"
		if strings.EqualFold(filepath.Ext(archive), ".zip") {
			format = "zip"
		}
	case "7z", "zip":
		format = strings.ToLower(format)
	default:
		return fail("-t %s: want 7z, zip, tar, tar.gz, tar.zst, tar.xz or tar.lz", format)
	}
	if format == "zip" {
		return c.addZip(fl, archive, paths, password, method, level, threads, follow, quiet, fail)
	}
	if method == "" {
		method = "lzma2"
	}
	opts := []sevenzip.WriterOption{sevenzip.WithLevel(level), sevenzip.WithThreads(threads)}
	switch strings.ToLower(method) {
	case "lzma2":
		opts = append(opts, sevenzip.WithMethod(sevenzip.LZMA2))
	case "lzma":
		opts = append(opts, sevenzip.WithMethod(sevenzip.LZMA))
	case "copy":
		opts = append(opts, sevenzip.WithMethod(sevenzip.Copy))
	case "zstd":
		opts = append(opts, sevenzip.WithMethod(sevenzip.Zstd))
	case "brotli":
		opts = append(opts, sevenzip.WithMethod(sevenzip.Brotli))
	case "lz4":
		opts = append(opts, sevenzip.WithMethod(sevenzip.LZ4))
	default:
		return fail("-m %s: want lzma2, lzma, copy, zstd, brotli or lz4", method)
	}
	if level < 0 || level > 9 {
		return fail("-l %d: want 0..9", level)
	}
	if dict > 0 {
		opts = append(opts, sevenzip.WithDictSize(int(min(dict, 3<<29))))
	}
	pwSet := false
	fl.Visit(func(f *flag.Flag) { pwSet = pwSet || f.Name == "p" })
	if pwSet {
		// -p "$PASS" with PASS unset must not write an archive in clear.
		if password == "" {
			return fail("-p: empty password (an unset variable?); give a password or leave -p out")
		}
		opts = append(opts, sevenzip.WithPassword(password))
	}
	if he {
		if password == "" {
			return fail("-he needs -p PASSWORD")
		}
		opts = append(opts, sevenzip.WithEncryptedHeaders())
	}
	if follow {
		opts = append(opts, sevenzip.WithFollowRoot())
	}
	switch s := strings.ToLower(solid); {
	case s == "":
	case s == "off" || s == "-" || s == "1f":
		opts = append(opts, sevenzip.WithSolid(0, 1))
	case strings.HasSuffix(s, "f"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, "f"))
		if err != nil || n < 1 {
			return fail("-ms %s: want SIZE, Nf or off", solid)
		}
		opts = append(opts, sevenzip.WithSolid(0, n))
	default:
		n, err := parseSize(s)
		if err != nil || n < 0 {
			return fail("-ms %s: want SIZE, Nf or off", solid)
		}
		opts = append(opts, sevenzip.WithSolid(n, 0))
	}
	f, err := parseFilter(filter)
	if err != nil {
		return fail("%v", err)
	}
	opts = append(opts, f)
	return c.runAdd(archive, paths, volume, quiet, func(fileErrors func(string, error) error) openWriter {
		opts = append(opts, sevenzip.WithFileErrors(fileErrors))
		return openWriter{open: func(out io.Writer, spool io.ReadWriteSeeker, vol func(int) (io.Writer, error)) (treeWriter, error) {
			if spool != nil {
				opts = append(opts, sevenzip.WithSpool(spool))
			}
			if vol != nil {
				opts = append(opts, sevenzip.WithVolumes(volume, vol))
			}
			return sevenzip.NewWriter(out, opts...)
		}}
	})
}

// treeWriter is what unarc a needs of an archive writer.
type treeWriter interface {
	AddTree(fsys fs.FS, root string, skip func(name string, d fs.DirEntry) bool) error
	Close() error
}

// openWriter opens the archive writer over out, with a spool (standard
// output, for a writer that does not stream) or volumes.
type openWriter struct {
	streams bool // writes standard output as it goes, without a spool
	open    func(out io.Writer, spool io.ReadWriteSeeker, vol func(int) (io.Writer, error)) (treeWriter, error)
}

// runAdd writes archive from paths with the writer mk returns (handing
// it the handler of files that cannot be stored as they are), and
// reports (addRun).
func (c *cli) runAdd(archive string, paths []string, volume int64, quiet bool, mk func(fileErrors func(string, error) error) openWriter) int {
	run, ok := c.startAdd(archive, paths, quiet)
	if !ok {
		return 1
	}
	return run.end(c.writeArchive(archive, paths, volume, mk(run.fileError), run.prog))
}

// addZip is unarc a for a ZIP archive.
func (c *cli) addZip(fl *flag.FlagSet, archive string, paths []string, password, method string, level, threads int, follow, quiet bool, fail func(string, ...any) int) int {
	bad := ""
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "he", "md", "ms", "mf", "v":
			bad = f.Name
		}
	})
	if bad != "" {
		return fail("-%s: a 7z option (ZIP has no such setting)", bad)
	}
	if level < 0 || level > 9 {
		return fail("-l %d: want 0..9", level)
	}
	if threads < 0 || threads > 256 {
		return fail("-mt %d: want 0..256", threads)
	}
	opts := []zip.WriterOption{zip.WithLevel(level), zip.WithThreads(threads)}
	switch strings.ToLower(method) {
	case "", "deflate":
	case "store", "copy":
		opts = append(opts, zip.WithMethod(zip.Store))
	case "lzma":
		opts = append(opts, zip.WithMethod(zip.LZMA))
	case "zstd":
		opts = append(opts, zip.WithMethod(zip.Zstd))
	default:
		return fail("-m %s: want deflate, store, lzma or zstd for ZIP", method)
	}
	pwSet := false
	fl.Visit(func(f *flag.Flag) { pwSet = pwSet || f.Name == "p" })
	if pwSet {
		if password == "" {
			return fail("-p: empty password (an unset variable?); give a password or leave -p out")
		}
		opts = append(opts, zip.WithPassword(password))
	}
	if follow {
		opts = append(opts, zip.WithFollowRoot())
	}
	return c.runAdd(archive, paths, 0, quiet, func(fileErrors func(string, error) error) openWriter {
		opts = append(opts, zip.WithFileErrors(fileErrors))
		return openWriter{streams: true, open: func(out io.Writer, _ io.ReadWriteSeeker, _ func(int) (io.Writer, error)) (treeWriter, error) {
			return zip.NewWriter(out, opts...), nil
		}}
	})
}

func parseFilter(s string) (sevenzip.WriterOption, error) {
	switch s = strings.ToLower(s); {
	case s == "auto":
		return sevenzip.WithFilter(sevenzip.FilterAuto), nil
	case s == "none" || s == "off":
		return sevenzip.WithFilter(sevenzip.FilterNone), nil
	case s == "x86" || s == "bcj":
		return sevenzip.WithFilter(sevenzip.FilterX86), nil
	case s == "arm":
		return sevenzip.WithFilter(sevenzip.FilterARM), nil
	case s == "armt":
		return sevenzip.WithFilter(sevenzip.FilterARMT), nil
	case s == "arm64":
		return sevenzip.WithFilter(sevenzip.FilterARM64), nil
	case s == "swap2":
		return sevenzip.WithFilter(sevenzip.FilterSwap2), nil
	case s == "swap4":
		return sevenzip.WithFilter(sevenzip.FilterSwap4), nil
	case s == "delta" || strings.HasPrefix(s, "delta:"):
		n := 1
		if d, ok := strings.CutPrefix(s, "delta:"); ok {
			var err error
			if n, err = strconv.Atoi(d); err != nil || n < 1 || n > 256 {
				return nil, fmt.Errorf("-mf %s: delta distance 1..256", s)
			}
		}
		return sevenzip.WithDelta(n), nil
	}
	return nil, fmt.Errorf("-mf %s: want auto, none, x86, arm, armt, arm64, delta:N, swap2 or swap4", s)
}

// writeArchive writes the archive to a temporary name beside it and
// renames it at the end, so a failed run leaves no half-written archive
// under the final name. "-" writes to standard output through a spool
// file; volumes are written under their final names (and removed on
// failure).
func (c *cli) writeArchive(archive string, paths []string, volume int64, open openWriter, prog *progress) (err error) {
	var out io.Writer
	var skip []os.FileInfo // our own output files, never added
	var finish func(ok bool) error
	var spool io.ReadWriteSeeker
	var vol func(int) (io.Writer, error)
	switch {
	case archive == "-" || archive == "":
		out = c.stdout
		finish = func(bool) error { return nil }
		if !open.streams {
			f, err := os.CreateTemp("", "unarc-spool-*")
			if err != nil {
				return err
			}
			os.Remove(f.Name())
			defer f.Close()
			spool = f
		}
	case volume > 0:
		var made []string
		vol = func(n int) (io.Writer, error) {
			name := fmt.Sprintf("%s.%03d", archive, n)
			f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return nil, err
			}
			made = append(made, name)
			if st, err := f.Stat(); err == nil {
				skip = append(skip, st)
			}
			return f, nil
		}
		finish = func(ok bool) error {
			if !ok {
				for _, m := range made {
					os.Remove(m)
				}
			}
			return nil
		}
	default:
		tmp, done, err := createArchive(archive)
		if err != nil {
			return err
		}
		if st, err := tmp.Stat(); err == nil {
			skip = append(skip, st)
		}
		out, finish = tmp, done
	}
	zw, err := open.open(out, spool, vol)
	if err != nil {
		finish(false)
		return err
	}
	for _, p := range paths {
		if err = c.ctx.Err(); err != nil {
			break
		}
		clean := filepath.Clean(p)
		parent, base := filepath.Dir(clean), filepath.Base(clean)
		fsys := progressFS{dirFS(parent), prog, c}
		err = zw.AddTree(fsys, base, func(name string, d fs.DirEntry) bool {
			if len(skip) == 0 {
				return false
			}
			info, err := d.Info()
			if err != nil {
				return false
			}
			for _, s := range skip {
				if os.SameFile(info, s) {
					return true
				}
			}
			return false
		})
		if err != nil {
			break
		}
	}
	if err == nil {
		err = zw.Close()
	} else {
		zw.Close()
	}
	if ferr := finish(err == nil); err == nil {
		err = ferr
	}
	return err
}

// createArchive creates a temporary file beside archive, which must not
// exist; finish(true) closes it and gives it the archive's name,
// finish(false) removes it, so a failed run leaves no half-written
// archive under the final name.
func createArchive(archive string) (*os.File, func(ok bool) error, error) {
	if _, err := os.Lstat(archive); err == nil {
		return nil, nil, errors.New("it exists (unarc a writes new archives only, it does not update them)")
	}
	// Created with 0666 so the umask applies, as for any new file.
	tmpName := filepath.Join(filepath.Dir(archive), fmt.Sprintf(".%s.tmp-%d", filepath.Base(archive), os.Getpid()))
	tmp, err := os.OpenFile(tmpName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, nil, err
	}
	finish := func(ok bool) error {
		cerr := tmp.Close()
		if ok && cerr == nil {
			// Link refuses to replace a file that appeared meanwhile;
			// where hard links are not supported, rename.
			if err := os.Link(tmp.Name(), archive); errors.Is(err, fs.ErrExist) {
				cerr = err
			} else if err != nil {
				cerr = os.Rename(tmp.Name(), archive)
			}
		}
		os.Remove(tmp.Name())
		return cerr
	}
	return tmp, finish, nil
}

// dirFS is os.DirFS without its refusal of names that are not UTF-8:
// 7zz stores such files (the writer escapes their names as 7-Zip does),
// and so must unarc a. Its names come from walking the user's tree.
type dirFS string

func (d dirFS) join(op, name string) (string, error) {
	// The structure of a valid path, whatever its bytes.
	if !fs.ValidPath(strings.ToValidUTF8(name, "_")) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), filepath.FromSlash(name)), nil
}

func (d dirFS) Open(name string) (fs.File, error) {
	p, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := d.join("readdir", name)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

func (d dirFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := d.join("lstat", name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

func (d dirFS) ReadLink(name string) (string, error) {
	p, err := d.join("readlink", name)
	if err != nil {
		return "", err
	}
	return os.Readlink(p)
}

// progressFS counts the bytes read from its files into the progress line
// and stops reading when the command is interrupted.
type progressFS struct {
	fs.FS
	prog *progress
	c    *cli
}

func (p progressFS) ReadLink(name string) (string, error) { return fs.ReadLink(p.FS, name) }
func (p progressFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(p.FS, name)
}
func (p progressFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(p.FS, name) }
func (p progressFS) Lstat(name string) (fs.FileInfo, error) {
	return fs.Lstat(p.FS, name)
}

func (p progressFS) Open(name string) (fs.File, error) {
	f, err := p.FS.Open(name)
	if err != nil {
		return nil, err
	}
	p.prog.set(name, -1)
	return &progressFile{f, p}, nil
}

type progressFile struct {
	fs.File
	p progressFS
}

func (f *progressFile) Read(b []byte) (int, error) {
	if err := f.p.c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := f.File.Read(b)
	f.p.prog.add(int64(n))
	return n, err
}

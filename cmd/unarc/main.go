// Command unarc lists, tests and extracts RAR, ZIP and 7z archives.
//
// See the usage text (unarc -h) for commands, flags and exit status.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/go-unarc/unarc"
)

var usage = `usage:
  unarc l [flags] ARCHIVE [NAME|PATTERN…]   list entries
  unarc t [flags] ARCHIVE [NAME|PATTERN…]   test: decode, verify every checksum
  unarc x [flags] ARCHIVE [NAME|PATTERN…]   extract (default into the current directory)
  unarc a [flags] ARCHIVE PATH…             write a new 7z archive (flags below)
  unarc --version

ARCHIVE is a file, or - (or nothing) for standard input, read forward-only
(7z needs a file). Flags may come before or after ARCHIVE; -- ends them.
PATTERNs are path.Match patterns ('docs/*'); one that matches a directory
selects everything under it.

flags (all commands):
  -p PASSWORD        password (on a terminal, unarc asks when one is needed);
                     -pPASSWORD works too, as in 7zz and unrar
  -q                 quiet: no progress line, no summary line (t, x), no
                     header or totals line (l)
  -json              (l, t) one JSON object per entry and line (t: the result,
                     stored checksums and digests of each entry; l: a
                     packed_size unknown to the format is -1; l shows -)
  -j N               (t, x) decode on N goroutines (default 0: one per core);
                     independent units (ZIP entries, non-solid RAR entries,
                     RAR solid runs, 7z folders) run in parallel, results and
                     errors come in archive order; -j 1 decodes in order.
                     A stream (-) is always read on one.
  -deb-data          a Debian package (.deb) is its data tarball, the files
                     it installs (without: the ar archive of debian-binary,
                     control.tar.* and data.tar.*)
test (t):
  -digest D          also compute content digests while decoding: blake3,
                     sha256 or blake3,sha256; printed as b3sum/sha256sum
                     print them ("digest  name"), or in the -json objects
` + limitUsage() + `extract (x):
  -o DIR             destination directory (or -oDIR, as in 7zz and unrar)
  -overwrite MODE    for paths that exist in DIR: ask (default on a terminal),
                     error (default otherwise: refuse, report, exit 8),
                     never (skip), always (replace files), rename (name_1.ext)
  -aoa, -aos, -aou   the same as -overwrite=always, never, rename
  -preserve-perms    keep permission bits exactly (default: apply the umask)
  Whatever the mode, a directory, symlink or special file already in DIR is
  never removed, replaced or followed, and no file is deleted for a directory.
` + addUsage + `
exit status:
  0 ok (for t: also when some entries store no checksum to verify)
  1 usage or other error, interrupted
  2 corrupt, truncated or not an archive
  3 checksum mismatch
  4 missing or wrong password
  5 unsupported method or version (or 7z on a pipe)
  6 unsafe entry refused (path or link escaping DIR)
  7 a limit exceeded (memory, dictionary, ratio, output, entries, names, key derivation)
  8 an entry conflicts with what is in DIR (not replaced), or its name is
    too long for the file system
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	c := &cli{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		c.con = &console{tty: os.Stdin, stderr: os.Stderr}
	} else if tty, err := os.Open("/dev/tty"); err == nil {
		if term.IsTerminal(int(tty.Fd())) {
			c.con = &console{tty: tty, stderr: os.Stderr}
		} else {
			tty.Close()
		}
	}
	c.stderrTTY = term.IsTerminal(int(os.Stderr.Fd()))
	code := c.run(os.Args[1:])
	stop()
	os.Exit(code)
}

// cli is one invocation: its streams, terminal and cancellation.
type cli struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	con            *console // nil: no terminal, never prompt
	stderrTTY      bool     // draw a progress line
	noteMu         sync.Mutex
}

// note prints one informational line on stderr: through the progress
// line when one may be drawn (it is cleared first and redrawn later),
// one line at a time (Extract reports progress from its workers).
func (c *cli) note(prog *progress, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if prog != nil {
		prog.println(line)
		return
	}
	c.noteMu.Lock()
	fmt.Fprintln(c.stderr, line)
	c.noteMu.Unlock()
}

// specialModes are the entry types x lists but never creates (the
// library skips them and says so through Progress.Skipped).
const specialModes = fs.ModeDevice | fs.ModeCharDevice | fs.ModeNamedPipe | fs.ModeSocket | fs.ModeIrregular

// skippedNote is what t says of such an entry: what x will do with it.
const skippedNote = "x skips it: a device node, FIFO or socket is not created"

// run is the whole command for tests: no terminal, no signals.
func run(args []string, stdout, stderr io.Writer) int {
	c := &cli{ctx: context.Background(), stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
	return c.run(args)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// command holds the parsed flags of one subcommand.
type command struct {
	name      string
	password  string
	quiet     bool
	json      bool
	digest    unarc.Digest
	digestArg string
	outDir    string
	outSet    bool // -o was given
	overwrite string
	aoa, aos  bool
	aou       bool
	preserve  bool
	workers   int
	limits    unarc.Limits
	noLimits  bool
	noSpace   bool // -no-space-check
	debData   bool // -deb-data
	archive   string
	patterns  []string
	sum       summary // t and x: what the line printed on success says
}

func (c *cli) run(args []string) int {
	if len(args) < 1 {
		fmt.Fprint(c.stderr, usage)
		return 1
	}
	switch args[0] {
	case "--version", "-version", "version":
		fmt.Fprintf(c.stdout, "unarc %s\n", version())
		return 0
	case "-h", "--help", "-help", "help":
		fmt.Fprint(c.stdout, usage)
		return 0
	case "l", "t", "x":
	case "a":
		return c.add(args[1:])
	default:
		fmt.Fprintf(c.stderr, "unarc: unknown command %q\n%s", args[0], usage)
		return 1
	}
	cmd := &command{name: args[0]}
	fl := cmd.flagSet()
	pos, err := parseAnywhere(fl, unglue(fl, args[1:], "o", "p"))
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(c.stdout, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "unarc %s: %v\n(unarc -h for help)\n", cmd.name, err)
		return 1
	}
	if len(pos) > 0 {
		cmd.archive, cmd.patterns = pos[0], pos[1:]
	}
	fl.Visit(func(f *flag.Flag) { cmd.outSet = cmd.outSet || f.Name == "o" })
	if cmd.workers < 0 {
		fmt.Fprintf(c.stderr, "unarc %s: -j %d: need 0 (every core) or more\n", cmd.name, cmd.workers)
		return 1
	}
	if cmd.noLimits {
		cmd.limits = noLimits()
	}
	if cmd.digest, err = parseDigest(cmd.digestArg); err != nil {
		fmt.Fprintf(c.stderr, "unarc %s: -digest=%s: want blake3, sha256 or blake3,sha256\n", cmd.name, cmd.digestArg)
		return 1
	}
	if cmd.name == "x" {
		if err := cmd.resolveOverwrite(c.con.interactive()); err != nil {
			fmt.Fprintf(c.stderr, "unarc x: %v\n", err)
			return 1
		}
	}
	m, err := newMatcher(cmd.patterns)
	if err != nil {
		fmt.Fprintf(c.stderr, "unarc %s: %v\n", cmd.name, err)
		return 1
	}
	return c.exec(cmd, m)
}

// flagSet registers the flags of l, t or x (cmd.name) on a new set.
func (cmd *command) flagSet() *flag.FlagSet {
	fl := flag.NewFlagSet("unarc "+cmd.name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&cmd.password, "p", "", "")
	fl.BoolVar(&cmd.quiet, "q", false, "")
	fl.BoolVar(&cmd.debData, "deb-data", false, "")
	limitFlags(fl, &cmd.limits, &cmd.noLimits, &cmd.noSpace)
	if cmd.name != "l" {
		fl.IntVar(&cmd.workers, "j", 0, "")
	}
	switch cmd.name {
	case "l":
		fl.BoolVar(&cmd.json, "json", false, "")
	case "t":
		fl.BoolVar(&cmd.json, "json", false, "")
		fl.StringVar(&cmd.digestArg, "digest", "", "")
	case "x":
		fl.StringVar(&cmd.outDir, "o", ".", "")
		fl.StringVar(&cmd.overwrite, "overwrite", "", "")
		fl.BoolVar(&cmd.aoa, "aoa", false, "")
		fl.BoolVar(&cmd.aos, "aos", false, "")
		fl.BoolVar(&cmd.aou, "aou", false, "")
		fl.BoolVar(&cmd.preserve, "preserve-perms", false, "")
	}
	return fl
}

// isCommandFlag reports whether name is a flag of l, t or x: unglue
// never reads one as -pPASSWORD or -oDIR, even given to a command
// that does not take it (unarc a -preserve-perms is an error, not the
// password "reserve-perms").
func isCommandFlag(name string) bool {
	for _, n := range []string{"l", "t", "x"} {
		if (&command{name: n}).flagSet().Lookup(name) != nil {
			return true
		}
	}
	return false
}

func (cmd *command) resolveOverwrite(interactive bool) error {
	n := 0
	for _, b := range []bool{cmd.aoa, cmd.aos, cmd.aou, cmd.overwrite != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return errors.New("choose one of -overwrite, -aoa, -aos, -aou")
	}
	switch {
	case cmd.aoa:
		cmd.overwrite = "always"
	case cmd.aos:
		cmd.overwrite = "never"
	case cmd.aou:
		cmd.overwrite = "rename"
	case cmd.overwrite == "":
		cmd.overwrite = "error"
		if interactive {
			cmd.overwrite = "ask"
		}
	}
	switch cmd.overwrite {
	case "ask", "error", "never", "always", "rename":
	case "skip":
		cmd.overwrite = "never"
	default:
		return fmt.Errorf("-overwrite=%s: want ask, error, never, always or rename", cmd.overwrite)
	}
	if cmd.overwrite == "ask" && !interactive {
		return errors.New("-overwrite=ask needs a terminal")
	}
	return nil
}

// exitConflict is the status of entries that clash with the destination.
const exitConflict = 8

// exitCode maps an error to the contract's exit status. When several
// entries failed differently, the most specific class wins.
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, unarc.ErrInsecurePath):
		return 6
	case errors.Is(err, unarc.ErrPassword), errors.Is(err, unarc.ErrPasswordRequired):
		return 4
	case errors.Is(err, unarc.ErrChecksum):
		return 3
	case errors.Is(err, unarc.ErrUnsupported):
		return 5
	case errors.Is(err, unarc.ErrLimit):
		return 7
	case errors.Is(err, unarc.ErrFormat), errors.Is(err, unarc.ErrCorrupt), errors.Is(err, unarc.ErrTruncated):
		return 2
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENAMETOOLONG):
		return exitConflict
	}
	return 1
}

// report prints one line per failed entry and returns the exit status.
func report(stderr io.Writer, name string, err error) int {
	if tf, ok := err.(*testFailure); ok {
		report(stderr, name, tf.entries)
		report(stderr, name, tf.archive)
		return exitCode(err)
	}
	var xe *unarc.ExtractError
	var ee *unarc.EntryError
	switch {
	case errors.As(err, &xe):
		for i, e := range xe.Errors {
			if e.Entry == "(archive)" {
				// Extract's archive-level error after entry errors.
				if !repeats(xe.Errors[:i], e.Err) {
					fmt.Fprintf(stderr, "unarc: %s: %s%s\n", name, archiveMsg(name, e.Err), liftHint(e.Err))
				}
				continue
			}
			fmt.Fprintf(stderr, "unarc: %s: %s: %s%s\n", name, e.Entry, msg(e.Err.Error()), liftHint(e))
		}
		if xe.Omitted > 0 {
			fmt.Fprintf(stderr, "unarc: %s: and %d more entries failed\n", name, xe.Omitted)
		}
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "unarc: %s: %s: %s%s\n", name, ee.Entry, msg(ee.Err.Error()), liftHint(ee))
	default:
		fmt.Fprintf(stderr, "unarc: %s: %s%s\n", name, archiveMsg(name, err), liftHint(err))
	}
	if refusedFile(err) {
		// Only existing files can be resolved by a flag; directories,
		// symlinks and special files in the way never are.
		fmt.Fprintf(stderr, "unarc: %s: existing paths were left alone; choose with -overwrite=always|never|rename\n", name)
	}
	return exitCode(err)
}

// testFailure is t's error when entries failed and then the archive
// as a whole did (an interruption): each is reported in its own form.
type testFailure struct{ entries, archive error }

func (e *testFailure) Error() string   { return e.entries.Error() + "; " + e.archive.Error() }
func (e *testFailure) Unwrap() []error { return []error{e.entries, e.archive} }

// refusedFile reports whether an existing regular file was left alone
// under the error policy (something an -overwrite flag decides).
func refusedFile(err error) bool {
	var xe *unarc.ExtractError
	if !errors.As(err, &xe) {
		return false
	}
	for _, e := range xe.Errors {
		if errors.Is(e, fs.ErrExist) && strings.Contains(e.Err.Error(), "(overwrite policy: error)") {
			return true
		}
	}
	return false
}

// archiveMsg is the text of err, an error about the archive name, for a
// line that names the archive already: OpenFile names it too ("unarc:
// a.rar: not an archive"), as os.Open does ("open a.rar: …").
func archiveMsg(name string, err error) string {
	if pe, ok := err.(*fs.PathError); ok && pe.Path == name {
		if pe.Op == "open" {
			return msg(pe.Err.Error())
		}
		return msg(pe.Op + ": " + pe.Err.Error())
	}
	return strings.TrimPrefix(msg(err.Error()), name+": ")
}

func msg(s string) string {
	s = strings.TrimPrefix(s, "unarc: ")
	if s == context.Canceled.Error() {
		return "interrupted"
	}
	return strings.Replace(s, context.Canceled.Error(), "interrupted", 1)
}

func displayName(name string) string {
	if name == "" || name == "-" {
		return "(stdin)"
	}
	return name
}

// source is an opened archive: random access when it is a file, else a
// forward-only stream.
type source struct {
	a     *unarc.Archive
	r     *unarc.Reader
	close func()
}

// streamCheck names the compressed stream's checksum ("gzip CRC32"), if
// one covers the entries.
func (s *source) streamCheck() string {
	if s.a != nil {
		return s.a.StreamCheck()
	}
	return s.r.StreamCheck()
}

func (c *cli) open(name string, opts []unarc.Option) (*source, error) {
	var in io.Reader
	var f *os.File
	if name == "" || name == "-" {
		in = c.stdin
		f, _ = c.stdin.(*os.File)
	} else {
		var err error
		if f, err = os.Open(name); err != nil {
			return nil, err
		}
		in = f
	}
	if f != nil {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		switch {
		case st.Mode().IsRegular() && unarc.PreferReader(f, st.Size()):
			// A compressed tar has no index: the Archive would decode it
			// once to list it and again to read it, the forward Reader
			// once. (Falls through to the stream path below.)
		case st.Mode().IsRegular() && f == c.stdin:
			a, err := unarc.Open(f, st.Size(), opts...)
			if err != nil {
				return nil, err
			}
			return &source{a: a, close: func() { a.Close() }}, nil
		case st.Mode().IsRegular():
			f.Close()
			a, err := unarc.OpenFile(name, opts...) // finds the other volumes
			if err != nil {
				return nil, err
			}
			return &source{a: a, close: func() { a.Close() }}, nil
		case st.IsDir():
			f.Close()
			return nil, fmt.Errorf("%w: it is a directory", unarc.ErrFormat)
		case term.IsTerminal(int(f.Fd())):
			return nil, errors.New("refusing to read an archive from a terminal (give a file, or pipe one in)")
		}
	}
	// A pipe, FIFO or device: forward-only.
	br := bufio.NewReaderSize(in, 64<<10)
	// A format that needs random access (7z) is refused by NewReader,
	// which says so.
	r, err := unarc.NewReader(br, opts...)
	if err != nil {
		if f != nil && f != c.stdin {
			f.Close()
		}
		return nil, err
	}
	return &source{r: r, close: func() {
		r.Close()
		if f != nil && f != c.stdin {
			f.Close()
		}
	}}, nil
}

func (c *cli) exec(cmd *command, m *matcher) int {
	name := displayName(cmd.archive)
	var pwf *passwordFunc
	// The context stops a long opening decode (a big tarball) on a signal.
	base := []unarc.Option{unarc.WithLimits(cmd.limits), unarc.WithContext(c.ctx)}
	if cmd.workers > 0 {
		base = append(base, unarc.WithWorkers(cmd.workers))
	}
	if cmd.debData {
		base = append(base, unarc.WithDebData())
	}
	if cmd.password != "" {
		base = append(base, unarc.WithPassword(cmd.password))
	} else if c.con.interactive() {
		pwf = &passwordFunc{con: c.con}
		base = append(base, unarc.WithPasswordFunc(pwf.get))
	}
	// x: the options of the Extract call (Open takes only what opening
	// needs).
	var conf *conflicts
	var xbase []unarc.ExtractOption
	if cmd.name == "x" {
		conf = &conflicts{con: c.con, policy: cmd.overwrite}
		if cmd.overwrite == "rename" {
			xbase = append(xbase, unarc.WithOverwrite(unarc.OverwriteRename))
		}
		xbase = append(xbase, unarc.WithConflictFunc(conf.decide), unarc.WithPreservePermissions(cmd.preserve))
		if cmd.noSpace || cmd.noLimits {
			xbase = append(xbase, unarc.WithSpaceCheck(false))
		}
	}
	retry := map[string]bool(nil) // entries to redo after a wrong password
	var err error
	var src *source
	for attempt := 0; ; attempt++ {
		opts := base
		var xopts []unarc.ExtractOption
		sel := m.match
		if retry != nil {
			sel = func(e *unarc.Entry) bool { return retry[e.Name] && m.match(e) }
		}
		var prog *progress
		if cmd.name != "l" && c.stderrTTY && c.con != nil && !cmd.quiet {
			prog = startProgress(c.con, 0)
		}
		if cmd.name == "x" {
			xopts = append(slices.Clip(xbase), unarc.WithFilter(sel), unarc.WithProgress(func(p unarc.Progress) {
				cmd.sum.progress(p)
				prog.set(p.Entry.Name, p.TotalWritten)
				if p.Skipped != "" && !cmd.quiet {
					c.note(prog, "unarc: %s: %s: skipped: %s", name, p.Entry.Name, p.Skipped)
				}
			}))
		}
		src, err = c.open(cmd.archive, opts)
		if err == nil {
			cmd.sum.check = src.streamCheck()
			if prog != nil && src.a != nil {
				prog.total = selectedSize(src.a, sel)
			}
			err = c.do(cmd, src, sel, prog, xopts)
			prog.end()
		} else {
			prog.end()
		}
		// A wrong password typed at the prompt: ask again (files only;
		// a stream has gone by).
		if pwf == nil || attempt == 2 || !errors.Is(err, unarc.ErrPassword) || !reopenable(cmd.archive) {
			break
		}
		if src != nil {
			retry = failedNames(err)
			src.close()
			src = nil
		}
		fmt.Fprintf(c.stderr, "unarc: %s: wrong password\n", name)
		pwf.forget()
	}
	code := 0
	if err != nil {
		code = report(c.stderr, name, err)
	}
	if src != nil {
		code = c.warnings(name, src, code, err)
		src.close()
	}
	if err == nil || code == exitConflict {
		for _, i := range m.unmatched() {
			if cmd.name == "x" && m.meantAsDir(i, cmd.outSet) {
				fmt.Fprintf(c.stderr, "unarc: %s: no entry matches %q (did you mean -o %s?)\n", name, m.raw[i], m.raw[i])
			} else {
				fmt.Fprintf(c.stderr, "unarc: %s: %s: no entry matches\n", name, m.pats[i])
			}
			if code == 0 {
				code = 1
			}
		}
	}
	if conf != nil && len(conf.skipped) > 0 && !cmd.quiet {
		fmt.Fprintf(c.stderr, "unarc: %s: %d existing files kept (not overwritten)\n", name, len(conf.skipped))
	}
	if code == 0 && cmd.name != "l" && !cmd.quiet {
		// On standard output, as 7zz and unrar print theirs, unless
		// that carries -json objects or -digest lines for a program.
		w := c.stdout
		if cmd.json || cmd.digest != 0 {
			w = c.stderr
		}
		cmd.sum.print(w, cmd)
	}
	return code
}

// reopenable reports whether the archive can be read again (a regular
// file, not a stream that has gone by).
func reopenable(name string) bool {
	if name == "" || name == "-" {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// failedNames lists the entries an error names, for a retry; nil when
// the error is not per entry (then everything is redone).
func failedNames(err error) map[string]bool {
	var xe *unarc.ExtractError
	if !errors.As(err, &xe) {
		return nil
	}
	out := map[string]bool{}
	for _, e := range xe.Errors {
		out[e.Entry] = true
	}
	return out
}

func selectedSize(a *unarc.Archive, sel func(*unarc.Entry) bool) int64 {
	var n int64
	for _, e := range a.Entries() {
		if !e.IsDir() && e.Size > 0 && sel(e) {
			n += e.Size
		}
	}
	return n
}

// warnings prints archive-level warnings (when the library exposes them)
// and returns the exit status they imply, if worse than code. A warning
// that the operation already returned as its error (a RAR cut inside its
// end header: Extract and Verify return it once the entries are done)
// was reported with it and is not printed again.
func (c *cli) warnings(name string, src *source, code int, done error) int {
	var w any = src.a
	if src.a == nil {
		w = src.r
	}
	wr, ok := w.(interface{ Warnings() []error })
	if !ok {
		return code
	}
	for _, err := range wr.Warnings() {
		if done != nil && (strings.Contains(done.Error(), err.Error()) || repeats(entryErrors(done), err)) {
			continue
		}
		fmt.Fprintf(c.stderr, "unarc: %s: warning: %s\n", name, msg(err.Error()))
		if errors.Is(err, unarc.ErrNoEnd) || errors.Is(err, unarc.ErrNotice) {
			// A missing end-of-archive record (unrar exits 0), or a
			// warning that cannot change what is extracted (7zz exits 0):
			// docs/cli.md, "Warnings".
			continue
		}
		if wc := exitCode(err); code == 0 && wc != 1 {
			code = wc
		}
	}
	return code
}

func (c *cli) do(cmd *command, src *source, sel func(*unarc.Entry) bool, prog *progress, xopts []unarc.ExtractOption) error {
	switch cmd.name {
	case "l":
		return c.list(src, sel, cmd)
	case "t":
		return c.test(cmd, src, sel, prog)
	}
	if src.a != nil {
		return src.a.Extract(c.ctx, cmd.outDir, xopts...)
	}
	return src.r.Extract(c.ctx, cmd.outDir, xopts...)
}

// test decodes every selected entry and verifies it (Archive.Verify or
// Reader.Verify); with -json it prints one JSON object per entry, with
// -digest the content digests (text: one "digest  name" line per file,
// as b3sum and sha256sum print them).
func (c *cli) test(cmd *command, src *source, sel func(*unarc.Entry) bool, prog *progress) error {
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	var failed []*unarc.EntryError
	tested, unverified := 0, 0
	each := func(r *unarc.VerifyResult) error {
		cmd.sum.result(r)
		switch r.Status {
		case unarc.VerifyOK:
			tested++
		case unarc.VerifyStream:
			// No checksum of its own, covered by the stream's (a
			// mismatch there fails the stream, reported below).
			tested++
		case unarc.VerifyNoChecksum:
			tested++
			unverified++
		case unarc.VerifyMismatch, unarc.VerifyError:
			var ee *unarc.EntryError
			if !errors.As(r.Err, &ee) {
				ee = &unarc.EntryError{Entry: r.Entry.Name, Err: r.Err}
			}
			failed = append(failed, ee)
		}
		if r.Entry.Mode&specialModes != 0 && !cmd.quiet {
			c.note(prog, "unarc: %s: %s: %s", displayName(cmd.archive), r.Entry.Name, skippedNote)
		}
		return printResult(out, enc, r, cmd)
	}
	opts := []unarc.VerifyOption{
		unarc.VerifyFilter(sel), unarc.WithDigests(cmd.digest),
	}
	if prog != nil {
		opts = append(opts, unarc.VerifyProgress(func(e *unarc.Entry, n int) {
			prog.set(e.Name, -1)
			prog.add(int64(n))
		}))
	}
	var fatal error
	if src.a != nil {
		// Units decode on -j workers; results come back in entry order.
		fatal = src.a.VerifyFunc(c.ctx, each, opts...)
	} else {
		fatal = src.r.VerifyFunc(c.ctx, each, opts...) // keeps no results: any number of entries
	}
	var ee *unarc.EntryError
	switch {
	case fatal == nil:
	case repeats(failed, fatal):
		// The error that failed an entry ended the archive too (a
		// limit tripped, a stream cut): it was reported with the entry.
		fatal = nil
	case errors.As(fatal, &ee):
		failed = append(failed, ee)
		fatal = nil
	}
	if unverified > 0 && !cmd.quiet {
		fmt.Fprintf(c.stderr, "unarc: %s: %d of %d entries could not be verified (no checksum stored)\n",
			displayName(cmd.archive), unverified, tested)
	}
	switch {
	case failed != nil && fatal != nil:
		return &testFailure{entries: &unarc.ExtractError{Errors: failed}, archive: fatal}
	case failed != nil:
		return &unarc.ExtractError{Errors: failed}
	}
	// An error of no entry (an interruption) is the archive's:
	// "unarc: ARCHIVE: message", as x prints it.
	return fatal
}

// repeats reports whether err, the error that ended the archive after
// the entry errors in failed, is one of them again: for an entry, the
// last entry that failed blamed again with an error of the same class
// (the Reader's Next after a cut entry; only the last, as two entries
// may share a name); for the archive, an entry's error (errors.Is,
// saying the same: a sticky limit or stream error), or a truncation
// after an entry's truncation (the input ended once).
func repeats(failed []*unarc.EntryError, err error) bool {
	var ee *unarc.EntryError
	if errors.As(err, &ee) {
		last := len(failed) - 1
		return last >= 0 && ee.Entry == failed[last].Entry && exitCode(ee) == exitCode(failed[last])
	}
	for _, f := range failed {
		if errors.Is(f.Err, err) && strings.HasSuffix(f.Err.Error(), err.Error()) ||
			errors.Is(err, unarc.ErrTruncated) && errors.Is(f.Err, unarc.ErrTruncated) {
			return true
		}
	}
	return false
}

// entryErrors lists the entry errors err reports (an ExtractError's, a
// testFailure's, or err itself).
func entryErrors(err error) []*unarc.EntryError {
	if tf, ok := err.(*testFailure); ok {
		return entryErrors(tf.entries)
	}
	var xe *unarc.ExtractError
	var ee *unarc.EntryError
	switch {
	case errors.As(err, &xe):
		return xe.Errors
	case errors.As(err, &ee):
		return []*unarc.EntryError{ee}
	}
	return nil
}

// parseDigest parses -digest: a comma-separated list of digest names,
// "blake3" (b3) and "sha256" (sha-256), or "" for none.
func parseDigest(s string) (unarc.Digest, error) {
	var d unarc.Digest
	for _, f := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case "":
		case "blake3", "b3":
			d |= unarc.DigestBLAKE3
		case "sha256", "sha-256":
			d |= unarc.DigestSHA256
		default:
			return 0, fmt.Errorf("unknown digest %q (want blake3 or sha256)", f)
		}
	}
	return d, nil
}

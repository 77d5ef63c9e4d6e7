// Package testutil holds helpers shared by the tests and benchmarks of
// every package: the shared corpus and its manifest, the mixed-200
// benchmark workload, and archives made from it by the reference tools.
package testutil

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ModuleRoot returns the directory holding unarc's go.mod, searching
// upward from the working directory (a package directory while testing).
// Nested modules (bench/) are passed over, so their tests find
// ../shared beside the repository too.
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isUnarcModule(b) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

// isUnarcModule reports whether a go.mod declares the library's module.
func isUnarcModule(gomod []byte) bool {
	for line := range strings.Lines(string(gomod)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return f[1] == "github.com/go-unarc/unarc"
		}
	}
	return false
}

// CorpusDir returns ../shared/corpus beside the module root, or
// $UNARC_CORPUS when set. It skips the test when the folder is missing:
// a user's checkout has no shared corpus.
func CorpusDir(tb TB) string {
	tb.Helper()
	dir := os.Getenv("UNARC_CORPUS")
	if dir == "" {
		dir = filepath.Join(ModuleRoot(), "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		tb.Skipf("shared corpus not found at %s", dir)
	}
	return dir
}

// Row is one line of MANIFEST.tsv.
type Row struct {
	Archive  string // relative to the corpus dir; first volume of a set
	Password string // "" for none
	Entry    string // unescaped entry path; "" for ERROR/EMPTY/WARNING rows
	Type     string // file, dir, dir-implicit, symlink, hardlink
	Size     int64
	SHA256   []byte // nil for dir/symlink
	Target   string // symlink/hardlink target
	Error    string // corrupt, wrong_password, unsupported for ERROR rows
	Empty    bool   // EMPTY row
	Warning  string // exit=N for WARNING rows
}

// Case is everything the manifest says about one archive.
type Case struct {
	Archive string
	Rows    []Row // entry rows
	Error   string
	Empty   bool
	Warning string
}

// Manifest reads MANIFEST.tsv from dir and groups it by archive, in file order.
func Manifest(tb TB, dir string) []*Case {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []*Case
	byName := map[string]*Case{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) < 7 {
			tb.Fatalf("manifest: short line %q", line)
		}
		c := byName[col[0]]
		if c == nil {
			c = &Case{Archive: col[0]}
			byName[col[0]] = c
			cases = append(cases, c)
		}
		r := Row{Archive: col[0]}
		if col[1] != "-" {
			r.Password = col[1]
		}
		switch col[2] {
		case "ERROR":
			c.Error = col[3]
			continue
		case "EMPTY":
			c.Empty = true
			continue
		case "WARNING":
			c.Warning = col[3]
			continue
		}
		r.Entry = Unescape(col[2])
		r.Type = col[3]
		r.Size, _ = strconv.ParseInt(col[4], 10, 64)
		if col[5] != "-" {
			r.SHA256, _ = hex.DecodeString(col[5])
		}
		if col[6] != "-" {
			r.Target = Unescape(col[6])
		}
		c.Rows = append(c.Rows, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(cases) == 0 {
		tb.Fatalf("%s: no archives in MANIFEST.tsv", dir)
	}
	return cases
}

// Glob returns the files matching pattern and fails tb when there are
// none: a test or a fuzz target fed by a directory listing must not pass
// by looping over nothing (a moved testdata folder, a renamed extension).
func Glob(tb TB, pattern string) []string {
	tb.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		tb.Fatal(err)
	}
	if len(m) == 0 {
		tb.Fatalf("no files match %s", pattern)
	}
	return m
}

// Unescape undoes the manifest's escapes: \\ \t \n \xNN.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
			i++
		case 't':
			b.WriteByte('\t')
			i++
		case 'n':
			b.WriteByte('\n')
			i++
		case 'x':
			if i+3 < len(s) {
				if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 3
					continue
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ReadTSV reads the tab-separated table at path, one "key<TAB>value" a
// line (blank lines and lines starting with # passed over; a line
// without a tab is a key with an empty value), as a map.
func ReadTSV(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, "\t")
		m[k] = v
	}
	return m, sc.Err()
}

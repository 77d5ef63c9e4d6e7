package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// knownImports maps the package names a fragment may use to their import
// paths. Names of this module's packages win over the standard library's
// (zip is unarc/zip, not archive/zip).
var knownImports = map[string]string{
	"bufio":    "bufio",
	"bytes":    "bytes",
	"context":  "context",
	"errors":   "errors",
	"filepath": "path/filepath",
	"fmt":      "fmt",
	"fs":       "io/fs",
	"http":     "net/http",
	"io":       "io",
	"log":      "log",
	"os":       "os",
	"strings":  "strings",
	"time":     "time",

	"unarc":    "github.com/go-unarc/unarc",
	"arc":      "github.com/go-unarc/unarc/arc",
	"bzip2":    "github.com/go-unarc/unarc/bzip2",
	"deflate":  "github.com/go-unarc/unarc/deflate",
	"lzma":     "github.com/go-unarc/unarc/lzma",
	"rar":      "github.com/go-unarc/unarc/rar",
	"sevenzip": "github.com/go-unarc/unarc/sevenzip",
	"tar":      "github.com/go-unarc/unarc/tar",
	"xz":       "github.com/go-unarc/unarc/xz",
	"zip":      "github.com/go-unarc/unarc/zip",
}

// block is one fenced Go block of a Markdown file.
type block struct {
	file string // path of the Markdown file
	line int    // line of the block's first line of code (1-based)
	code string
}

// goBlocks returns the ```go blocks of the Markdown file at path.
func goBlocks(path string, md []byte) []block {
	var out []block
	var cur *block
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		switch {
		case cur == nil && fence:
			info := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "```"))
			if len(info) > 0 && info[0] == "go" {
				cur = &block{file: path, line: n + 1}
				lines = lines[:0]
			}
		case cur != nil && fence:
			cur.code = strings.Join(lines, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			lines = append(lines, l)
		}
	}
	return out
}

// source turns b into a Go file of package main, or explains why it
// cannot.
func source(b block) (string, error) {
	first, rest, _ := strings.Cut(b.code, "\n")
	switch {
	case strings.HasPrefix(first, "package "):
		if strings.Contains(b.code, "/internal/") {
			return "", fmt.Errorf("%s:%d: a documentation example imports an internal package", b.file, b.line)
		}
		return fmt.Sprintf("//line %s:%d\n%s", b.file, b.line, b.code), nil
	case first == "// fragment" || strings.HasPrefix(first, "// fragment:"):
		params := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(first, "// fragment"), ":"))
		var imports []string
		for _, name := range pkgNames(params + "\n" + rest) {
			imports = append(imports, fmt.Sprintf("\t%q\n", knownImports[name]))
		}
		slices.Sort(imports)
		var s strings.Builder
		s.WriteString("package main\n\n")
		if len(imports) > 0 {
			s.WriteString("import (\n" + strings.Join(imports, "") + ")\n\n")
		}
		fmt.Fprintf(&s, "func main() {}\n\nfunc fragment(%s) {\n//line %s:%d\n%s}\n", params, b.file, b.line+1, rest)
		return s.String(), nil
	default:
		return "", fmt.Errorf("%s:%d: a go block must start with \"package\" (a whole file) or \"// fragment[: params]\" (see internal/doccheck)", b.file, b.line)
	}
}

// pkgNames returns the known package names that src uses as qualifiers
// (an identifier followed by a dot), comments and strings aside.
func pkgNames(src string) []string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	seen := map[string]bool{}
	var prev string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.PERIOD && prev != "" && knownImports[prev] != "" {
			seen[prev] = true
		}
		prev = ""
		if tok == token.IDENT {
			prev = lit
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// moduleRoot returns the directory of the module's go.mod, above the
// package directory the test runs in.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// docFiles returns the README and docs/*.md of the module at root.
func docFiles(t *testing.T, root string) []string {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// vetBlocks writes each block as a package main under a temporary
// directory of the current package and runs go vet on them all: it
// returns the go command's output and whether it failed. Problems found
// before compiling (an unmarked block) come back as errs.
func vetBlocks(t *testing.T, blocks []block) (out string, failed bool, errs []error) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	tmp, err := os.MkdirTemp(".", "_blocks-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	var pkgs []string
	for i, b := range blocks {
		src, err := source(b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dir := filepath.Join(tmp, fmt.Sprintf("b%03d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
	}
	if len(pkgs) == 0 {
		return "", false, errs
	}
	cmd := exec.Command(goCmd, append([]string{"vet"}, pkgs...)...)
	b, err := cmd.CombinedOutput()
	return string(b), err != nil, errs
}

// TestDocBlocksCompile compiles every Go block of README.md and
// docs/*.md.
func TestDocBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command over every documentation block; skipped under -short")
	}
	root := moduleRoot(t)
	var blocks []block
	for _, f := range docFiles(t, root) {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, goBlocks(f, md)...)
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d go blocks in the README and docs/; expected the guide's examples", len(blocks))
	}
	out, failed, errs := vetBlocks(t, blocks)
	for _, err := range errs {
		t.Error(err)
	}
	if failed {
		t.Errorf("go vet of the documentation's Go blocks failed:\n%s", out)
	}
	t.Logf("%d go blocks compiled", len(blocks))
}

// TestBrokenBlockFails makes sure the check catches what it is for: a
// fragment that does not compile (the README once declared an n it never
// used) and a block that is marked neither way.
func TestBrokenBlockFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command; skipped under -short")
	}
	broken := block{file: "BROKEN.md", line: 10, code: "// fragment: a *unarc.Archive, e *unarc.Entry\n" +
		"s, err := a.OpenSeekable(e)\nif err != nil {\n\tlog.Fatal(err)\n}\nbuf := make([]byte, 1<<20)\nn, err := s.ReadAt(buf, 150<<20)\n"}
	unmarked := block{file: "BROKEN.md", line: 30, code: "err = a.Extract(ctx, \"out/\")\n"}
	out, failed, errs := vetBlocks(t, []block{broken, unmarked})
	if !failed || !strings.Contains(out, "BROKEN.md:16") || !strings.Contains(out, "declared and not used") {
		t.Errorf("go vet of a block with an unused variable: failed=%v, output:\n%s\nwant a failure at BROKEN.md:16", failed, out)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "BROKEN.md:30") {
		t.Errorf("unmarked block: errors %v, want one naming BROKEN.md:30", errs)
	}
}

// mdLink matches an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// anchors returns the GitHub anchors of md's headings (fenced code
// skipped): lower case, punctuation dropped, spaces as hyphens, a repeated
// heading numbered -1, -2, ….
func anchors(md string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for l := range strings.Lines(md) {
		l = strings.TrimRight(l, "\n")
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", b.String(), i)
		}
		out[a] = true
	}
	return out
}

// TestDocLinks checks every relative link of the README, the changelog
// and docs/*.md: the file exists in the repository (a clone has nothing
// beside it) and the #anchor names a heading of it.
func TestDocLinks(t *testing.T) {
	root := moduleRoot(t)
	files := append(docFiles(t, root), filepath.Join(root, "CHANGELOG.md"))
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(md), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), filepath.FromSlash(path))
				if rel, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s: link %q leaves the repository", f, target)
					continue
				}
			}
			b, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", f, target, err)
				continue
			}
			if anchor != "" && !anchors(string(b))[anchor] {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", f, target, anchor, dest)
			}
		}
	}
}

// Package apisurface keeps the size of the public API a visible decision.
//
// TestExportedNames counts the exported names of every public package of
// the module and compares the counts with testdata/exported.tsv. A change
// in either direction fails the test: run
//
//	go test ./internal/apisurface -update
//
// to accept it, and say why in the commit message.
//
// A name counts when a user can see it in godoc: an exported top-level
// function, type, variable or constant; an exported method of an
// exported type; an exported field of an exported struct; a method of an
// exported interface. Test files, internal/, cmd/, bench/ and testdata/
// are not public.
package apisurface

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/exported.tsv with today's counts")

const golden = "testdata/exported.tsv"

// skipDir reports whether a directory holds no public package.
func skipDir(name string) bool {
	switch name {
	case "internal", "testdata", "cmd", "bench", "oss-fuzz", "scripts", "docs":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// countFile adds the exported names declared in f to n.
func countFile(f *ast.File) (n int) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv != nil && !exportedRecv(d.Recv.List[0].Type) {
				continue
			}
			n++
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					n++
					switch t := s.Type.(type) {
					case *ast.StructType:
						n += exportedFields(t.Fields)
					case *ast.InterfaceType:
						n += exportedFields(t.Methods)
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

func exportedRecv(t ast.Expr) bool {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

func exportedFields(l *ast.FieldList) (n int) {
	if l == nil {
		return 0
	}
	for _, f := range l.List {
		for _, id := range f.Names {
			if id.IsExported() {
				n++
			}
		}
	}
	return n
}

// count walks the module at root and returns the exported-name count of
// each public package, keyed by its directory relative to root ("." for
// the root package).
func count(t *testing.T, root string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if strings.HasSuffix(f.Name.Name, "_test") || f.Name.Name == "main" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		counts[filepath.ToSlash(rel)] += countFile(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

func TestExportedNames(t *testing.T) {
	got := count(t, testutil.ModuleRoot())
	var pkgs []string
	total := 0
	for p, n := range got {
		pkgs = append(pkgs, p)
		total += n
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("# package\texported names (go test ./internal/apisurface -update rewrites this file)\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "%s\t%d\n", p, got[p])
	}
	fmt.Fprintf(&b, "total\t%d\n", total)
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/apisurface -update)", err)
	}
	want := map[string]int{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "\t")
		n, err := strconv.Atoi(v)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", golden, line)
		}
		if k != "total" {
			want[k] = n
		}
	}
	for _, p := range pkgs {
		if want[p] != got[p] {
			t.Errorf("package %s exports %d names, %s says %d: if the change is meant, run go test ./internal/apisurface -update and say why in the commit", p, got[p], golden, want[p])
		}
	}
	for p := range want {
		if _, ok := got[p]; !ok {
			t.Errorf("package %s is in %s but no longer public: run -update", p, golden)
		}
	}
	t.Logf("exported names:\n%s", b.String())
}

package testutil

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuzzTargetsBuildForLibFuzzer holds every fuzz target of the module
// to the rules its OSS-Fuzz build needs (oss-fuzz/README.md), which
// oss-fuzz/check.sh proves by building each one but is too slow for CI:
// go-118-fuzz-build swaps *testing.T and *testing.F for its own types,
// so a file holding a target may name testing only as testing.T and
// testing.F, and a helper in another file that the target passes its t
// or f to must not take a testing.TB, *testing.T or *testing.F
// (testutil.TB and testutil.F do).
func TestFuzzTargetsBuildForLibFuzzer(t *testing.T) {
	root := ModuleRoot()
	pkgs := map[string][]*ast.File{}
	fset := token.NewFileSet()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		key := filepath.Dir(p) + " " + f.Name.Name
		pkgs[key] = append(pkgs[key], f)
		return nil
	})
	targets := 0
	for _, files := range pkgs {
		// Helpers of the package whose parameters name the testing types,
		// by the file that declares them (the build rewrites the types in
		// the target's own file, not in the others).
		bad := map[string]*ast.File{}
		for _, f := range files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || isTarget(fd) || strings.HasPrefix(fd.Name.Name, "Test") || strings.HasPrefix(fd.Name.Name, "Benchmark") {
					continue
				}
				for _, fld := range fd.Type.Params.List {
					if namesTesting(fld.Type) {
						bad[fd.Name.Name] = f
					}
				}
			}
		}
		for _, f := range files {
			hasTarget := false
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || !isTarget(fd) {
					continue
				}
				hasTarget = true
				targets++
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					c, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if id, ok := c.Fun.(*ast.Ident); ok && bad[id.Name] != nil && bad[id.Name] != f {
						for _, a := range c.Args {
							if ai, ok := a.(*ast.Ident); ok && (ai.Name == "t" || ai.Name == "f" || ai.Name == "tb") {
								t.Errorf("%s: %s passes its %s to %s, whose parameters name the testing package's types (take a testutil.TB or testutil.F)",
									fset.Position(c.Pos()), fd.Name.Name, ai.Name, id.Name)
							}
						}
					}
					return true
				})
			}
			if !hasTarget {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if se, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := se.X.(*ast.Ident); ok && x.Name == "testing" && se.Sel.Name != "T" && se.Sel.Name != "F" {
						t.Errorf("%s: testing.%s in a file that holds a fuzz target (libFuzzer's testing has only T and F; use testutil)", fset.Position(se.Pos()), se.Sel.Name)
					}
				}
				return true
			})
		}
	}
	// The other way round: a helper declared in a target's file (whose
	// testing types the build rewrites) and called from another file
	// (whose types it does not) breaks the build just the same.
	for _, files := range pkgs {
		inTarget := map[string]*ast.File{}
		for _, f := range files {
			if !holdsTarget(f) {
				continue
			}
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && !isTarget(fd) {
					for _, fld := range fd.Type.Params.List {
						if namesTesting(fld.Type) {
							inTarget[fd.Name.Name] = f
						}
					}
				}
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && inTarget[id.Name] != nil && inTarget[id.Name] != f {
						t.Errorf("%s: calls %s, declared with the testing package's types in a file that holds a fuzz target (take a testutil.TB or move it)", fset.Position(c.Pos()), id.Name)
					}
				}
				return true
			})
		}
	}
	if targets < 50 {
		t.Errorf("found %d fuzz targets; the walk missed some", targets)
	}
}

func holdsTarget(f *ast.File) bool {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && isTarget(fd) {
			return true
		}
	}
	return false
}

func isTarget(fd *ast.FuncDecl) bool {
	return fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Fuzz") && len(fd.Type.Params.List) == 1 && namesTesting(fd.Type.Params.List[0].Type)
}

// namesTesting reports whether a parameter type is testing.TB, *testing.T
// or *testing.F.
func namesTesting(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	se, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := se.X.(*ast.Ident)
	return ok && x.Name == "testing" && (se.Sel.Name == "TB" || se.Sel.Name == "T" || se.Sel.Name == "F")
}

package conf_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-unarc/unarc/arc"
	"github.com/go-unarc/unarc/internal/engine"
	"github.com/go-unarc/unarc/internal/engine/conf"
)

// TestLimitsResolution: conf.Limits is the table of what each request
// means in force: zero takes DefaultLimits, Unlimited (any negative)
// lifts to the largest value, a given value stays, and a value that
// cannot be meant is refused with ErrInvalidOption.
func TestLimitsResolution(t *testing.T) {
	d := arc.DefaultLimits
	const maxInt = math.MaxInt64
	for _, tc := range []struct {
		name    string
		in      arc.Limits
		check   func(b engine.Limits) bool
		wantErr error
	}{
		{"zero takes the defaults", arc.Limits{}, func(b engine.Limits) bool {
			return b.MaxDictionary == d.MaxDictionary && b.MaxMemory == d.MaxMemory &&
				b.MaxHeaderMemory == d.MaxHeaderMemory && b.MaxEntries == d.MaxEntries &&
				b.MaxEntrySize == d.MaxEntrySize && b.RatioFloor == d.RatioFloor &&
				b.MaxNameLength == d.MaxNameLength && b.MaxPathDepth == d.MaxPathDepth &&
				b.MaxKDFRounds == d.MaxKDFRounds &&
				// DefaultLimits lift these two themselves.
				b.MaxTotalSize == maxInt && math.IsInf(b.MaxRatio, 1)
		}, nil},
		{"Unlimited lifts", arc.Limits{MaxMemory: arc.Unlimited, MaxEntries: arc.Unlimited, MaxKDFRounds: arc.Unlimited, MaxRatio: arc.Unlimited}, func(b engine.Limits) bool {
			return b.MaxMemory == maxInt && b.MaxEntries == maxInt && b.MaxKDFRounds == maxInt &&
				math.IsInf(b.MaxRatio, 1) && b.MaxDictionary == d.MaxDictionary
		}, nil},
		{"any negative lifts (documented)", arc.Limits{MaxDictionary: -7, MaxRatio: -0.5}, func(b engine.Limits) bool {
			return b.MaxDictionary == maxInt && math.IsInf(b.MaxRatio, 1)
		}, nil},
		{"values stay", arc.Limits{MaxDictionary: 1 << 20, MaxTotalSize: 5, MaxRatio: 1, RatioFloor: 3, MaxPathDepth: 2}, func(b engine.Limits) bool {
			return b.MaxDictionary == 1<<20 && b.MaxTotalSize == 5 && b.MaxRatio == 1 &&
				b.RatioFloor == 3 && b.MaxPathDepth == 2 && b.MaxMemory == d.MaxMemory
		}, nil},
		{"SafeLimits stay", arc.SafeLimits, func(b engine.Limits) bool {
			return b.Request() == engine.LimitsRequest(arc.SafeLimits)
		}, nil},
		{"NaN ratio", arc.Limits{MaxRatio: math.NaN()}, nil, arc.ErrInvalidOption},
		{"ratio below 1", arc.Limits{MaxRatio: 0.25}, nil, arc.ErrInvalidOption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := conf.Limits(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || b.Resolved() {
					t.Errorf("got %+v, %v; want %v and no Limits", b, err, tc.wantErr)
				}
				return
			}
			if err != nil || !b.Resolved() || !tc.check(b) {
				t.Errorf("got %+v, %v", b, err)
			}
			// WithDefaults shows the same resolution.
			if w := tc.in.WithDefaults(); engine.LimitsRequest(w) != b.Request() {
				t.Errorf("WithDefaults %+v, resolver %+v", w, b)
			}
			// Resolving is idempotent: what the resolver gave, asked
			// again, gives the same bounds (a Config passed on twice).
			if again := conf.MustLimits(arc.Limits(b.Request())); again != b {
				t.Errorf("resolved twice: %+v, then %+v", b, again)
			}
		})
	}
	// A Config no conf.Apply filled holds no resolved limits.
	var c arc.Config
	if c.Bounds.Resolved() {
		t.Error("zero Config reports resolved limits")
	}
}

// TestResolveLimitsOnlyProducer: engine.Limits is made by
// engine.ResolveLimits only, and that is called by conf.Limits (the one
// resolver) and by arc.Limits.WithDefaults (which shows its result): no
// file of the module builds an engine.Limits literal or calls
// ResolveLimits elsewhere, no code outside the resolver calls
// WithDefaults to get limits to apply, and no format or root file reads
// a Config's Limits (the request) instead of its Bounds.
func TestResolveLimitsOnlyProducer(t *testing.T) {
	var e engine.Limits
	if e.Resolved() {
		t.Fatal("a zero engine.Limits reports resolved")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	callers := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inEngine := filepath.Dir(rel) == "internal/engine"
		// Who may read a Config's Limits (the request): arc, which
		// defines it, and conf, which resolves it. Everyone else applies
		// cfg.Bounds.
		mayReadRequest := strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "arc/") ||
			strings.HasPrefix(rel, "internal/engine/conf/") || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "bench/")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if n.Sel.Name == "Limits" && !mayReadRequest && !isIdent(n.X, "arc") && !isIdent(n.X, "unarc") && !isIdent(n.X, "engine") && !isIdent(n.X, "conf") {
					t.Errorf("%s: reads a Config's Limits (the request); apply cfg.Bounds", fset.Position(n.Pos()))
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Limits" && isIdent(sel.X, "engine") && len(n.Elts) > 0 {
					t.Errorf("%s: an engine.Limits literal; get one from conf.Limits", fset.Position(n.Pos()))
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				switch sel.Sel.Name {
				case "ResolveLimits":
					if !inEngine {
						callers[rel] = true
					}
				case "WithDefaults":
					if !strings.HasSuffix(rel, "_test.go") && rel != "arc/arc.go" {
						t.Errorf("%s: WithDefaults outside tests; limits to apply come from conf.Limits", fset.Position(n.Pos()))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"internal/engine/conf/conf.go": true, "arc/arc.go": true}
	for f := range callers {
		if !want[f] {
			t.Errorf("%s calls engine.ResolveLimits; only conf.Limits resolves", f)
		}
	}
	if len(callers) != len(want) {
		t.Errorf("ResolveLimits called from %v, want %v", callers, want)
	}
}

func isIdent(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

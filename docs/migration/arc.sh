#!/usr/bin/env bash
# arc.sh: the mechanical part of issue 31's arc change (helper "arc"):
# arc's plumbing moved to internal/engine, option resolution to
# internal/engine/conf, arc.WithVolumes became arc.WithVolumeOpener, and a
# *arc.Config is no longer an arc.Option (conf.From(cfg) is).
#
# Run from the module root. It is idempotent: re-run it on a merged tree
# to carry the renames into code the other side of a merge wrote.
#   step 1: renames (perl), over every .go file but arc/ and internal/engine/
#   step 2: imports (added where a new name is used; goimports drops
#           the unused ones)
#   step 3: a *arc.Config passed where an arc.Option is expected is
#           wrapped as conf.From(cfg) (type-checked, see arcwrap below)
# What it does not do (by hand, see docs/migration/arc.md): composite
# literals of arc.Config that set Budget or Workers (now conf.Budget,
# conf.Workers options), and the format packages' Format values.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

files=$(git ls-files '*.go' | grep -v -E '^(arc|internal/engine)/' || true)

# step 1: renames.
engine_names='Budget|WorkerPool|NewWorkerPool|Units|SharedWorkers|EntryWorkers|Checkpointer|CheckpointPersister|CheckpointReporter|CheckpointStats|CheckpointPolicy|Checkpoint|CheckSpan|Indexer|EntrySeeker|Stale|Warner|EntryChecker'
changed=$(grep -l -E '(^|[^A-Za-z0-9_.])arc\.[A-Z]' $files || true)
for f in $changed; do
	perl -pi -e '
		s/(?<![\w.])arc\.NewBudget\(/conf.NewBudget(/g;
		s/(?<![\w.])arc\.NewConfig\(/conf.New(/g;
		s/(?<![\w.])arc\.Configure\(/conf.Apply(/g;
		s/(?<![\w.])arc\.WithBudget\(/conf.Budget(/g;
		s/(?<![\w.])arc\.WithVolumes\b/arc.WithVolumeOpener/g;
		s/(?<![\w.])arc\.('"$engine_names"')\b/engine.$1/g;
	' "$f"
done

# step 1b: what only the registry uses leaves the format packages'
# exports: Sniff and OpenIndex (reached as Format.Sniff and
# Format.OpenIndex), and tar's detection helpers.
for pkg in rar zip sevenzip tar; do
	for f in $(git ls-files "$pkg/*.go"); do
		perl -pi -e 's/(?<![\w.])(Sniff|OpenIndex)\b(?!:)/\l$1/g' "$f"
	done
done
for f in $(git ls-files 'tar/*.go'); do
	perl -pi -e 's/(?<![\w.])(IsHeader|SniffBytes|IsCompressedTar|DetectKind|IndexFormats)\b/\l$1/g' "$f"
done
# tar's compressor kind (Kind, None, Gzip …) is tar's own business:
# compKind, kindNone, kindGzip … The constants are renamed in the code
# part of a line only (before a // comment: "None" is a word too), the
# type in comments as well; never a field (cp.Kind, Kind:) or a string.
for f in $(git ls-files 'tar/*.go'); do
	perl -pi -e '
		my $nl = chomp;
		my ($code, $rest) = m{^(.*?)((?<![:"])//.*)?$} ? ($1, $2 // "") : ($_, "");
		$code =~ s/(?<![\w."])Kind\b(?![:"])/compKind/g;
		$code =~ s/(?<![\w."])(None|Gzip|Bzip2|XZ|Zstd|Lzip|LZMA)\b(?!")/kind$1/g;
		$rest =~ s/(?<![\w.])Kind\b(?![:"])/compKind/g; # the type in prose, not Checkpoint.Kind
		$_ = $code . $rest . ($nl ? "\n" : "");
	' "$f"
done
for f in $(git ls-files '*.go' | grep -v -E '^(rar|zip|sevenzip|tar|arc|internal/engine)/'); do
	perl -pi -e 's/(?<![\w.])(rar|zip|sevenzip|tar)\.(Sniff|OpenIndex)\b/$1.Format.$2/g' "$f"
done

# step 1d: the capability methods of the format Archives (Units,
# OpenAt, ExportIndex …) are declared on each package's engineView
# (engine_view.go), which forwards to the Archive's unexported ones; the
# root asks engine.View(a) for them. Renamed here: the declarations and
# calls inside each format package, and every type assertion to a
# capability interface.
caps='CheckEntry|CheckpointStats|ExportCheckpoints|RestoreCheckpoints|ExportIndex|OpenAt|StartAt|SetCheckpoints|SetEntryWorkers|SetWorkerPool|Units'
for pkg in rar zip sevenzip tar; do
	for f in $(git ls-files "$pkg/*.go" | grep -v -E '/engine_view\.go$|/internal/'); do
		grep -q '^package [a-z0-9]*_test$' "$f" && continue
		if [ "$pkg" = rar ]; then
			perl -ni -e 'print unless /^func \(a \*Archive\) ExportCheckpoints\(\) \(\[\]engine\.Checkpoint, error\) \{ return a\.exportCheckpoints\(false\) \}$/' "$f"
			perl -pi -e 's/\.ExportCheckpoints\(\)/.exportCheckpoints(false)/g' "$f"
		fi
		perl -pi -e '
			s/^(func \(\w+ \*Archive\) )('"$caps"')\(/$1\l$2(/;
			s/(?<!engine)\.('"$caps"')\b/.\l$1/g unless /^func \(v \*?engineView\)/;
			s/^(var _ engine\.\w+ = )\(\*Archive\)\(nil\)/$1engineView{}/;
		' "$f"
	done
done
for f in $(git ls-files '*.go' | grep -v -E '^(internal/engine)/'); do
	perl -pi -e 's/(?<![\w.])([a-z][\w.]*)\.\(engine\.(Units|SharedWorkers|EntryWorkers|EntrySeeker|Checkpointer|CheckpointPersister|CheckpointReporter|Indexer|EntryChecker)\)/engine.View($1).(engine.$2)/g' "$f"
done

# step 2: imports.
add_import() { # file path: next to the arc import, in the module's group
	local f=$1 p=$2
	grep -q "\"$p\"" "$f" && return
	perl -0pi -e 's/^import ("github.com\/go-unarc\/unarc\/arc")$/import (\n\t$1\n)/m;
		s/^(\t(?:\w+ )?"github.com\/go-unarc\/unarc\/arc"\n)/$1\t"'"${p//\//\\/}"'"\n/m' "$f"
}
for f in $changed; do
	code=$(grep -v -E '^\s*//' "$f")
	if grep -q -E '(^|[^A-Za-z0-9_.])engine\.[A-Z]' <<<"$code"; then
		add_import "$f" github.com/go-unarc/unarc/internal/engine
	fi
	if grep -q -E '(^|[^A-Za-z0-9_.])conf\.[A-Z]' <<<"$code"; then
		add_import "$f" github.com/go-unarc/unarc/internal/engine/conf
	fi
done
GOIMPORTS=${GOIMPORTS:-$(command -v goimports || echo "$(go env GOPATH)/bin/goimports")}
if [ ! -x "$GOIMPORTS" ]; then
	go install golang.org/x/tools/cmd/goimports@v0.53.0
fi
# goimports -local keeps the module's imports in their own group; it
# only drops what is unused here (every new import was added above).
[ -n "$changed" ] && "$GOIMPORTS" -local github.com/go-unarc/unarc -w $changed

# step 1e: a format package's test that hands its *Archive to a harness
# wanting a capability (testutil.AtOpener …) hands engineView{a}:
# taken from the compiler's errors, until there are none.
for round in 1 2 3 4 5 6; do
	errs=$(go vet ./rar/... ./zip/... ./sevenzip/... ./tar/... 2>&1 | grep -E '^(vet: )?[a-z0-9/_]+\.go:[0-9]+:[0-9]+: cannot use [a-zA-Z_][a-zA-Z0-9_]* \(variable of type \*Archive\) as .* \(missing method [A-Z]' | sed 's/^vet: //' || true)
	[ -z "$errs" ] && break
	while IFS=: read -r file line col rest; do
		perl -pi -e 'if ($. == '"$line"') { substr($_, '"$col"' - 1) =~ s/^([A-Za-z_]\w*)/engineView{$1}/ }' "$file"
	done <<<"$errs"
done

# step 3: wrap *arc.Config arguments of arc.Option parameters.
tool=$(mktemp -d)
trap 'rm -rf "$tool"' EXIT
cat >"$tool/go.mod" <<'EOF'
module arcwrap

go 1.24
EOF
cat >"$tool/main.go" <<'EOF'
// arcwrap wraps every argument of type *arc.Config passed to a parameter
// of type arc.Option as conf.From(arg), in the package directories given.
// It type-checks each package (with its tests) from source, tolerating
// errors elsewhere, and rewrites the files in place.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const arcPath = "github.com/go-unarc/unarc/arc"
const confPath = "github.com/go-unarc/unarc/internal/engine/conf"

func isNamed(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == arcPath
}

func isConfigPtr(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), "Config")
}

type edit struct{ start, end int }

func main() {
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	total := 0
	for _, dir := range os.Args[1:] {
		bp, err := build.ImportDir(dir, build.ImportComment)
		if err != nil {
			continue
		}
		groups := [][]string{append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...), bp.XTestGoFiles}
		for _, names := range groups {
			if len(names) == 0 {
				continue
			}
			var files []*ast.File
			for _, n := range names {
				f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
				if err == nil {
					files = append(files, f)
				}
			}
			info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
			conf := types.Config{Importer: imp.(types.ImporterFrom), Error: func(error) {}}
			conf.Check(bp.ImportPath, fset, files, info)
			for _, f := range files {
				var edits []edit
				ast.Inspect(f, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					ft, ok := info.Types[call.Fun]
					if !ok {
						return true
					}
					sig, ok := types.Unalias(ft.Type).Underlying().(*types.Signature)
					if !ok {
						return true
					}
					params := sig.Params()
					for i, a := range call.Args {
						var pt types.Type
						switch {
						case sig.Variadic() && i >= params.Len()-1:
							sl, ok := params.At(params.Len() - 1).Type().(*types.Slice)
							if !ok {
								continue
							}
							pt = sl.Elem()
						case i < params.Len():
							pt = params.At(i).Type()
						default:
							continue
						}
						if call.Ellipsis.IsValid() && i == len(call.Args)-1 {
							continue
						}
						at, ok := info.Types[a]
						if ok && isNamed(pt, "Option") && isConfigPtr(at.Type) {
							edits = append(edits, edit{fset.Position(a.Pos()).Offset, fset.Position(a.End()).Offset})
						}
					}
					return true
				})
				if len(edits) == 0 {
					continue
				}
				name := fset.Position(f.Pos()).Filename
				src, err := os.ReadFile(name)
				if err != nil {
					panic(err)
				}
				sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
				for _, e := range edits {
					var b bytes.Buffer
					b.Write(src[:e.start])
					b.WriteString("conf.From(")
					b.Write(src[e.start:e.end])
					b.WriteString(")")
					b.Write(src[e.end:])
					src = b.Bytes()
				}
				if !bytes.Contains(src, []byte(`"`+confPath+`"`)) {
					arcLine := []byte("\t\"" + arcPath + "\"\n")
					if bytes.Contains(src, arcLine) {
						src = bytes.Replace(src, arcLine, append(arcLine, "\t\""+confPath+"\"\n"...), 1)
					} else {
						src = bytes.Replace(src, []byte("import (\n"), []byte("import (\n\t\""+confPath+"\"\n"), 1)
					}
				}
				if err := os.WriteFile(name, src, 0o644); err != nil {
					panic(err)
				}
				total += len(edits)
				fmt.Println(strings.TrimPrefix(name, "./"), len(edits))
			}
		}
	}
	fmt.Println("wrapped", total)
}
EOF
dirs=$(git ls-files '*.go' | grep -v -E '^(arc|internal/engine)/' | xargs -n1 dirname | sort -u | sed 's|^|./|')
wrapped=$(cd "$tool" && go build -o arcwrap . && cd - >/dev/null && "$tool/arcwrap" $dirs)
echo "$wrapped"
files=$(grep -v '^wrapped' <<<"$wrapped" | awk '{print $1}' || true)
[ -n "$files" ] && "$GOIMPORTS" -local github.com/go-unarc/unarc -w $files
exit 0

#!/usr/bin/env bash
# oss-fuzz/prepare.sh DIR FUZZNAME: make fuzz target FUZZNAME of package
# DIR buildable by go-118-fuzz-build, which compiles a package without
# its _test.go files. Run it in a scratch copy of the module: it renames
# files. It prints the directory to run go-118-fuzz-build from and the
# import path to build, tab-separated.
#   - A target in an internal test file (package x): the package's
#     internal test files become ordinary files, so the target keeps its
#     seed and check helpers; external test files (package x_test) are
#     set aside.
#   - A target in an external test file (package x_test, as the root
#     package's are): the external test files move into
#     internal/ossfuzz/<dir> as package ossfuzz, beside a link to the
#     module's testdata.
# go-118-fuzz-build writes its main package in the current directory,
# which must be allowed to import the target (Go's internal/ rule).
set -euo pipefail
dir=$1 name=$2
mod=$(go list -m)
ext_of() { grep -m1 -E '^package ' "$1" | grep -qE '_test$'; }
file=$(grep -lE "^func $name\(f \*testing\.F\)" "$dir"/*_test.go | head -1)
if ext_of "$file"; then
  out=internal/ossfuzz/$(echo "$dir" | tr -c 'a-z0-9\n' _)
  mkdir -p "$out"
  for f in "$dir"/*_test.go; do
    if ext_of "$f"; then
      sed -E '0,/^package /s/^package .*/package ossfuzz/' "$f" >"$out/$(basename "${f%_test.go}")_fuzz.go"
    fi
    rm "$f"
  done
  ln -sfn "$(realpath --relative-to="$out" "$dir/testdata" 2>/dev/null || echo ../../../testdata)" "$out/testdata"
  printf '.\t%s\n' "$mod/$out"
  exit 0
fi
for f in "$dir"/*_test.go; do
  if ext_of "$f"; then
    rm "$f"
  else
    mv "$f" "${f%_test.go}_fuzz.go"
  fi
done
from=.
case $dir in */internal/*) from=${dir%/internal/*} ;; esac
printf '%s\t%s\n' "$from" "$mod/$dir"

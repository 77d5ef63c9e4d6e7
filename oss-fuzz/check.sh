#!/usr/bin/env bash
# oss-fuzz/check.sh [REGEX]: compile every fuzz target (or those whose
# "dir/FuzzName" matches REGEX) the way oss-fuzz/build.sh does, with
# go-118-fuzz-build, in a scratch copy of the module; the libFuzzer link
# step (clang) is left out. Needs go-118-fuzz-build on PATH or in
# $(go env GOPATH)/bin. Prints one line per target and fails if any
# does not compile.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tool=$(command -v go-118-fuzz-build || echo "$(go env GOPATH)/bin/go-118-fuzz-build")
[ -x "$tool" ] || { echo "go-118-fuzz-build not found (go install github.com/AdamKorcz/go-118-fuzz-build@latest)"; exit 2; }
filter=${1:-.}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z | (cd "$root" && xargs -0 tar cf - --) | (cd "$scratch" && tar xf -)
(cd "$scratch" && go get github.com/AdamKorcz/go-118-fuzz-build/testing >/dev/null 2>&1) || { echo "cannot fetch the go-118-fuzz-build testing shim"; exit 2; }
base=$(mktemp -d)
trap 'rm -rf "$scratch" "$base"' EXIT
cp -a "$scratch/." "$base/"
failed=0 n=0
while IFS=$'\t' read -r dir name _; do
  printf '%s/%s' "$dir" "$name" | grep -qE -- "$filter" || continue
  rm -rf "$scratch" && mkdir -p "$scratch" && cp -a "$base/." "$scratch/"
  n=$((n + 1))
  if out=$(cd "$scratch" && IFS=$'\t' read -r from pkg < <(bash "$root/oss-fuzz/prepare.sh" "$dir" "$name") &&
    cd "$from" && "$tool" -tags gofuzz -o "$scratch/$name.a" -func "$name" "$pkg" 2>&1); then
    echo "ok   $dir $name"
  else
    failed=$((failed + 1))
    echo "FAIL $dir $name"
    printf '%s\n' "$out" | grep -v '^20[0-9][0-9]/' | head -8 | sed 's/^/     /'
  fi
done < <(scripts/fuzz.sh -l | grep -v '^bench')
echo "$((n - failed)) of $n targets compile for libFuzzer"
[ $failed = 0 ]

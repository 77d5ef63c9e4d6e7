#!/usr/bin/env bash
# docs/migration/codec.sh: the mechanical part of the codec surface change
# (issue 31). The implementations of lzma, xz, bzip2, deflate and crc32x
# move under internal/ with their package names unchanged, so every caller
# inside the module only changes its import path; the public lzma, xz,
# bzip2 and deflate packages become small wrappers with functional options
# (written by hand, not by this script). crc32x has no public successor.
#
# Run from the repository root. Step 1 (git mv) runs only when the
# public directories still hold the implementation; step 2 (import paths)
# can be re-run on a merged tree at any time: it never touches the public
# wrappers (they import the internal package under another name).
set -euo pipefail
cd "$(dirname "$0")/../.."
mod=github.com/go-unarc/unarc
pkgs="lzma xz bzip2 deflate crc32x"

# 1. Move each implementation (code, tests, testdata) under internal/.
for p in $pkgs; do
  if [ -d "$p" ] && [ ! -d "internal/$p" ]; then
    git mv "$p" "internal/$p"
    # The tests read the root testdata one level further up now.
    grep -rl 'filepath.Join("..", "testdata"' "internal/$p" --include='*_test.go' |
      xargs -r sed -i 's|filepath.Join("\.\.", "testdata"|filepath.Join("..", "..", "testdata"|g' || true
  fi
done

# 2. Point every import inside the module (bench/ included) at internal/.
#    The public wrappers (lzma/, xz/, bzip2/, deflate/) are skipped.
files=$(grep -rlE --include='*.go' "\"$mod/(lzma|xz|bzip2|deflate|crc32x)\"" . |
  grep -vE '^\./(lzma|xz|bzip2|deflate)/' || true)
for f in $files; do
  sed -i -E "s#\"$mod/(lzma|xz|bzip2|deflate|crc32x)\"#\"$mod/internal/\1\"#g" "$f"
done
[ -z "$files" ] || gofmt -l $files | xargs -r gofmt -w

# 3. Tests elsewhere that read a codec's testdata ("bzip2/testdata",
#    "../bzip2/testdata") follow it under internal/.
tfiles=$(grep -rlE --include='*_test.go' '"(\.\./)?(lzma|xz|bzip2|deflate|crc32x)/testdata' . || true)
for f in $tfiles; do
  sed -i -E 's#"((\.\./)?)(lzma|xz|bzip2|deflate|crc32x)/testdata#"\1internal/\3/testdata#g' "$f"
done

# 4. OSS-Fuzz seeds: the xz targets live in internal/xz now.
sed -i 's|^  xz) echo testdata/xz ;;|  internal/xz) echo testdata/xz ;;|' oss-fuzz/build.sh

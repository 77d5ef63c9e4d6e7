#!/bin/bash -eu
# OSS-Fuzz build script: every native fuzz target of the module (bench/,
# a separate module of peer comparisons, aside) as a libFuzzer binary
# named DIR_FuzzName ("root" for the module root), with the testdata
# archives of its format as seed corpus. Runs in the base-builder-go
# image, where compile_native_go_fuzzer_v2 and the zip tool exist.
# oss-fuzz/check.sh runs the same preparation locally without clang.
cd "$SRC/unarc"
go get github.com/AdamKorcz/go-118-fuzz-build/testing
pristine=$WORK/unarc-pristine
rm -rf "$pristine" && cp -a "$SRC/unarc" "$pristine"

seeds_for() { # the testdata folders whose files seed a target of package $1
  case $1 in
  .) echo testdata/zip testdata/rar testdata/7z testdata/tar testdata/cpio testdata/ar ;;
  zip) echo testdata/zip ;;
  rar) echo testdata/rar testdata/rar29 testdata/rar5u ;;
  sevenzip) echo testdata/7z testdata/7zx ;;
  tar) echo testdata/tar ;;
  cpio) echo testdata/cpio ;;
  ar) echo testdata/ar ;;
  internal/xz) echo testdata/xz ;;
  esac
}

scripts/fuzz.sh -l | grep -v '^bench' | while IFS=$'\t' read -r dir name _; do
  slug=$(if [ "$dir" = . ]; then echo root; else echo "$dir" | tr / _; fi)
  fuzzer=${slug}_$name
  tree=$WORK/t-$fuzzer
  rm -rf "$tree" && cp -a "$pristine" "$tree"
  (
    cd "$tree"
    IFS=$'\t' read -r from pkg < <(bash oss-fuzz/prepare.sh "$dir" "$name")
    cd "$from"
    compile_native_go_fuzzer_v2 "$pkg" "$name" "$fuzzer"
  )
  dirs=$(seeds_for "$dir")
  if [ -n "$dirs" ]; then
    # shellcheck disable=SC2086
    find $dirs -maxdepth 1 -type f -size -256k ! -name '*.sh' ! -name '*.py' ! -name '*.go' ! -name '*.txt' -print0 |
      xargs -0 -r zip -q -j "$OUT/${fuzzer}_seed_corpus.zip"
  fi
  rm -rf "$tree"
done

#!/usr/bin/env bash
# Times `unarc t` against `7zz t` and `unrar t` (RAR archives only), each
# at its default thread count, with hyperfine, on the mixed-200
# benchmark archives, and prints one table. The tar.xz cases compare
# with xz itself instead: tar-xz-2blocks (a tar of mixed-0.bin in two
# 26 MiB blocks, xz -T2) with `xz -T0 -d`, tar-xz-1block (one block,
# xz -T1) with `xz -T1 -d`; the script makes them in the cache with xz.
#
#   scripts/native-compare.sh [CASE...]     (default: rar5 zip-deflate 7z-lzma2-mt zip-bzip2;
#                                            also 7z-lzma2 7z-ppmd 7z-aes zip-ppmd zip-aes
#                                            rar5-solid rar5-aes rar4 tar-xz-2blocks tar-xz-1block)
#
# The archives live in the benchmark cache ($UNARC_BENCH_CACHE, else
# ~/.cache/unarc-bench); missing ones are made first by the benchmark
# itself (BenchmarkExtractParallel, bench_parallel_test.go), so the
# commands are those of the Go benchmarks. RUNS (default 3) and WARMUP
# (default 1) set hyperfine's counts.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${UNARC_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/unarc-bench}
runs=${RUNS:-3}
warmup=${WARMUP:-1}
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(rar5 zip-deflate 7z-lzma2-mt zip-bzip2)

declare -A file=(
  [rar5]=mixed-rar5.rar
  [zip-deflate]=mixed-zip-deflate.zip
  [7z-lzma2-mt]=mixed-7z-lzma2-mt.7z
  [zip-bzip2]=mixed-zip-bzip2.zip
  # BenchmarkExtract's archives (bench_test.go), made by its first run.
  [7z-lzma2]=7z-lzma2.7z
  [7z-ppmd]=7z-ppmd.7z
  [7z-aes]=7z-aes.7z
  [zip-ppmd]=mixed-zip-ppmd.zip
  [zip-aes]=mixed-zip-aes.zip
  [rar5-solid]=mixed-rar5-solid.rar
  [rar5-aes]=mixed-rar5-aes.rar
  [rar4]=mixed-rar4.rar
  # Made below with xz from mixed-200/mixed-0.bin (50 MiB).
  [tar-xz-2blocks]=mixed-0-t2.tar.xz
  [tar-xz-1block]=mixed-0-t1.tar.xz
)
# xz's options for the tar.xz cases, and the command each is compared with.
declare -A xzmake=([tar-xz-2blocks]="-T2 -6 --block-size=26MiB" [tar-xz-1block]="-T1 -6")
declare -A ref=([tar-xz-2blocks]="xz -T0 -d -c" [tar-xz-1block]="xz -T1 -d -c")
# The encrypted cases' password (bench_test.go).
declare -A pass=([7z-aes]=SECRET [zip-aes]=SECRET [rar5-aes]=SECRET)
for t in hyperfine 7zz python3; do
  command -v "$t" >/dev/null || { echo "native-compare: $t is not installed" >&2; exit 1; }
done

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
(cd "$repo" && go build -o "$bin/unarc" ./cmd/unarc)

for c in "${cases[@]}"; do
  f=${file[$c]:-}
  [ -n "$f" ] || { echo "native-compare: unknown case $c (known: ${!file[*]})" >&2; exit 1; }
  if [ -n "${xzmake[$c]:-}" ] && [ ! -f "$cache/$f" ]; then
    command -v xz >/dev/null || { echo "native-compare: xz is not installed" >&2; exit 1; }
    mixed=$cache/mixed-200/mixed-0.bin
    if [ ! -f "$mixed" ]; then
      echo "making $mixed (BenchmarkExtractParallel)" >&2
      (cd "$repo" && go test -run '^$' -bench '^BenchmarkExtractParallel$/^zip-deflate$/^none$' -benchtime 1x . >/dev/null)
    fi
    echo "making $cache/$f (xz ${xzmake[$c]})" >&2
    # shellcheck disable=SC2086 # the options are words
    tar cf - -C "$cache/mixed-200" mixed-0.bin | xz ${xzmake[$c]} -c > "$cache/$f.tmp" && mv "$cache/$f.tmp" "$cache/$f"
  fi
  if [ ! -f "$cache/$f" ]; then
    echo "making $cache/$f (BenchmarkExtract or BenchmarkExtractParallel/$c)" >&2
    # Matches the case but none of its sub-benchmarks: loadBench makes
    # the archive, nothing is timed.
    (cd "$repo" && go test -run '^$' -bench "^BenchmarkExtract(Parallel)?\$/^$c\$/^none\$" -benchtime 1x . >/dev/null)
  fi
  [ -f "$cache/$f" ] || { echo "native-compare: $cache/$f was not made (tool missing?)" >&2; exit 1; }
  pw=${pass[$c]:-}
  up="" zp="" rp=""
  [ -z "$pw" ] || { up="-p $pw "; zp="-p$pw "; rp="-p$pw "; }
  cmds=("$bin/unarc t -q $up$cache/$f")
  names=("unarc t")
  # Some 7zz builds have no RAR codec: compare with what can read it.
  if [ -n "${ref[$c]:-}" ]; then
    cmds+=("${ref[$c]} $cache/$f")
    names+=("${ref[$c]% -c}")
  elif 7zz l $zp"$cache/$f" >/dev/null 2>&1; then
    cmds+=("7zz t -bd -bso0 $zp$cache/$f")
    names+=("7zz t")
  fi
  if [[ $f == *.rar ]] && command -v unrar >/dev/null; then
    cmds+=("unrar t -idq $rp$cache/$f")
    names+=("unrar t")
  fi
  args=()
  for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
  hyperfine -N --style basic --runs "$runs" --warmup "$warmup" --export-json "$bin/$c.json" "${args[@]}" >&2
done

python3 - "$bin" "${cases[@]}" <<'PY'
import json, sys
d, cases = sys.argv[1], sys.argv[2:]
print("| archive | command | mean s | ± s | user s | sys s | vs unarc |")
print("|---|---|---:|---:|---:|---:|---:|")
for c in cases:
    rs = json.load(open(f"{d}/{c}.json"))["results"]
    base = rs[0]["mean"]
    for r in rs:
        print(f"| {c} | {r['command']} | {r['mean']:.3f} | {r['stddev'] or 0:.3f} | {r['user']:.3f} | {r['system']:.3f} | {r['mean']/base:.2f}x |")
PY

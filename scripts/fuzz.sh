#!/usr/bin/env bash
# scripts/fuzz.sh: a fuzz campaign. Runs every fuzz target of the module
# (and of bench/) in turn for a given time each, with the minimiser
# bounded, and records for each target its executions, executions per
# second and new corpus entries. Any finding (a crash, a hang caught by
# testutil.FuzzBound, an allocation over a target's bound) fails the
# campaign; Go writes the input to the package's testdata/fuzz/FuzzX/,
# where it stays as a regression seed once the bug is fixed.
#
# Usage: scripts/fuzz.sh [-t TIME] [-p WORKERS] [-m MINIMIZE] [-o DIR] [-l] [REGEX]
#   -t TIME      fuzz time per target (go test -fuzztime): 10m, 1h, 30s (default 1m)
#   -p WORKERS   fuzz workers per target (-parallel; default: all cores)
#   -m MINIMIZE  -fuzzminimizetime (default 10x: an unbounded minute per new
#                input stalls targets whose seeds are whole archives)
#   -o DIR       where the logs and the summary go (default fuzz-results/DATE)
#   -l           list the targets (package, target, family) and stop
#   REGEX        run only targets whose "package/FuzzName" matches (grep -E),
#                e.g. 'zip/' or 'FuzzOpen' or '^(tar|xz)/'
#
# The summary (summary.tsv and summary.md in DIR) has one row per target:
# family, package, target, seconds (all, and fuzzing alone), executions, execs/s, new corpus
# entries, result. The exit status is 1 when any target found something.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

fuzztime=1m workers=$(nproc) minimize=10x out="" list=0
while getopts "t:p:m:o:l" opt; do
  case $opt in
  t) fuzztime=$OPTARG ;;
  p) workers=$OPTARG ;;
  m) minimize=$OPTARG ;;
  o) out=$OPTARG ;;
  l) list=1 ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
filter=${1:-.}
[ -n "$out" ] || out=fuzz-results/$(date -u +%Y%m%dT%H%M%SZ)

# family names a target's package for the campaign table: the container
# formats, the index import and each codec.
family() {
  case $1 in
  .|./fuzz_test.go) echo root ;;
  zip | zip/*) echo zip ;;
  rar/internal/unpack*) echo "rar-codec" ;;
  rar | rar/*) echo rar ;;
  sevenzip) echo 7z ;;
  tar) echo tar ;;
  bench) echo "lzma-peer" ;;
  internal/*) echo "${1#internal/}" ;;
  *) echo "$1" ;;
  esac
}

# targets lists "dir name" for every func FuzzX(f *testing.F) in a _test.go file.
targets() {
  grep -rE --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . |
    sed -E 's|^\./||; s|/?[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]+).*|\t\1|' |
    awk -F'\t' '{d=$1; if (d=="") d="."; print d "\t" $2}' | sort -u
}

if [ "$list" = 1 ]; then
  targets | while IFS=$'\t' read -r dir name; do
    printf '%s\t%s\t%s\n' "$dir" "$name" "$(family "$dir")"
  done | grep -E -- "$filter" || true
  exit 0
fi

mkdir -p "$out"
summary=$out/summary.tsv
printf 'family\tpackage\ttarget\tseconds\tfuzz_seconds\texecs\texecs_per_s\tnew_corpus\tresult\n' >"$summary"
failed=0
while IFS=$'\t' read -r dir name; do
  printf '%s/%s' "$dir" "$name" | grep -qE -- "$filter" || continue
  fam=$(family "$dir")
  log=$out/$(echo "$dir" | tr / _)-$name.log
  echo "== $dir $name ($fam) for $fuzztime ($(date -u +%T))"
  seeds=$dir/testdata/fuzz/$name
  before=$(ls "$seeds" 2>/dev/null | wc -l)
  start=$(date +%s)
  if [ "$dir" = bench ]; then
    (cd bench && go test -timeout 0 -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" \
      -fuzzminimizetime "$minimize" -parallel "$workers" . >"$root/$log" 2>&1)
  else
    go test -timeout 0 -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" \
      -fuzzminimizetime "$minimize" -parallel "$workers" "./$dir" >"$log" 2>&1
  fi
  rc=$?
  secs=$(($(date +%s) - start))
  # The last progress line: "fuzz: elapsed: 60s, execs: 123456 (2057/sec), new interesting: 7 (total: 52)"
  last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1)
  execs=$(sed -nE 's/.*execs: ([0-9]+) .*/\1/p' <<<"$last")
  newc=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
  # Fuzzing time from the fuzzer's own clock (secs also counts the build
  # and the seed run); Go prints it as 59s, 1m0s or 1h2m3s.
  fsecs=$(sed -nE 's/^fuzz: elapsed: ([0-9hms]+),.*/\1/p' <<<"$last" |
    awk '{ t=0; s=$0; while (match(s, /^[0-9]+[hms]/)) { v=substr(s, 1, RLENGTH-1); u=substr(s, RLENGTH, 1);
      t += v * (u=="h" ? 3600 : u=="m" ? 60 : 1); s=substr(s, RLENGTH+1) } print t }')
  execs=${execs:-0} newc=${newc:-0} fsecs=${fsecs:-0}
  rate=$(awk -v e="$execs" -v s="$fsecs" 'BEGIN { printf "%d", (s > 0 ? e / s : 0) }')
  after=$(ls "$seeds" 2>/dev/null | wc -l)
  if [ $rc -eq 0 ]; then
    result=ok
  elif [ "$after" = "$before" ] && tail -5 "$log" | grep -q 'context deadline exceeded'; then
    # Go's fuzzing coordinator can report its own -fuzztime deadline as a
    # failure when a worker is still busy as it expires (golang/go#75804,
    # fixed in Go 1.27): no input was written, so nothing was found.
    result="ok (deadline race, go#75804)"
  else
    result=FAIL
    failed=1
    grep -E 'Failing input written to|panic:|--- FAIL|fuzz input ran longer|allocated' "$log" | head -5 | sed 's/^/   /'
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fam" "$dir" "$name" "$secs" "$fsecs" "$execs" "$rate" "$newc" "$result" >>"$summary"
  echo "   $result: $execs execs in ${fsecs}s of fuzzing, ${secs}s in all ($rate/s), $newc new corpus entries"
done < <(targets)

{
  echo '| family | package | target | seconds (fuzzing) | executions | execs/s | new corpus | result |'
  echo '|---|---|---|---|---|---|---|---|'
  tail -n +2 "$summary" | awk -F'\t' '{ printf "| %s | %s | %s | %s (%s) | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
} >"$out/summary.md"
cat "$out/summary.md"
if [ $failed = 1 ]; then
  echo "fuzz.sh: findings; the failing inputs are under the packages' testdata/fuzz/ (see the logs in $out)"
  exit 1
fi

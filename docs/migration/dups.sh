#!/bin/sh
# The mechanical renames of helper dups outside its own area, to re-run
# on a merged tree where the other side touched the same lines (each is
# a no-op where the old name is already gone). The harness replacements
# themselves (a copied loop turned into a testutil call) were made by
# hand: see `git log` of branch h-dups.
set -eu
cd "$(dirname "$0")/../.."
# RAR checkpoint tests: testCP is testutil.EntryCP.
for f in rar/internal/unpack29/checkpoint_test.go rar/internal/unpack50/checkpoint_test.go; do
	sed -i -E 's/\b(cp|c|held\[[a-z0-9]+\])\.(entry|off|bits|state)\b/\1.\u\2/g' "$f"
done
# CPU timing of the benchmarks.
sed -i 's/\bcpuNow()/testutil.CPUTime()/g' internal/ppmd/bench7_test.go internal/ppmd/bench8_test.go
sed -i 's/\bcpu := startCPU()/cpu := testutil.StartCPU()/; s/\bcpu\.report(b, /cpu.Report(b, /' lzma/bench_test.go bench/helpers_test.go lzma/encode_bench_test.go
# Fuzz sinks.
sed -i -E 's/&limitWriter\{w: ([^,]+), n: ([^}]+)\}/\&testutil.LimitWriter{W: \1, N: \2}/g; s/\berrLimitWriter\b/testutil.ErrLimitWriter/g' lzma/fuzz_test.go xz/fuzz_test.go
# 7zz listing and Huffman benchmark input.
sed -i 's/\bsltProps(/testutil.SltProps(/g' sevenzip/writer_fs_test.go sevenzip/writer_fs_linux_test.go cmd/unarc/add_linux_test.go
sed -i 's/\bbenchLengths(/testutil.KraftLengths(/g' rar/internal/rarbits/huffman_bench_test.go rar/internal/unpack50/huffman_bench_test.go
command -v goimports >/dev/null && goimports -w rar/internal/unpack29/checkpoint_test.go rar/internal/unpack50/checkpoint_test.go \
	internal/ppmd/bench7_test.go internal/ppmd/bench8_test.go lzma/bench_test.go bench/helpers_test.go lzma/fuzz_test.go xz/fuzz_test.go \
	sevenzip/writer_fs_test.go sevenzip/writer_fs_linux_test.go cmd/unarc/add_linux_test.go \
	rar/internal/rarbits/huffman_bench_test.go rar/internal/unpack50/huffman_bench_test.go
gofmt -l . | grep -v '^bench/' || true

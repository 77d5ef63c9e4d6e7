#!/bin/sh
# Rebuilds the PPMd (ZIP method 98, PPMd var.I rev.1) test archives in
# this directory with 7-Zip (7zz). Inputs are generated deterministically;
# run from anywhere:
#   sh testdata/zip/make-ppmd.sh
# 7zz picks order 3+level, memory 2^(level-1) MiB shrunk to the input
# size, and restoration "cut off" from -mx7 up; ":a=N" forces the
# restoration method (0 restart, 1 cut off).
. "$(dirname "$0")/lib.sh"

printf 'hello, world\n' > hello.txt
: > empty.txt
i=0
while [ $i -lt 1500 ]; do
	printf 'line %04d: the quick brown fox jumps over the lazy dog %d\n' $i $((i * i % 977))
	i=$((i + 1))
done > text.txt
# Base64 of sha256 outputs: compressible (6 bits a byte) but with no long
# matches. 16 KiB for the general archives; 87 KiB fill a 1 MiB order-16
# model, so the restart and cut-off archives restore it.
randbin 2048 | base64 >randbig.txt
head -c 16384 randbig.txt > rand64.txt
# 9 MiB of one repeated line so 7zz keeps the 256 MiB model it was asked for
# (it shrinks the model to 16x the input size otherwise).
i=0
yes "the quick brown fox jumps over the lazy dog" | head -c 9437184 > big.txt
find . -exec touch -h -d '2024-01-02 03:04:05' {} +

# a NAME METHOD-OPTIONS FILES...
a() { name=$1; opts=$2; shift 2; rm -f "$out/$name"; 7zz a -tzip -mmt1 $opts "$out/$name" "$@" >/dev/null; }

a ppmd-mx1.zip "-mm=PPMd -mx1" hello.txt empty.txt text.txt rand64.txt
a ppmd-mx5.zip "-mm=PPMd -mx5" hello.txt empty.txt text.txt rand64.txt
a ppmd-mx9.zip "-mm=PPMd -mx9" hello.txt empty.txt text.txt rand64.txt
a ppmd-o2-mem1m.zip "-mm=PPMd:o=2:mem=1m" text.txt rand64.txt
a ppmd-o16.zip "-mm=PPMd:o=16" text.txt rand64.txt
a ppmd-restart.zip "-mm=PPMd:o=16:mem=1m:a=0" randbig.txt text.txt
a ppmd-cutoff.zip "-mm=PPMd:o=16:mem=1m:a=1" randbig.txt text.txt
a ppmd-mem256m.zip "-mm=PPMd:mem=256m" big.txt

#!/bin/sh
# Makes the multi-block .xz streams of the parallel decoding tests
# (parallel_test.go) with xz (XZ Utils 5.4): xz -T2 writes both sizes in
# every block header, so its blocks can go to the workers; xz -T1 writes
# none, so the same blocks are decoded serially. Every file is a few
# blocks of text, words and noise (the noise makes LZMA2 store chunks
# uncompressed).
. "$(dirname "$0")/../../../../testdata/lib.sh"
rm -f ./*.xz
{ words 1 8000; noisebytes 7 2000; hex 11 9000; } > "$src/in"
x() { o=$1; shift; xz -c "$@" < "$src/in" > "$o"; }
x t2-crc64.xz -T2 --block-size=4KiB --check=crc64 -6
x t2-crc32-x86.xz -T2 --block-size=5KiB --check=crc32 --x86 --lzma2=preset=6
x t2-sha256-delta.xz -T2 --block-size=6KiB --check=sha256 --delta=dist=4 --lzma2=preset=1
x t2-none.xz -T2 --block-size=8KiB --check=none -6
x t2-list.xz -T2 --block-list=1000,10000,100,3KiB --check=crc64 -6
x t1-blocks.xz -T1 --block-size=6KiB --check=crc64 -6 # no sizes in the headers
# Streams of both kinds concatenated, with stream padding between them.
{ xz -c -T2 --block-size=7KiB < "$src/in"; head -c 4 /dev/zero; xz -c -T1 --block-size=9KiB < "$src/in"; xz -c -T2 --block-size=3KiB --check=crc32 < "$src/in"; } > concat.xz
ls -l ./*.xz

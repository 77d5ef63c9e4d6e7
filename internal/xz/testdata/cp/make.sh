#!/bin/sh
# Makes the .xz streams of the filter checkpoint tests with xz: 5 MB of
# numbered rows (each row four times, with an x86 CALL opcode whose
# displacement the filter leaves alone: converted ones would not pack),
# so LZMA2 chunks end every 2 MiB of output and a checkpoint can fall
# between them; through the x86 filter (SHA-256 check) and ARM64 then
# Delta at the row length (CRC-32); and x86 again as multi-threaded xz
# writes it, blocks of 3 MiB whose headers declare their sizes, so a
# restored decoder that miscounts the bytes the filter holds back fails
# the block's size check (the streams above declare none).
set -eu
export LC_ALL=C
cd "$(dirname "$0")"
rm -f ./*.xz
src=$(mktemp)
trap 'rm -f "$src"' EXIT
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "row %06d %c%c%c%c%c\n", int(i / 4), 232, 16, 1, 5, 7 }' > "$src"
xz -T1 -c --check=sha256 --x86 --lzma2=preset=6 < "$src" > x86.xz
xz -T1 -c --check=crc32 --arm64 --delta=dist=17 --lzma2=preset=6 < "$src" > arm64-delta.xz
xz -T2 -c --check=crc64 --block-size=3MiB --x86 --lzma2=preset=6 < "$src" > x86-sized.xz

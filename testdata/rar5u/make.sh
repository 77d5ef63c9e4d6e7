#!/bin/sh
# Rebuilds the RAR 5 test archives of rar/internal/unpack50 with rar 7.
# Inputs are generated deterministically by gen.py; archives are stored
# with fixed mtimes. Run from anywhere: sh testdata/rar5u/make.sh
#
# Not made here: the ARM filter (rar stopped emitting it in 5.80; the shared
# corpus has libarchive's rar5_arm.rar) and algorithm version 1 (rar 7 uses
# it only for dictionaries above 4 GB); bitgen_test.go builds such streams.
. "$(dirname "$0")/../lib.sh"
here=$out
cd "$src"
python3 "$here/gen.py"
touch -d '2024-01-02 03:04:05' *
RAR="rar a -cfg- -idq -ep -tsm0 -tsc0 -tsa0 -qo- -mt1"
rm -f "$here"/*.rar
for m in 1 2 3 4 5; do
	$RAR -m$m -s- "$here/text-m$m.rar" text.txt
done
$RAR -m3 -s "$here/solid-m3.rar" solid-*.txt
$RAR -m5 -s -htb "$here/solid-blake2.rar" solid-*.txt
$RAR -m3 -mcE+ "$here/x86-e8.rar" x86.bin
$RAR -m3 -mc4D+ "$here/delta4.rar" audio.bin
# rar shrinks a large dictionary to fit a small input (this one ends up
# 128 KiB); TestWindowSize declares 1 GiB to the decoder itself.
$RAR -m3 -md1g "$here/md1g-small.rar" small.txt
# 128 KiB dictionary (unrar uses a 256 KiB window at least), 420 KB file with
# repeats ~66 KB back: the window wraps.
$RAR -m3 -md128k "$here/md128k-wrap.rar" wrap.bin
$RAR -m3 -htb "$here/blake2-m3.rar" text.txt small.txt
$RAR -m5 -s -md128k "$here/solid-wrap.rar" wrap.bin text.txt solid-*.txt
ls -l "$here"/*.rar

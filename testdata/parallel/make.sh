#!/usr/bin/env bash
# Makes the 20-entry archives the parallel Extract/Test tests read: every
# format with several independent units, and solid ones whose units are
# runs or folders. Tools: zip, 7zz, rar (RAR5), rar6 (RAR4 with -ma4).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
mkdir -p "$src/d/sub"
for i in $(seq -w 0 19); do
  f="$src/d/f$i.txt"
  [ $((10#$i % 3)) = 0 ] && f="$src/d/sub/f$i.txt"
  # Text that compresses, different per file, 1-9 KiB.
  seq $((10#$i * 37)) $((10#$i * 37 + 200 + 10#$i * 60)) | sed "s/^/file $i line /" > "$f"
done
# A hard link and a symlink to files that other units hold.
ln "$src/d/f01.txt" "$src/d/zz-hard.txt"
ln -s sub/f03.txt "$src/d/zz-sym.txt"
cd "$src/d"
rm -f "$here"/*.zip "$here"/*.rar "$here"/*.7z

7zz a -bd -bso0 -tzip -mx5 "$here/p20-7zz.zip" . >/dev/null
rar a -cfg- -m3 -s- -oh -ol -ep1 -r -idq "$here/p20-rar5.rar" .
rar a -cfg- -m3 -s -oh -ol -ep1 -r -idq "$here/p20-rar5-solid.rar" .
# Solid groups of 5 files: the stream restarts at every sixth file.
rar a -cfg- -m3 -s5 -oh -ol -ep1 -r -idq "$here/p20-rar5-s5.rar" .
rar6 a -cfg- -ma4 -m3 -s- -ep1 -r -idq "$here/p20-rar4.rar" .
7zz a -bd -bso0 -t7z -m0=lzma2 -mx5 -snl -snh -ms=off "$here/p20-folders.7z" . >/dev/null
7zz a -bd -bso0 -t7z -m0=lzma2 -mx5 -snl -snh -ms=4f "$here/p20-solid4.7z" . >/dev/null
# LZMA2 in independent blocks (7zz writes them from -mmt3 up; -mmt2 gives
# the two threads to one encoder's match finder): 1 MiB blocks of a
# 64 KiB dictionary, plain headers (the lzma tests read the packed stream).
for i in $(seq 1 150000); do echo "row $((i % 97)) col $((i % 13))"; done > "$src/blocks.txt"
(cd "$src" && 7zz a -bd -bso0 -t7z -m0=lzma2 -mx5 -md64k -mmt4 -mhc=off "$here/lzma2-blocks.7z" blocks.txt >/dev/null)
ls -l "$here"

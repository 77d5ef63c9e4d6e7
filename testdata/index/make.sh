#!/bin/sh
# Makes the archive of the stale-index tests (index_stale_test.go) with
# the real rar (RAR5). Content comes from a fixed awk generator.
#   stale-rar5.rar: d/f0000 … d/f0999, 130 bytes of text each, stored
#       (-m0), and after d/f0500 a symlink d/f0500l -> target-AAAA (-ol:
#       stored as a link, its target in the file header). 1,000 entries
#       give more header regions than an index digests at open (256, a
#       sample), and the archive is long enough (~170 KB) for the
#       link's header to lie outside its first and last 64 KiB. The test
#       makes B from it by changing the link target in the header (its
#       CRC made again).
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./*.rar
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
mkdir "$src/d"
awk -v dir="$src/d" 'BEGIN {
  for (i = 0; i < 1000; i++) {
    f = sprintf("%s/f%04d", dir, i)
    line = sprintf("entry %04d of the stale index test, padded with text ", i)
    while (length(line) < 129) line = line "."
    print line > f
    close(f)
  }
}'
ln -s target-AAAA "$src/d/f0500l"
find "$src/d" -exec touch -h -d '2024-05-06 07:08:09' {} +
# In name order (a list file: rar adds a directory in its own order).
(cd "$src" && find d | sort >list && rar a -idq -m0 -ol -ma5 "$out/stale-rar5.rar" @list)

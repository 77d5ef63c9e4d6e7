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
. "$(dirname "$0")/../lib.sh"
rm -f ./*.rar
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

#   stale-lzma2.7z: one solid LZMA2 folder (7zz -mmt=1) of a.bin
#       (70 KiB of noise), b.bin (32 KiB of noise: LZMA2 keeps it as
#       uncompressed chunks, whatever its bytes), c.bin (a copy of
#       b.bin: matches into the dictionary) and d.bin (70 KiB of noise).
#       The test makes B by writing other noise over b.bin's bytes (its
#       CRC-32 kept): a checkpoint in c.bin carries A's b.bin in its
#       dictionary.
mkdir "$src/7z"
noise() { awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }'; }
noise 71680 1 >"$src/7z/a.bin"
noise 32768 2 >"$src/7z/b.bin"
cp "$src/7z/b.bin" "$src/7z/c.bin"
noise 71680 3 >"$src/7z/d.bin"
touch -d '2024-05-06 07:08:09' "$src/7z"/*.bin
(cd "$src/7z" && 7zz a -bd -bso0 -m0=lzma2 -ms=on -mx=5 -mmt=1 "$out/stale-lzma2.7z" a.bin b.bin c.bin d.bin)

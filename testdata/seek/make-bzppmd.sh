#!/bin/sh
# Makes the archives of the BZip2 and PPMd checkpoint tests (zip and
# sevenzip seek tests, the root's seek tests) with the real tools (7zz,
# zip); make.sh runs it last. Content: words.txt and more.txt, 200 KiB
# each of words from a 64-word list (two seeds), and three small files
# (hex text, noise, empty). BZip2 at 100k blocks gives a block boundary
# every ~100 KB of output; PPMd with a 1 MiB model fills its arena over
# 400 KiB at order 8 (restart, or cut-off for ZIP's -mx9 variant).
# Password of the encrypted ones: seek.
. "$(dirname "$0")/../lib.sh"
rm -f ./bzip2-*.zip ./bzip2-*.7z ./ppmd-*.zip ./ppmd-*.7z

words 4242 204800 > "$src/words.txt"
words 777 204800 > "$src/more.txt"
gen 1 4096 txt > "$src/a.txt"
gen 2 3072 bin > "$src/b.bin"
: > "$src/e.txt"
stamp
files="words.txt a.txt b.bin more.txt e.txt"

z() { # z OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 "$@" "$out/$o" $files)
}
z bzip2-7zz.zip -tzip -mm=BZip2 -md100k
z bzip2-aes.zip -tzip -mm=BZip2 -md100k -mem=AES256 -pseek
(cd "$src" && zip -q -X -Z bzip2 -1 "$out/bzip2-infozip.zip" $files)
z bzip2-solid.7z -t7z -m0=BZip2:d100k -ms=on
z bzip2-solid-aes.7z -t7z -m0=BZip2:d100k -ms=on -pseek
z ppmd-o8.zip -tzip -mm=PPMd -mmem=1m -mo=8
z ppmd-o8-aes.zip -tzip -mm=PPMd -mmem=1m -mo=8 -mem=AES256 -pseek
# 7-Zip's ZIP PPMd uses cut-off restoration from -mx7 up.
z ppmd-cut.zip -tzip -mm=PPMd -mmem=1m -mo=16 -mx9
z ppmd-solid.7z -t7z -m0=PPMd:mem=1m:o=8 -ms=on
z ppmd-solid-aes.7z -t7z -m0=PPMd:mem=1m:o=8 -ms=on -pseek

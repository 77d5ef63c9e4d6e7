#!/bin/sh
# Makes the archives of the ZipCrypto checkpoint tests (zip seek tests)
# with the real tools: Info-ZIP's zip (stored, BZip2; it writes
# a data descriptor, so the header's check byte is the time's) and 7zz
# (Deflate, LZMA, PPMd; no descriptor: the CRC's check byte).
# words.txt is the entry the tests read: 200 KiB of words from a 64-word
# list (64 KiB in the stored archive), as testdata/seek/make-bzppmd.sh
# makes it; a.txt is a small second entry. Password: seek.
. "$(dirname "$0")/../../../testdata/lib.sh"
rm -f ./zc-*.zip
mkdir "$src/big" "$src/small"
words 4242 204800 > "$src/big/words.txt"
words 4242 65536 > "$src/small/words.txt"
words 99 3000 > "$src/big/a.txt"
cp "$src/big/a.txt" "$src/small/a.txt"
stamp
(cd "$src/small" && zip -q -X -0 -P seek "$out/zc-store.zip" words.txt a.txt)
(cd "$src/big" && zip -q -X -1 -Z bzip2 -P seek "$out/zc-bzip2.zip" words.txt a.txt)
z() { # z OUT ARGS...
	o=$1; shift
	(cd "$src/big" && 7zz a -bd -bso0 -mmt1 -tzip -mem=ZipCrypto -pseek "$@" "$out/$o" words.txt a.txt)
}
# Info-ZIP's Deflate makes blocks of some 130 KB of these words (one
# block boundary in words.txt): 7-Zip's are shorter.
z zc-deflate.zip -mm=Deflate
z zc-lzma.zip -mm=LZMA -md64k
z zc-ppmd.zip -mm=PPMd -mmem=1m -mo=8

#!/bin/sh
# Makes the archives of the ZipCrypto checkpoint tests (zip seek tests)
# with the real tools: Info-ZIP's zip (stored, BZip2; it writes
# a data descriptor, so the header's check byte is the time's) and 7zz
# (Deflate, LZMA, PPMd; no descriptor: the CRC's check byte).
# words.txt is the entry the tests read: 200 KiB of words from a 64-word
# list (64 KiB in the stored archive), as testdata/seek/make-bzppmd.sh
# makes it; a.txt is a small second entry. Password: seek.
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./zc-*.zip
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
words() { # words SEED BYTES
	awk -v seed="$1" -v n="$2" 'BEGIN { x = seed; out = 0
		split("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega red green blue cyan magenta yellow black white one two three four five six seven eight nine ten north south east west up down left right", w, " ")
		k = length(w)
		while (out < n) {
			x = (x * 16807) % 2147483647
			s = w[int(x / 65536) % k + 1] ((x % 7 == 0) ? ".\n" : " ")
			printf "%s", s; out += length(s)
		}
	}' | head -c "$2"
}
mkdir "$src/big" "$src/small"
words 4242 204800 > "$src/big/words.txt"
words 4242 65536 > "$src/small/words.txt"
words 99 3000 > "$src/big/a.txt"
cp "$src/big/a.txt" "$src/small/a.txt"
find "$src" -exec touch -d '2024-01-02 03:04:05' {} +
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

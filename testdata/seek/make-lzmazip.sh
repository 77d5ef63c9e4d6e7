#!/bin/sh
# Makes the archives of the ZIP LZMA (method 14) checkpoint tests (zip
# seek tests) with 7zz: two 200 KiB files of random hex numbers
# (words.txt, the entry the tests read, and c.txt) and 60 KiB of
# noise, LZMA with a 64 KiB dictionary (the window wraps), plain and
# WinZip AES. Password: seek.
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./lzma-*.zip
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
hex() { # hex SEED BYTES
	awk -v seed="$1" -v n="$2" 'BEGIN { x = seed; out = 0
		while (out < n) {
			x = (x * 16807) % 2147483647
			s = sprintf("%08x %05d ok\n", x, out % 99991); printf "%s", s; out += length(s)
		}
	}' | head -c "$2"
}
hex 21 204800 > "$src/words.txt"
awk 'BEGIN { x = 7; for (i = 0; i < 61440; i++) { x = (x * 16807) % 2147483647; printf "%c", int(x / 4194304) % 256 } }' > "$src/b.bin"
hex 22 204800 > "$src/c.txt"
find "$src" -exec touch -d '2024-01-02 03:04:05' {} +
z() { # z OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 -tzip -mm=LZMA -md64k "$@" "$out/$o" words.txt b.bin c.txt)
}
z lzma-zip.zip
z lzma-zip-aes.zip -mem=AES256 -pseek

#!/bin/sh
# Makes the archives of the ZIP LZMA (method 14) checkpoint tests (zip
# seek tests) with 7zz: two 200 KiB files of random hex numbers
# (words.txt, the entry the tests read, and c.txt) and 60 KiB of
# noise, LZMA with a 64 KiB dictionary (the window wraps), plain and
# WinZip AES. Password: seek.
. "$(dirname "$0")/../lib.sh"
rm -f ./lzma-*.zip
hex 21 204800 > "$src/words.txt"
noisebytes 7 61440 > "$src/b.bin"
hex 22 204800 > "$src/c.txt"
stamp
z() { # z OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 -tzip -mm=LZMA -md64k "$@" "$out/$o" words.txt b.bin c.txt)
}
z lzma-zip.zip
z lzma-zip-aes.zip -mem=AES256 -pseek

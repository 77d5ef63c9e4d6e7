#!/bin/sh
# Makes the archives of the XZ (method 95) checkpoint tests (zip seek
# tests) with 7zz: plain, ZipCrypto and WinZip AES. An LZMA2 chunk ends
# after 64 KiB of packed or 2 MiB of unpacked data, and an xz decoder can
# take a checkpoint only between chunks, so words.txt (the entry the
# tests read; the name is the other tests') is 5 MB of numbered rows,
# each four times, that pack to some 34 KB: chunk ends at 2 and 4 MiB.
# a.txt is a small second entry. Password: seek.
. "$(dirname "$0")/../../../testdata/lib.sh"
rm -f ./xz-*.zip
awk 'BEGIN { for (i = 0; i < 460000; i++) printf "row %06d\n", int(i / 4) }' > "$src/words.txt"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "line %d\n", i * 7 }' > "$src/a.txt"
stamp
z() { # z OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 -tzip -mm=XZ -mx5 "$@" "$out/$o" words.txt a.txt)
}
z xz-zip.zip
z xz-zc.zip -mem=ZipCrypto -pseek
z xz-aes.zip -mem=AES256 -pseek

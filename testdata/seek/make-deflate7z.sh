#!/bin/sh
# Makes the archives of the 7z Deflate and Deflate64 checkpoint tests
# (sevenzip seek tests) with 7zz: solid folders of two 200 KiB files of
# random hex numbers and 60 KiB of noise, in many Deflate blocks; plain,
# behind 7zAES, and Deflate under a BCJ filter. Password: seek.
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./deflate-*.7z ./deflate64-*.7z ./bcj-deflate.7z
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
hex 11 204800 > "$src/a.txt"
awk 'BEGIN { x = 5; for (i = 0; i < 61440; i++) { x = (x * 16807) % 2147483647; printf "%c", int(x / 4194304) % 256 } }' > "$src/b.bin"
hex 12 204800 > "$src/c.txt"
find "$src" -exec touch -d '2024-01-02 03:04:05' {} +
z7() { # z7 OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" a.txt b.bin c.txt)
}
z7 deflate-solid.7z -m0=Deflate
z7 deflate-solid-aes.7z -m0=Deflate -pseek
z7 deflate64-solid.7z -m0=Deflate64
z7 bcj-deflate.7z -m0=BCJ -m1=Deflate

#!/bin/sh
# Makes the archives of the 7z Deflate and Deflate64 checkpoint tests
# (sevenzip seek tests) with 7zz: solid folders of two 200 KiB files of
# random hex numbers and 60 KiB of noise, in many Deflate blocks; plain,
# behind 7zAES, and Deflate under a BCJ filter. Password: seek.
. "$(dirname "$0")/../lib.sh"
rm -f ./deflate-*.7z ./deflate64-*.7z ./bcj-deflate.7z
hex 11 204800 > "$src/a.txt"
noisebytes 5 61440 > "$src/b.bin"
hex 12 204800 > "$src/c.txt"
stamp
z7() { # z7 OUT ARGS...
	o=$1; shift
	(cd "$src" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" a.txt b.bin c.txt)
}
z7 deflate-solid.7z -m0=Deflate
z7 deflate-solid-aes.7z -m0=Deflate -pseek
z7 deflate64-solid.7z -m0=Deflate64
z7 bcj-deflate.7z -m0=BCJ -m1=Deflate

#!/bin/sh
# Makes the archives of the 7z BCJ2 and Copy-filter checkpoint tests
# (sevenzip seek tests), solid: x.elf (an x86-64 ELF built here by cc
# from generated C: E8 calls and E9 jumps abound), b.bin (160 KiB of
# noise: LZMA2 ends a chunk every 64 KiB of packed data) and hex.txt
# (200 KiB of random hex numbers).
#   bcj2-lzma2.7z  7-Zip's own BCJ2 folder (-mf=BCJ2): LZMA2 main, LZMA
#                  call and jump streams, the range coder's stream stored
#   bcj2-lzma.7z   BCJ2 over three LZMA coders
#   delta-copy.7z, bcj-copy-aes.7z  a filter over Copy (password seek),
#                  of x.elf and h.txt (hex.txt's first 48 KiB)
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./bcj2-*.7z ./*-copy*.7z
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
awk 'BEGIN { print "#include <stdio.h>"; print "int f0(int x) { return x + 1; }"
	for (i = 1; i < 1500; i++) printf "int f%d(int x) { return f%d(x * 3 + %d) ^ f%d(x); }\n", i, i - 1, i, (i * 7) % i
	print "int main(int c, char **v) { printf(\"%d\\n\", f1499(c)); return 0; }" }' > "$src/x.c"
mkdir "$src/d"
cc -O0 -fno-inline -o "$src/d/x.elf" "$src/x.c"
awk 'BEGIN { x = 99; for (i = 0; i < 163840; i++) { x = (x * 16807) % 2147483647; printf "%c", int(x / 4194304) % 256 } }' > "$src/d/b.bin"
awk 'BEGIN { x = 4242; out = 0
	while (out < 204800) {
		x = (x * 16807) % 2147483647
		s = sprintf("%08x %05d ok\n", x, out % 99991); printf "%s", s; out += length(s)
	}
}' | head -c 204800 > "$src/d/hex.txt"
find "$src" -exec touch -d '2024-01-02 03:04:05' {} +
z7() { # z7 OUT ARGS...
	o=$1; shift
	(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" x.elf b.bin hex.txt)
}
z7 bcj2-lzma2.7z -mf=BCJ2 -m0=LZMA2:d64k
z7 bcj2-lzma.7z -m0=BCJ2 -m1=LZMA:d64k -m2=LZMA:d16k -m3=LZMA:d16k -mb0:1 -mb0s1:2 -mb0s2:3
head -c 49152 "$src/d/hex.txt" > "$src/d/h.txt"
touch -d '2024-01-02 03:04:05' "$src/d/h.txt"
z7c() { # stored: smaller content
	o=$1; shift
	(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" x.elf h.txt)
}
z7c delta-copy.7z -m0=Delta:4 -m1=Copy
z7c bcj-copy-aes.7z -m0=BCJ -m1=Copy -pseek

#!/bin/sh
# Makes the archives of the 7z BCJ2 and Copy-filter checkpoint tests
# (sevenzip seek tests), solid: x.elf (an x86-64 ELF built here by cc
# from generated C: E8 calls and E9 jumps abound), b.bin (160 KiB of
# noise: LZMA2 ends a chunk every 64 KiB of packed data) and hex.txt
# (200 KiB of random hex numbers).
#   bcj2-lzma2.7z  7-Zip's own BCJ2 folder (-mf=BCJ2): LZMA2 main, LZMA
#                  call and jump streams, the range coder's stream stored
#   bcj2-lzma.7z   BCJ2 over three LZMA coders
#   bcj2-lzma2-aes.7z  bcj2-lzma2.7z under 7zAES, headers too (password
#                  seek): 7zAES under each of the four inputs, the range
#                  coder's stream straight from its 7zAES coder (what
#                  7-Zip -mx9 -p writes for an .exe); with calls.bin
#                  too (30000 calls, each converted or not at random:
#                  a range coder stream of KiBs, resumed past its first
#                  AES block)
#   bcj2-lzma-aes.7z   BCJ2 over four LZMA coders, each over 7zAES
#                  (headers in the clear: a wrong password opens it)
#   delta-copy.7z, bcj-copy-aes.7z  a filter over Copy (password seek),
#                  of x.elf and h.txt (hex.txt's first 48 KiB)
# (7zAES draws a new salt and IV each run: rerunning rewrites the AES
# archives with other bytes.)
. "$(dirname "$0")/../lib.sh"
rm -f ./bcj2-*.7z ./*-copy*.7z
. ./filter-content.sh # x.elf, b.bin, hex.txt in $src/d
stamp
z7() { # z7 OUT ARGS...
	o=$1; shift
	(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" x.elf b.bin hex.txt)
}
z7 bcj2-lzma2.7z -mf=BCJ2 -m0=LZMA2:d64k
z7 bcj2-lzma.7z -m0=BCJ2 -m1=LZMA:d64k -m2=LZMA:d16k -m3=LZMA:d16k -mb0:1 -mb0s1:2 -mb0s2:3
cat > "$src/calls.c" <<'EOF'
#include <stdio.h>
int main(void) {
	static const unsigned char near[6] = {0xe8, 0, 1, 0, 0, 0x90}, far[6] = {0xe8, 0, 0, 0, 0x7f, 0x90};
	unsigned x = 12345;
	for (int i = 0; i < 30000; i++) {
		x = x * 1103515245u + 12345u;
		fwrite((x >> 16) & 1 ? near : far, 1, 6, stdout);
	}
	return 0;
}
EOF
cc -o "$src/calls" "$src/calls.c"
"$src/calls" > "$src/d/calls.bin"
touch -d '2024-01-02 03:04:05' "$src/d/calls.bin"
(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on -mf=BCJ2 -m0=LZMA2:d64k -pseek -mhe=on "$out/bcj2-lzma2-aes.7z" x.elf b.bin hex.txt calls.bin)
z7 bcj2-lzma-aes.7z -m0=BCJ2 -m1=LZMA:d64k -m2=LZMA:d16k -m3=LZMA:d16k -m4=LZMA:d16k -mb0:1 -mb0s1:2 -mb0s2:3 -mb0s3:4 -pseek
head -c 49152 "$src/d/hex.txt" > "$src/d/h.txt"
touch -d '2024-01-02 03:04:05' "$src/d/h.txt"
z7c() { # stored: smaller content
	o=$1; shift
	(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" x.elf h.txt)
}
z7c delta-copy.7z -m0=Delta:4 -m1=Copy
z7c bcj-copy-aes.7z -m0=BCJ -m1=Copy -pseek

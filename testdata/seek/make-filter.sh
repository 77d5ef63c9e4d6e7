#!/bin/sh
# Makes the archives of the 7z filter-chain checkpoint tests (sevenzip
# seek tests): a BCJ-family or Delta filter after an LZMA2 or LZMA
# coder, plain and behind 7zAES, solid. Content: x.elf (an x86-64 ELF
# built here by cc from generated C: E8 calls abound), b.bin (160 KiB
# of noise: LZMA2 ends a chunk every 64 KiB of packed data, where its
# checkpoints are taken; random words also hold ARM64 BL/ADRP patterns)
# and hex.txt (200 KiB of random hex numbers, packing to 100 KiB: more
# chunk boundaries). Password of the encrypted ones:
# seek.
. "$(dirname "$0")/../lib.sh"
rm -f ./bcj-*.7z ./arm64-*.7z ./delta-lzma-*.7z
. ./filter-content.sh # x.elf, b.bin, hex.txt in $src/d
stamp
z7() { # z7 OUT ARGS...
	o=$1; shift
	(cd "$src/d" && 7zz a -bd -bso0 -mmt1 -ms=on "$@" "$out/$o" x.elf b.bin hex.txt)
}
z7 bcj-lzma2.7z -m0=BCJ -m1=LZMA2:d64k
z7 bcj-lzma2-aes.7z -m0=BCJ -m1=LZMA2:d64k -pseek
z7 arm64-lzma.7z -m0=ARM64 -m1=LZMA:d64k
z7 delta-lzma-aes.7z -m0=Delta:4 -m1=LZMA:d64k -pseek

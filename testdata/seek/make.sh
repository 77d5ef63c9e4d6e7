#!/bin/sh
# Makes the archives of the seek tests (seek_test.go, sevenzip and zip
# seek tests) with the real tools (7zz, zip, rar, rar6). Content comes
# from a fixed awk generator, so the archives are reproducible apart
# from the tools' own salts and IVs:
#   big: a.txt (16 KiB of hex text), b.bin (100 KiB of noise), c.txt
#        (16 KiB), d.txt (5 bytes), e.txt (empty), in one solid LZMA2
#        folder with a 64 KiB dictionary (the window wraps): 7-Zip ends
#        an LZMA2 chunk every 64 KiB of packed data, so the folder has
#        chunk boundaries, where checkpoints are taken, in every entry.
#   small: the same names cut to 4 KiB, 3 KiB, 4 KiB - every other
#        method, solid where the format can.
#   r5: a.txt (40 KiB of hex text), x.elf (an x86-64 ELF built here by
#       cc from generated C, for rar's E8/E8E9 filters), c.txt (40 KiB),
#       b.bin (8 KiB of noise), d.txt, e.txt: the RAR5 decoder
#       checkpoint tests (rar/seek5_test.go), solid (-ds: in this order,
#       text after the filtered ELF) and not, with and
#       without -p, -m5 with a 256 MiB dictionary, multi-volume solid.
#   words: words.txt, 200 KiB of words from a 64-word list, RAR5 -m3
#       (r5-words.rar), Deflate in
#        ZIP (plain and WinZip AES): many Deflate blocks to checkpoint.
# Password of the encrypted ones: seek.
. "$(dirname "$0")/../lib.sh"
rm -f ./*.zip ./*.7z ./*.rar

mkdir "$src/big" "$src/small"
gen 1 16384 txt > "$src/big/a.txt"
gen 2 102400 bin > "$src/big/b.bin"
gen 3 16384 txt > "$src/big/c.txt"
printf 'tail\n' > "$src/big/d.txt"
: > "$src/big/e.txt"
head -c 4096 "$src/big/a.txt" > "$src/small/a.txt"
head -c 3072 "$src/big/b.bin" > "$src/small/b.bin"
head -c 4096 "$src/big/c.txt" > "$src/small/c.txt"
cp "$src/big/d.txt" "$src/big/e.txt" "$src/small/"
mkdir "$src/r5"
gen 4 40960 txt > "$src/r5/a.txt"
# An x86-64 ELF of our own (a chain of calls, so E8 bytes abound), not a
# system binary: rar picks its E8/E8E9 filter for it.
elf 400 "$src/r5/x.elf"
gen 5 40960 txt > "$src/r5/c.txt"
gen 6 8192 bin > "$src/r5/b.bin"
cp "$src/big/d.txt" "$src/big/e.txt" "$src/r5/"
mkdir "$src/words"
words 4242 204800 > "$src/words/words.txt"
stamp
files="a.txt b.bin c.txt d.txt e.txt"

z7() { # z7 OUT DIR ARGS...
	o=$1; d=$2; shift 2
	(cd "$src/$d" && 7zz a -bd -bso0 -mmt1 "$@" "$out/$o" $files)
}
z7 lzma2.7z big -m0=lzma2 -mx5 -md64k -ms=on
z7 lzma2-aes.7z big -m0=lzma2 -mx5 -md64k -ms=on -pseek
z7 lzma.7z small -m0=lzma -mx5 -md64k -ms=on
# LZMA1 over the big set (the LZMA1 checkpoint tests: one range coder
# through the whole solid folder, a 64 KiB window that wraps).
z7 lzma-big.7z big -m0=lzma -mx5 -md64k -ms=on
z7 lzma-big-aes.7z big -m0=lzma -mx5 -md64k -ms=on -pseek
z7 delta-lzma2.7z small -m0=Delta:4 -m1=LZMA2:d64k -mx5 -ms=on
z7 copy.7z small -m0=copy
z7 copy-aes.7z small -m0=copy -pseek

(cd "$src/small" && zip -q -X -0 "$out/store.zip" $files)
(cd "$src/small" && zip -q -X -0 -P seek "$out/store-zipcrypto.zip" $files)
(cd "$src/small" && 7zz a -bd -bso0 -tzip -mx0 -mem=AES256 -pseek "$out/store-aes.zip" $files)
(cd "$src/small" && zip -q -X -9 "$out/deflate.zip" $files)

(cd "$src/small" && rar a -idq -cfg- -s -m3 -md128k "$out/solid.rar" $files)
(cd "$src/small" && rar a -idq -cfg- -m0 "$out/store.rar" $files)
(cd "$src/small" && rar a -idq -cfg- -m0 -pseek "$out/store-aes.rar" $files)
(cd "$src/small" && rar6 a -idq -cfg- -ma4 -s -m3 "$out/solid4.rar" $files)
(cd "$src/small" && rar6 a -idq -cfg- -ma4 -m0 -pseek "$out/store-aes4.rar" $files)
# RAR4 over the big set (the RAR3 checkpoint tests): solid LZ, and
# solid with PPMd forced for text (-mct+).
(cd "$src/big" && rar6 a -idq -cfg- -ma4 -s -m3 -md64k "$out/solid4-big.rar" $files)
(cd "$src/big" && rar6 a -idq -cfg- -ma4 -s -m3 -md64k -mct+ "$out/solid4-ppm.rar" $files)

# 7-Zip's Deflate encoder ends blocks every few KiB to 60 KiB (Info-ZIP's
# zip writes this file as one block).
(cd "$src/words" && 7zz a -bd -bso0 -tzip -mx9 -mmt1 "$out/deflate-words.zip" words.txt)
(cd "$src/words" && 7zz a -bd -bso0 -tzip -mx9 -mmt1 -mem=AES256 -pseek "$out/deflate-words-aes.zip" words.txt)

r5files="a.txt x.elf c.txt b.bin d.txt e.txt"
r5() { # r5 OUT ARGS...
	o=$1; shift
	(cd "$src/r5" && rar a -idq -cfg- -mt1 "$@" "$out/$o" $r5files)
}
r5 r5-solid.rar -s -ds -m3 -md128k
r5 r5-solid-aes.rar -s -ds -m3 -md128k -pseek
r5 r5-plain.rar -m3
r5 r5-plain-aes.rar -m3 -pseek
r5 r5-m5.rar -s -ds -m5 -md256m
r5 r5-vol.rar -s -ds -m3 -md128k -v24k
# One RAR5 entry larger than the root seek tests' 64 KiB checkpoint
# interval (the fuzz seeds of FuzzSeek).
(cd "$src/words" && rar a -idq -cfg- -mt1 -m3 -md128k "$out/r5-words.rar" words.txt)
sh ./make-bzppmd.sh

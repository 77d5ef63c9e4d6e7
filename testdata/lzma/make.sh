#!/bin/sh
# Makes the LZMA and LZMA2 test streams with the real tools (xz, 7zz) and
# writes streams.tsv: name, form, lc, lp, pb, dictionary, size, sha256 of
# the decoded data. Rerunnable; inputs come from gen.go.
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go run gen.go "$tmp"
touch -d 2020-01-01T00:00:00Z "$tmp"/*.bin

# .lzma (LZMA_Alone): xz writes an unknown size and an end marker.
xz --format=lzma --lzma1=preset=6,dict=64KiB -c "$tmp/text.bin" > text.lzma
xz --format=lzma --lzma1=preset=1,lc=0,lp=4,pb=4,dict=4KiB -c "$tmp/text.bin" > text-lc0lp4pb4.lzma
# Raw LZMA2 with every chunk kind.
xz --format=raw --lzma2=preset=6,dict=64KiB -c "$tmp/chunks.bin" > chunks.lzma2
xz --format=raw --lzma2=preset=6,dict=64KiB -c "$tmp/chunks2.bin" > chunks2.lzma2
# 7z with plain headers: the packed stream is bytes 32 .. 32+NextHeaderOffset.
rm -f text-lzma.7z text-lzma-lc8lp4.7z text-lzma2.7z text-lzma.zip
(cd "$tmp" && 7zz a -bd -t7z -mhc=off -mtc=off -mta=off -m0=lzma:d=64k:lc=3:lp=0:pb=2 "$OLDPWD/text-lzma.7z" text.bin >/dev/null)
(cd "$tmp" && 7zz a -bd -t7z -mhc=off -mtc=off -mta=off -m0=lzma:d=64k:lc=8:lp=4:pb=1 "$OLDPWD/text-lzma-lc8lp4.7z" text.bin >/dev/null)
(cd "$tmp" && 7zz a -bd -t7z -mhc=off -mtc=off -mta=off -m0=lzma2:d=64k "$OLDPWD/text-lzma2.7z" text.bin >/dev/null)
# ZIP method 14.
(cd "$tmp" && 7zz a -bd -tzip -m0=lzma "$OLDPWD/text-lzma.zip" text.bin >/dev/null)

row() { # name form lc lp pb dict input
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" \
		"$(wc -c < "$tmp/$7" | tr -d ' ')" "$(sha256sum "$tmp/$7" | cut -d' ' -f1)"
}
{
	row text.lzma lzma-alone - - - - text.bin
	row text-lc0lp4pb4.lzma lzma-alone - - - - text.bin
	row chunks.lzma2 lzma2 - - - 65536 chunks.bin
	row chunks2.lzma2 lzma2 - - - 65536 chunks2.bin
	row text-lzma.7z 7z-lzma 3 0 2 65536 text.bin
	row text-lzma-lc8lp4.7z 7z-lzma 8 4 1 65536 text.bin
	row text-lzma2.7z 7z-lzma2 - - - 65536 text.bin
	row text-lzma.zip zip-lzma - - - - text.bin
} > streams.tsv

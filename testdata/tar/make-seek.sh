#!/bin/sh
# Makes the tarballs the tar package's seek tests read (seek.tar.*): a
# GNU tar of 14 files, about 200 KB in all, of text that compresses to
# a half or so, in gzip as six members (cat of six gzip runs, cut inside
# entries: gzip -6 ends a Deflate block every 32K symbols, one or two
# per member here, so the member starts give the checkpoints), bzip2 -1
# (two 100 kB blocks), lzip as two members (cat of two runs) and .lzma
# (LZMA checkpoints come at most every 256 KiB of output, so one or
# two). Run from anywhere: sh testdata/tar/make-seek.sh. Needs GNU tar,
# gzip, bzip2, lzip, xz, awk.
set -eu
cd "$(dirname "$0")"
out=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src"
i=0
while [ $i -lt 14 ]; do
	# Sizes vary (1 byte to ~30 KB) so entries start at many offsets.
	awk -v seed=$i -v n=$(( (i * 7919) % 30000 + 1 )) 'BEGIN {
		srand(seed); s = ""
		while (length(s) < n) s = s sprintf("%08x%06x %s\n", int(rand()*2^32), int(rand()*2^24), substr("alphabetagammadeltaepsilon", 1 + int(rand()*20), 6))
		printf "%s", substr(s, 1, n)
	}' > "$src/f$i.txt"
	i=$((i+1))
done
tar --sort=name --mtime=2024-01-02 --owner=0 --group=0 --numeric-owner --format=gnu -C "$src" -cf "$work/seek.tar" .
size=$(wc -c < "$work/seek.tar")
part=$((size / 6 + 1))
: > "$out/seek.tar.gz"
k=0
while [ $k -lt 6 ]; do
	tail -c +$((k * part + 1)) "$work/seek.tar" | head -c $part | gzip -6 -n >> "$out/seek.tar.gz"
	k=$((k+1))
done
bzip2 -1 -c "$work/seek.tar" > "$out/seek.tar.bz2"
head -c $((size / 2)) "$work/seek.tar" | lzip -6 > "$work/1.lz"
tail -c +$((size / 2 + 1)) "$work/seek.tar" | lzip -6 > "$work/2.lz"
cat "$work/1.lz" "$work/2.lz" > "$out/seek.tar.lz"
xz --format=lzma -6 -c "$work/seek.tar" > "$out/seek.tar.lzma"

#!/bin/sh
# Makes the tarballs the tar package's seek tests read (seek.tar.*): a
# GNU tar of 14 files, about 200 KB in all, of text that compresses to
# a half or so, in gzip as six members (cat of six gzip runs, cut inside
# entries: gzip -6 ends a Deflate block every 32K symbols, one or two
# per member here, so the member starts give the checkpoints), bzip2 -1
# (two 100 kB blocks), lzip as two members (cat of two runs) and .lzma
# (LZMA checkpoints come at most every 256 KiB of output, so one or
# two). xz needs MBs for several LZMA2 chunks (one ends at most every
# 2 MiB of output or 64 KiB of packed input), so seek.tar.xz is another
# tar: f0-f5 and three files of 1-2.6 MB that repeat a 4 KB block with
# one line changed in each (about 25 KB compressed), as two streams with
# stream padding between (the first CRC-64 in 1.5 MB blocks, the second
# SHA-256 behind an x86 BCJ filter); seek.txt.xz is a bare file of such
# text as two streams (CRC-32, CRC-64). seek.tar.zst is seek.tar as
# eight zstd frames (cat of eight zstd runs, cut inside entries: the
# frame boundaries give the checkpoints): one run reads a file, so its
# frame says its content size, one has no checksum (--no-check), and a
# skippable frame such as pzstd writes (its 4-byte data the next frame's
# size) comes before the fifth. Run from anywhere:
# sh testdata/tar/make-seek.sh. Needs GNU tar, gzip, bzip2, lzip, xz,
# zstd, awk.
. "$(dirname "$0")/../lib.sh"
work=$src
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
part=$((size / 8 + 1))
: > "$out/seek.tar.zst"
k=0
while [ $k -lt 8 ]; do
	tail -c +$((k * part + 1)) "$work/seek.tar" | head -c $part > "$work/part"
	case $k in
	2) zstd -q -3 -c "$work/part" > "$work/part.zst" ;;
	5) zstd -q -3 --no-check -c < "$work/part" > "$work/part.zst" ;;
	*) zstd -q -3 -c < "$work/part" > "$work/part.zst" ;;
	esac
	if [ $k -eq 4 ]; then
		n=$(wc -c < "$work/part.zst")
		printf "\\120\\052\\115\\030\\004\\000\\000\\000\\$(printf %o $((n & 255)))\\$(printf %o $((n >> 8 & 255)))\\$(printf %o $((n >> 16 & 255)))\\000" >> "$out/seek.tar.zst"
	fi
	cat "$work/part.zst" >> "$out/seek.tar.zst"
	k=$((k+1))
done

# rep SEED SIZE: SIZE bytes of 4 KB blocks of the same 64 lines, one of
# them replaced by a line of its own in each block.
rep() {
	awk -v seed="$1" -v n="$2" 'BEGIN {
		srand(seed)
		for (l = 0; l < 64; l++) base[l] = sprintf("%08x %s %s\n", int(rand()*2^32), substr("alphabetagammadeltaepsilonzetaetatheta", 1 + int(rand()*28), 10), substr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 1 + int(rand()*20), 40))
		size = 0; b = 0
		while (size < n) {
			k = int(rand()*64)
			for (l = 0; l < 64 && size < n; l++) {
				s = base[l]
				if (l == k) s = sprintf("%08x block %06d %-38s\n", int(rand()*2^32), b, substr("mutationvariantchangeedit", 1 + int(rand()*10), 12))
				if (size + length(s) > n) s = substr(s, 1, n - size)
				printf "%s", s; size += length(s)
			}
			b++
		}
	}'
}
xsrc=$work/xsrc
mkdir -p "$xsrc"
for i in 0 1 2 3 4 5; do cp "$src/f$i.txt" "$xsrc/"; done
rep 1 1200000 > "$xsrc/f1-big.txt"
rep 2 2600000 > "$xsrc/f3-big.txt"
rep 3 1700000 > "$xsrc/f5-big.txt"
tar --sort=name --mtime=2024-01-02 --owner=0 --group=0 --numeric-owner --format=gnu -C "$xsrc" -cf "$work/xseek.tar" .
size=$(wc -c < "$work/xseek.tar")
head -c $((size / 2)) "$work/xseek.tar" | xz --check=crc64 --block-size=1500000 --lzma2=dict=256KiB > "$work/1.xz"
tail -c +$((size / 2 + 1)) "$work/xseek.tar" | xz --check=sha256 --x86 --lzma2=dict=256KiB > "$work/2.xz"
{ cat "$work/1.xz"; printf '\0\0\0\0'; cat "$work/2.xz"; } > "$out/seek.tar.xz"
rep 4 2500000 | xz --check=crc32 --lzma2=dict=256KiB > "$work/1.xz"
rep 5 2300000 | xz --check=crc64 --lzma2=dict=256KiB > "$work/2.xz"
cat "$work/1.xz" "$work/2.xz" > "$out/seek.txt.xz"

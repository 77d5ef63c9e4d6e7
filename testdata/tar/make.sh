#!/bin/sh
# Makes the tar test archives with the real tools: GNU tar in every
# format it writes (ustar, gnu, oldgnu, pax, v7), sparse files, long
# names, links, a FIFO; bsdtar; and the stream compressors gzip, pigz,
# bzip2, xz (also .lzma), zstd and lzip, over tarballs and single files.
# Run from anywhere: sh testdata/tar/make.sh. Needs GNU tar, bsdtar,
# gzip, pigz, bzip2, xz, zstd, lzip (../shared/tools/install-reference-tools.sh).
. "$(dirname "$0")/../lib.sh"
work=$src
src=$work/src
mkdir -p "$src/dir/sub" "$src/empty"
printf 'hello, tar\n' > "$src/hello.txt"
i=0; while [ $i -lt 300 ]; do echo "line $i of a text file that compresses"; i=$((i+1)); done > "$src/dir/text.txt"
head -c 3000 /dev/urandom > "$src/dir/sub/random.bin"
: > "$src/dir/zero-length"
ln -s ../hello.txt "$src/dir/link-to-hello"
ln "$src/dir/text.txt" "$src/dir/hardlink-to-text"
long=$src/dir/a-rather-long-directory-name-that-goes-on-and-on-for-a-while
mkdir -p "$long"
echo "long name" > "$long/and-a-file-name-that-makes-the-whole-path-longer-than-one-hundred-bytes.txt"
mkfifo "$src/fifo"
# A sparse file: 1 MiB with data at 0, 300 KiB and the end.
sp=$src/sparse.img
truncate -s 1M "$sp"
printf 'start' | dd of="$sp" conv=notrunc status=none
printf 'middle' | dd of="$sp" bs=1 seek=307200 conv=notrunc status=none
printf 'end' | dd of="$sp" bs=1 seek=1048573 conv=notrunc status=none
touch -d '2024-01-02 03:04:05.123456789' "$src/hello.txt"

T="tar --sort=name --mtime=2024-01-02 --owner=1000:1000 --group=1000:1000 --numeric-owner -C $src"
$T --format=gnu -cf "$out/gnu.tar" --exclude=./sparse.img .
$T --format=oldgnu -cf "$out/oldgnu.tar" --exclude=./sparse.img .
$T --format=pax -cf "$out/pax.tar" --exclude=./sparse.img .
tar --sort=name --format=pax --owner=alice:1234 --group=staff:99 -C "$src" -cf "$out/pax-times.tar" hello.txt dir/text.txt
$T --format=ustar -cf "$out/ustar.tar" --exclude='./dir/a-rather*' --exclude=./sparse.img .
$T --format=v7 -cf "$out/v7.tar" --exclude='./dir/a-rather*' --exclude=./fifo --exclude=./sparse.img .
$T --format=gnu --sparse -cf "$out/sparse-gnu.tar" sparse.img hello.txt
$T --format=pax --sparse --sparse-version=0.1 -cf "$out/sparse-pax01.tar" sparse.img hello.txt
$T --format=pax --sparse --sparse-version=1.0 -cf "$out/sparse-pax10.tar" sparse.img hello.txt
(cd "$src" && bsdtar -cf "$out/bsdtar.tar" --exclude ./sparse.img .)

# Compressed tarballs of the GNU one (without the sparse image: small).
$T --format=gnu -cf "$work/small.tar" --exclude=./sparse.img .
gzip -6 -n -c "$work/small.tar" > "$out/small.tar.gz"
pigz -6 -n -c "$work/small.tar" > "$out/small-pigz.tgz"
head -c 4096 "$work/small.tar" | gzip -n > "$work/a.gz"
tail -c +4097 "$work/small.tar" | gzip -n > "$work/b.gz"
cat "$work/a.gz" "$work/b.gz" > "$out/small-multimember.tar.gz"
bzip2 -9 -c "$work/small.tar" > "$out/small.tar.bz2"
xz -6 -c "$work/small.tar" > "$out/small.tar.xz"
xz --format=lzma -6 -c "$work/small.tar" > "$out/small.tar.lzma"
zstd -q -3 -c "$work/small.tar" > "$out/small.tar.zst"
head -c 4096 "$work/small.tar" | zstd -q --no-check -c > "$work/a.zst"
tail -c +4097 "$work/small.tar" | zstd -q -c > "$work/b.zst"
# A skippable frame (magic 0x184D2A50, 4 bytes of content) in front.
printf '\120\052\115\030\004\000\000\000skip' > "$work/skip.zst"
cat "$work/skip.zst" "$work/a.zst" "$work/b.zst" > "$out/small-frames.tar.zst"
lzip -6 -c "$work/small.tar" > "$out/small.tar.lz"
# Multi-member lzip: members concatenated (as lzip -b makes them, which
# needs more than 100 kB of output per member).
head -c 4096 "$work/small.tar" | lzip -c > "$work/a.lz"
tail -c +4097 "$work/small.tar" | lzip -c > "$work/b.lz"
cat "$work/a.lz" "$work/b.lz" > "$out/small-members.tar.lz"

# Single compressed files.
cp "$src/dir/text.txt" "$work/text.txt"
gzip -6 -c "$work/text.txt" > "$out/text.txt.gz"          # FNAME text.txt
gzip -6 -n -c "$work/text.txt" > "$out/noname.txt.gz"     # no FNAME
bzip2 -c "$work/text.txt" > "$out/text.txt.bz2"
xz -c "$work/text.txt" > "$out/text.txt.xz"
xz --format=lzma -c "$work/text.txt" > "$out/text.txt.lzma"
zstd -q -c "$work/text.txt" > "$out/text.txt.zst"
# The stream checks other than the defaults (StreamCheck names them).
xz --check=none -c "$work/text.txt" > "$out/text-nocheck.txt.xz"
xz --check=crc32 -c "$work/text.txt" > "$out/text-crc32.txt.xz"
xz --check=sha256 -c "$work/text.txt" > "$out/text-sha256.txt.xz"
zstd -q --no-check -c "$work/text.txt" > "$out/text-nocheck.txt.zst"
lzip -c "$work/text.txt" > "$out/text.txt.lz"
head -c 5000 "$work/text.txt" | lzip -c > "$work/c.lz"
tail -c +5001 "$work/text.txt" | lzip -c > "$work/d.lz"
cat "$work/c.lz" "$work/d.lz" > "$out/text-members.txt.lz"
cp "$work/text.txt" "$out/text.txt"

# GNU incremental (tar -g, listed-incremental): every directory is a type
# 'D' dump directory whose data lists the names it held (issue 29).
inc=$work/inc
mkdir -p "$inc/dir/sub"
printf 'one\n' > "$inc/dir/one.txt"
printf 'two\n' > "$inc/dir/sub/two.txt"
(cd "$inc" && tar --format=gnu --owner=1000:1000 --group=1000:1000 --numeric-owner -g "$work/snap" -cf "$out/incremental.tar" dir)

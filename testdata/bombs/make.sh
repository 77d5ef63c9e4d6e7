#!/usr/bin/env bash
# Decompression bombs made by the real tools, small on disk (a few KB)
# and large when decoded, for the root's limit tests (bomb_test.go):
#   zeros.7z      64 MiB of zeros, 7z LZMA2 (7zz)
#   zeros.rar     64 MiB of zeros, RAR5 (rar)
#   solid.7z      8 files of 16 MiB zeros in one solid LZMA2 folder (PackedSize -1)
#   copies.rar    8 identical files of 16 MiB zeros, 7 stored as RAR5 file
#                 references (-oi:1): they produce without consuming
#   zeros.tar.bz2 a tar of one 1.5 GiB file of zeros, bzip2 (1.2 KB): the
#                 decompressed tar stream is undeclared output (tar/compress.go)
#   dd-zeros.zip  1.5 GiB of zeros read from a pipe by zip -Z bzip2: the local
#                 header leaves the size to a data descriptor, so a stream
#                 reader does not know it (undeclared output)
# The last two pass the CLI's 1 GiB ratio floor (cmd/unarc TestCLIBombs).
# The ZIP bombs are built in Go by internal/testutil (zipcraft.go).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
head -c 67108864 /dev/zero > zeros.bin
for i in 1 2 3 4 5 6 7 8; do head -c 16777216 /dev/zero > z$i.bin; done
rm -f "$here"/*.7z "$here"/*.rar "$here"/*.bz2 "$here"/*.zip
7zz a -t7z -m0=lzma2 -mx9 -mmt1 -bd -bso0 "$here/zeros.7z" zeros.bin
7zz a -t7z -m0=lzma2 -mx9 -mmt1 -ms=on -bd -bso0 "$here/solid.7z" z?.bin
rar a -cfg- -m5 -ma5 -s- -ep -idq "$here/zeros.rar" zeros.bin
rar a -cfg- -m5 -ma5 -s- -oi:1 -ep -idq "$here/copies.rar" z?.bin
truncate -s 1536M big.bin # sparse: nothing is written
tar cf - big.bin | bzip2 -9 > "$here/zeros.tar.bz2"
cat big.bin | zip -q -Z bzip2 -9 - - | cat > "$here/dd-zeros.zip" # a pipe in and out

#!/bin/sh
# Makes the archives of the root fs.FS tests with the real tools (zip,
# 7zz, rar): the same small tree in each format, with a relative symlink
# to a file, a symlink to a directory, a UTF-8 name, and (ZIP only, the
# one format that stores legacy code-page names) a name whose bytes are
# CP437, not UTF-8, written without the UTF-8 flag. solid.* put a 12-byte
# file behind ~90 KiB of other data in one solid block.
set -eu
export TZ=UTC
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./*.zip ./*.7z ./*.rar
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cd "$src"
mkdir -p tree/dir/sub
printf 'hello, world\n' > tree/hello
printf 'alpha\n' > tree/dir/a.txt
printf 'nested\n' > tree/dir/sub/n.txt
printf 'unicode\n' > "tree/dir/ünï-名前.txt"
i=0; : > tree/big.txt
while [ $i -lt 3000 ]; do echo "line $i of the fs test text $(( (i*7919) % 100000 ))" >> tree/big.txt; i=$((i+1)); done
ln -s hello tree/link
ln -s dir tree/dirlink
ln -s ../hello tree/dir/up
find tree -exec touch -h -d '2024-01-02 03:04:05' {} +

cd tree
zip -q -y -r -X "$out/tree.zip" .
7zz a -snl -bd -bso0 "$out/tree.7z" .
LC_ALL=C.UTF-8 rar a -idq -cfg- -ol -r -s "$out/tree.rar" .
cd ..

# A CP437 name: 0x82 is 'é' and 0x9b is '¢' in code page 437.
mkdir cp && printf 'legacy\n' > "cp/caf$(printf '\202')-$(printf '\233').txt"
find cp -exec touch -h -d '2024-01-02 03:04:05' {} +
(cd cp && zip -q -X "$out/cp437.zip" ./*)
(cd cp && zip -q -X "$out/tree.zip" ./*) # the tree ZIP has it too

# Solid: ~90 KiB of pseudo-random text first, the small file last.
mkdir solid
awk 'BEGIN{srand(7); for(i=0;i<4000;i++) printf "%d %x %d\n", i, int(rand()*2^31), int(rand()*1e6)}' > solid/a-big.txt
printf 'last entry\n\n' > solid/z-last.txt
find solid -exec touch -h -d '2024-01-02 03:04:05' {} +
(cd solid && 7zz a -bd -bso0 -ms=on -mx1 "$out/solid.7z" a-big.txt z-last.txt)
(cd solid && rar a -idq -cfg- -s -m1 "$out/solid.rar" a-big.txt z-last.txt)

# A locked RAR (rar -k).
(cd tree && LC_ALL=C.UTF-8 rar a -idq -cfg- -k "$out/locked.rar" hello)

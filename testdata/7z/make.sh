#!/bin/sh
# Rebuilds the small 7z test archives with the reference 7zz.
# Inputs are generated deterministically (gen.py); mtimes are fixed.
set -eu
export TZ=UTC
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/gen.py" "$tmp/in"
cd "$tmp/in"
ln -s text.txt link-to-text
ln -s dir/sub link-to-dir
find . -exec touch -h -d '2024-01-02 03:04:05' {} +
rm -f "$here"/*.7z "$here"/*.7z.0*
z() { name=$1; shift; 7zz a -t7z -bd -bso0 -mtm=on -mmt1 "$here/$name" "$@" >/dev/null; }
all="text.txt dir emptydir code.bin"
links="link-to-text link-to-dir"
# Container features.
z copy.7z -m0=copy -mhc=off -snl $all $links
z copy_hc.7z -m0=copy $all
z lzma.7z -m0=lzma -mx5 $all
z lzma2.7z -m0=lzma2 -mx5 -snl $all $links
z lzma2_nonsolid.7z -m0=lzma2 -ms=off $all
z ppmd.7z -m0=ppmd -mx5 $all
z bzip2.7z -m0=bzip2 $all
z deflate.7z -m0=deflate $all
z deflate64.7z -m0=deflate64 $all
z aes_copy.7z -mhc=off -m0=copy -psecret -mhe=off $all
z aes_lzma2_he.7z -m0=lzma2 -psecret -mhe=on $all
z aes_lzma2.7z -m0=lzma2 -psecret -mhe=off $all
z aes_copy_he.7z -m0=copy -mhc=off -psecret -mhe=on $all
# Filters over Copy (so filter bugs show without a compressor) and LZMA.
for f in BCJ ARM ARMT ARM64 PPC SPARC IA64 RISCV; do
  lc=$(echo $f | tr A-Z a-z)
  z filter_${lc}_copy.7z -m0=$f -m1=copy code.bin
  z filter_${lc}.7z -mf=$f -m0=lzma2 code.bin
done
z filter_delta4_copy.7z -mhc=off -m0=delta:4 -m1=copy code.bin text.txt
z filter_bcj2.7z -mf=BCJ2 -m0=lzma code.bin text.txt
z filter_bcj2_copy.7z -mhc=off -m0=BCJ2 -m1=copy -m2=copy -m3=copy -mb0s0:1 -mb0s1:2 -mb0s2:3 code.bin text.txt
# Multi-volume.
z vol.7z -m0=copy -v4k $all
# Tiny archives (fuzz seeds): a few short files, each coder.
printf 'hello, 7z\n' > tiny.txt
touch -d '2024-01-02 03:04:05' tiny.txt
for m in copy lzma lzma2 ppmd bzip2 deflate; do
  z tiny_$m.7z -m0=$m tiny.txt dir/empty.txt emptydir
done
z tiny_copy_plainhdr.7z -m0=copy -mhc=off tiny.txt dir/empty.txt emptydir
z tiny_aes_he.7z -m0=copy -psecret -mhe=on tiny.txt
z tiny_bcj2.7z -mf=BCJ2 -m0=lzma tiny.txt
sh "$here/make_corners.sh"

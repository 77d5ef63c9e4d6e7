#!/bin/sh
# Rebuilds the ar test archives in this directory with the real tools.
# Run from anywhere: sh testdata/ar/make.sh
#
#   gnu.a          GNU ar rc (binutils): two objects from cc, one with a
#                  name over 15 bytes (the "//" table, a "/N" name), the
#                  "/" symbol table; deterministic (zero times and owners)
#   gnu-u.a        the same with ar rcU: real times, owners and modes
#   bsd.a          libarchive's BSD ar (bsdtar --format arbsd): "#1/N"
#                  names stored at the start of the data; odd sizes padded
#   pkg-gz.deb, pkg-xz.deb, pkg-zst.deb, pkg-none.deb
#                  dpkg-deb --build -Zgzip/-Zxz/-Zzstd/-Znone of one small
#                  package (a directory tree, a symlink, an executable)
. "$(dirname "$0")/../lib.sh"

o=$src/obj
mkdir -p "$o"
printf 'int a_rather_long_function_name(int x) { return x * 3 + 1; }\n' > "$o/a_member_with_a_long_name.c"
printf 'int b(int x) { return x - 7; }\n' > "$o/b.c"
(cd "$o" && cc -c -O1 a_member_with_a_long_name.c b.c)
gen 4 301 txt > "$o/odd.txt"
stamp
rm -f gnu.a gnu-u.a bsd.a
(cd "$o" && ar rc "$out/gnu.a" a_member_with_a_long_name.o b.o odd.txt)
(cd "$o" && ar rcU "$out/gnu-u.a" a_member_with_a_long_name.o b.o odd.txt)
(cd "$o" && bsdtar --format arbsd -cf "$out/bsd.a" a_member_with_a_long_name.o b.o odd.txt)

p=$src/pkg
mkdir -p "$p/DEBIAN" "$p/usr/bin" "$p/usr/share/doc/unarc-test"
cat > "$p/DEBIAN/control" <<CTL
Package: unarc-test
Version: 1.0
Architecture: all
Maintainer: unarc tests <tests@example.invalid>
Description: a package for the unarc tests
CTL
printf '#!/bin/sh\necho hello\n' > "$p/usr/bin/hello"
chmod 0755 "$p/usr/bin/hello"
words 5 2000 > "$p/usr/share/doc/unarc-test/README"
ln -s README "$p/usr/share/doc/unarc-test/README.link"
find "$p" -exec touch -h -d '2024-01-02 03:04:05' {} +
for z in gzip:gz xz:xz zstd:zst none:none; do
	SOURCE_DATE_EPOCH=1704164645 dpkg-deb --root-owner-group -Z"${z%%:*}" --build "$p" "$out/pkg-${z#*:}.deb" >/dev/null
done

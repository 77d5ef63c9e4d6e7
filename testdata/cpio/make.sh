#!/bin/sh
# Rebuilds the cpio test archives in this directory with GNU cpio 2.13,
# one per header format it writes (-H bin, odc, newc, crc), from the
# same tree: a directory, text and binary files, an empty file, a
# symlink, three hard links to one file, a FIFO (and, run as root, a
# character device). Run from anywhere: sh testdata/cpio/make.sh
#
#   bin.cpio       old binary, this machine's byte order (little-endian)
#   bin-be.cpio    the same archive as a big-endian machine writes it:
#                  GNU cpio writes the host's order only, so the 16-bit
#                  words of each header are swapped (names and data are
#                  bytes, unchanged), as cpio -o on a big-endian host does
#   odc.cpio       portable ASCII (070707)
#   newc.cpio      SVR4 (070701); hard links carry their data on the last
#   crc.cpio       SVR4 with the byte sum (070702)
#   concat.cpio    newc.cpio then odc.cpio, each padded to 512 bytes by
#                  cpio, as an initramfs image joins several archives
#   newc.cpio.gz, .bz2, .xz, .zst, .lzma
#                  newc.cpio compressed by gzip -n, bzip2, xz, zstd and
#                  xz --format=lzma, as initramfs images are
. "$(dirname "$0")/../lib.sh"

t=$src/in
mkdir -p "$t/dir/sub"
gen 1 3000 txt > "$t/dir/text.txt"
gen 2 700 bin > "$t/dir/sub/noise.bin"
: > "$t/empty"
printf 'hello\n' > "$t/hello.txt"
ln -s dir/text.txt "$t/link"
words 3 400 > "$t/hard1"
ln "$t/hard1" "$t/hard2"
ln "$t/hard1" "$t/dir/hard3"
mkfifo "$t/fifo"
chmod 0750 "$t/dir/sub"
chmod 4755 "$t/hello.txt"
if [ "$(id -u)" = 0 ]; then
	mknod "$t/null" c 1 3
fi
find "$t" -exec touch -h -d '2024-01-02 03:04:05' {} +

cd "$t"
for h in bin odc newc crc; do
	find . -mindepth 1 | LC_ALL=C sort | cpio -o --quiet -H "$h" -R 1000:1000 > "$out/$h.cpio"
done
cat "$out/newc.cpio" "$out/odc.cpio" > "$out/concat.cpio"
gzip -n -9 -c "$out/newc.cpio" > "$out/newc.cpio.gz"
bzip2 -9 -c "$out/newc.cpio" > "$out/newc.cpio.bz2"
xz -c "$out/newc.cpio" > "$out/newc.cpio.xz"
zstd -q -19 -c "$out/newc.cpio" > "$out/newc.cpio.zst"
xz --format=lzma -c "$out/newc.cpio" > "$out/newc.cpio.lzma"

# bin-be.cpio: swap the bytes of each 16-bit header word (13 words per
# header); the name (padded to even) and the data (padded to even) stay.
perl -e '
	local $/; my $b = <STDIN>; my $o = ""; my $p = 0;
	while ($p + 26 <= length $b) {
		my @w = unpack("v13", substr($b, $p, 26));
		last if $w[0] != 0x71c7;
		my $ns = $w[10]; my $fs = $w[11] * 65536 + $w[12];
		my $n = $ns + ($ns & 1); my $d = $fs + ($fs & 1);
		$o .= pack("n13", @w) . substr($b, $p + 26, $n + $d);
		$p += 26 + $n + $d;
	}
	$o .= substr($b, $p);
	print $o;
' < "$out/bin.cpio" > "$out/bin-be.cpio"

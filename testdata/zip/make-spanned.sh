#!/bin/sh
# Rebuilds the spanned-set test archives: the last disk of an Info-ZIP
# split set (zip -s 64k) whose first disk is missing, as a reader meets
# one when a download lost a part. Only the last disk is committed; the
# missing .z01 is the point. Run from anywhere:
#   sh testdata/zip/make-spanned.sh
#
# spanned-lastdisk.zip: big.bin (70,000 bytes of noise) starts on the
#   missing .z01 and ends on this disk; small.txt lies wholly on it.
# spanned-lastdisk-unneeded.zip: the same disk with big.bin's central
#   header removed (the end record's count, size and offset patched to
#   match), so no listed entry needs the missing disk.
. "$(dirname "$0")/../lib.sh"

cd "$src"
gen 11 70000 bin > big.bin
printf 'small file on the last disk\n' > small.txt
touch -d '2024-01-02 03:04:05' big.bin small.txt
zip -q -X -0 -s 64k set.zip big.bin small.txt
[ -f set.z01 ] && [ ! -f set.z02 ] || { echo "make-spanned: expected exactly set.z01 and set.zip" >&2; exit 1; }
cp set.zip "$out/spanned-lastdisk.zip"
python3 - set.zip "$out/spanned-lastdisk-unneeded.zip" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
e = d.rfind(b'PK\x05\x06')
disk, cddisk, nthis, ntotal, size, off = struct.unpack('<HHHHII', d[e+4:e+20])
# The central directory is on this (the last) disk: off is relative to it.
assert cddisk == disk, "directory not on the last disk"
p = off
n, m, k = struct.unpack('<HHH', d[p+28:p+34])
first = 46 + n + m + k
assert d[p+46:p+46+n] == b'big.bin', d[p+46:p+46+n]
del d[p:p+first]
e -= first
struct.pack_into('<HHII', d, e+8, nthis-1, ntotal-1, size-first, off)
open(sys.argv[2], 'wb').write(d)
PY

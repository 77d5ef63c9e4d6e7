#!/bin/sh
# Rebuilds the 7z reading-corner archives (issue 14, items 7-9) with the
# reference 7zz; make.sh runs it last. Inputs are generated here.
. "$(dirname "$0")/../lib.sh"
here=$out
cd "$src"
python3 - <<'PY'
with open("eos-a.txt", "w") as f:
    f.write("".join("record %06d of the end-marker test\n" % i for i in range(8192 // 36 + 1))[:8192])
with open("eos-b.txt", "w") as f:
    f.write("".join("second file line %05d\n" % i for i in range(200))[:4096])
PY
find . -exec touch -h -d '2024-01-02 03:04:05' {} +
z() { name=$1; shift; rm -f "$here/$name"; 7zz a -t7z -bd -bso0 -mtm=on -mmt1 "$here/$name" "$@" >/dev/null; }
# Item 8: LZMA with an end marker although the sizes are known; the
# folder's 12,288 bytes fill the (size-clamped) window exactly.
z eos_lzma.7z -m0=LZMA:eos eos-a.txt eos-b.txt
# Item 9: an unnamed entry, as `7zz a -si` writes it.
rm -f "$here/stdin.7z"
7zz a -t7z -bd -bso0 -mmt1 -si "$here/stdin.7z" < eos-b.txt >/dev/null
# Item 7: the start header zeroed (bytes 8..31), as an interrupted 7-Zip
# write leaves it; 7zz opens it with a "Headers Error" warning.
z zeroed_start.7z -m0=lzma2 eos-a.txt eos-b.txt
python3 - "$here/zeroed_start.7z" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[8:32] = bytes(24)
open(p, "wb").write(bytes(b))
PY

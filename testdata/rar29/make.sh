#!/bin/sh
# Rebuilds the RAR 2.9 (RAR4 format) test archives with the real rar
# (rar 6.x as rar6; -ma4 selects the RAR 3.x/4.x format and v29
# compression). Inputs are generated deterministically by gen.py; mtimes
# are fixed, so rerunning gives the same inputs (rar itself may vary).
set -eu
cd "$(dirname "$0")"
export TZ=UTC
RAR=${RAR:-rar6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 gen.py "$tmp"
find "$tmp" -type f -exec touch -d '2020-01-02 03:04:05' {} +
a() { # a NAME OPTIONS... -- FILES...
	name=$1; shift
	opts=""
	while [ "$1" != "--" ]; do opts="$opts $1"; shift; done
	shift
	rm -f "$PWD/$name"
	(cd "$tmp" && $RAR a -ma4 -cfg- -idq -ep -tl $opts "$OLDPWD/$name" "$@")
}
for m in 1 2 3 4 5; do
	a m$m.rar -m$m -- text.txt mixed.bin empty.txt
done
a solid.rar -s -m3 -- text.txt mixed.bin x86.bin small1.txt small2.txt
a ppmd.rar -m5 -mct+ -- text.txt
a ppmd_solid.rar -s -m5 -mct+ -- text.txt small1.txt small2.txt
a e8.rar -m3 -mcE+ -- x86.bin
a delta.rar -m3 -mcD+ -- delta.bin
a audio.rar -m3 -mcA+ -- audio.wav
a rgb.rar -m3 -mcC+ -- image.bmp
# -mcI+ (Itanium) is accepted by rar 6 but never applied, so no archive.
a big.rar -m3 -md4m -- big.bin
ls -l *.rar

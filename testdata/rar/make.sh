#!/bin/sh
# Makes the small RAR test archives of package rar with the real tools:
# rar 7 (RAR5) and rar6 -ma4 (RAR 4.x container). Rerunnable; inputs are
# deterministic (fixed content, fixed mtimes, TZ=UTC). Expected contents
# are checked by the tests against the inputs regenerated in Go (see
# rar/testdata_test.go), so only the archives are committed.
set -eu
export TZ=UTC
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./*.rar ./*.r[0-9][0-9] ./*.sfx
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cd "$src"

# Inputs: in/ holds text.txt (repetitive text, 11 KiB), rand.bin (4 KiB
# of pseudo-random bytes), an empty file, an empty dir, a nested dir and a
# unicode name; vol/big.txt (~38 KiB of text) is cut into 20 KiB volumes.
mkdir -p in/sub/deeper in/emptydir vol
i=0; : > in/text.txt
while [ $i -lt 200 ]; do echo "line $i of the unarc rar test text, quite compressible" >> in/text.txt; i=$((i+1)); done
head -c 4096 /dev/zero | openssl enc -aes-128-ctr -nosalt -K 00112233445566778899aabbccddeeff -iv 00000000000000000000000000000000 > in/rand.bin 2>/dev/null
i=0; : > vol/big.txt
while [ $i -lt 1200 ]; do echo "record $i: $(( (i*7919) % 100000 )) amount $(( (i*31337) % 1000000 ))" >> vol/big.txt; i=$((i+1)); done
: > in/sub/empty.txt
printf 'nested file\n' > in/sub/deeper/n.txt
printf 'unicode name\n' > "in/sub/ünïcødé-名前.txt"
mkdir -p vol2
head -c 28672 /dev/zero | openssl enc -aes-128-ctr -nosalt -K 00112233445566778899aabbccddeeff -iv 00000000000000000000000000000001 > vol2/rand28k.bin 2>/dev/null
printf 'after the split file\n' > vol2/after.txt
find in vol vol2 -exec touch -h -d '2024-01-02 03:04:05' {} +

R="rar a -r -idq -cfg- -tsm4 -tsc- -tsa-"
R4="rar6 a -r -idq -cfg- -ma4"
cd in
for m in 0 3; do $R -m$m "$out/rar5_m$m.rar" . ; done
$R -m3 -s "$out/rar5_solid.rar" .
$R -m3 -htb "$out/rar5_blake.rar" .
$R -m0 -ptest "$out/rar5_pw_stored.rar" .
$R -m3 -ptest "$out/rar5_pw.rar" .
$R -m3 -htb -ptest "$out/rar5_pw_blake.rar" .
$R -m0 -hptest "$out/rar5_hp_stored.rar" .
$R -m3 -s -hptest "$out/rar5_hp_solid.rar" .
$R -m0 -v20k "$out/rar5_vol.rar" ../vol/big.txt
$R -m3 -md64m "$out/rar5_md64m.rar" text.txt
# A file split across volumes under encryption: the last part's checksum
# is a MAC (-p), plain (-hp), BLAKE2sp MAC (-htb -p) or plain BLAKE2sp.
(cd ../vol2 && for v in "pw:-ptest" "hp:-hptest" "pw_blake:-htb -ptest" "blake:-htb"; do
	$R -m3 -v20k ${v#*:} "$out/rar5_${v%%:*}_vol.rar" rand28k.bin after.txt
done)
printf 'archive comment\nline two\n' > /tmp/unarc-rar-cmt.txt
$R -m0 -z/tmp/unarc-rar-cmt.txt "$out/rar5_comment.rar" text.txt
$R -m0 -rr5% "$out/rar5_rr.rar" text.txt
$R -m0 -qo+ "$out/rar5_qo.rar" .
$R -m0 -k "$out/rar5_locked.rar" text.txt
cd ..
mkdir -p links && cd links
printf 'target content\n' > target.txt
ln -s target.txt link.txt
ln -s ../outside abs_link
ln target.txt hard.txt
cp target.txt copy.txt
find . -exec touch -h -d '2024-01-02 03:04:05' {} +
rar a -idq -cfg- -m0 -ol -oh "$out/rar5_links.rar" target.txt link.txt abs_link hard.txt
rar a -idq -cfg- -m3 -oi:1 "$out/rar5_copy.rar" target.txt copy.txt
$R4 -m0 -ol "$out/rar4_links.rar" target.txt link.txt
cd ../in
for m in 0 3; do $R4 -m$m "$out/rar4_m$m.rar" . ; done
$R4 -m3 -s "$out/rar4_solid.rar" .
$R4 -m0 -ptest "$out/rar4_pw_stored.rar" .
$R4 -m3 -ptest "$out/rar4_pw.rar" .
$R4 -m0 -hptest "$out/rar4_hp_stored.rar" .
$R4 -m3 -hptest "$out/rar4_hp.rar" .
$R4 -m0 -v20k "$out/rar4_vol.rar" ../vol/big.txt
$R4 -m0 -v20k -vn "$out/rar4_oldvol.rar" ../vol/big.txt
$R4 -m0 -z/tmp/unarc-rar-cmt.txt "$out/rar4_comment.rar" text.txt
$R4 -m0 -rr5% "$out/rar4_rr.rar" text.txt
$R4 -m3 -rr10% "$out/rar4_rr_two.rar" text.txt rand.bin
$R4 -m0 -k "$out/rar4_locked.rar" text.txt
# A 44-character password: RAR 3.x's SHA-1 quirk only shows from 29.
LP=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH
$R4 -m3 -hp$LP "$out/rar4_hp_longpw.rar" text.txt
$R4 -m3 -p$LP "$out/rar4_pw_longpw.rar" text.txt
# SFX: rar's default.sfx module is ~270 KiB, too big to commit; the tests
# prepend a stub to these archives instead, and the corpus has real SFX files.
rm -f /tmp/unarc-rar-cmt.txt
cd "$out"
for f in *; do [ -f "$f" ] && touch -d '2024-01-02 03:04:05' "$f"; done
ls -l "$out"

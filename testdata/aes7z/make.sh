#!/bin/sh
# Rebuilds the 7zAES known-answer archives (internal/aes7z/kat_test.go)
# with the reference 7zz: one small file, Copy coder, plain header
# (-mhc=off -mhe=off) so the AES coder properties stay readable, under a
# few passwords (ASCII, Latin-1 + BMP symbols, a character outside the
# BMP). 7zz picks salt and IV at random, so a rebuild changes the bytes but
# not what the test checks.
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C.UTF-8 # the passwords are UTF-8
here=$out
cd "$src"
i=0
: > kat.txt
while [ $i -lt 40 ]; do
  printf '7zAES known answer %02d\n' $i >> kat.txt
  i=$((i + 1))
done
touch -d '2024-01-02 03:04:05' kat.txt
z() { rm -f "$here/$1"; 7zz a -t7z -bd -bso0 -mmt1 -m0=copy -mhc=off -mhe=off "-p$2" "$here/$1" kat.txt >/dev/null; }
z ascii.7z 'secret'
z bmp.7z 'pässwörd ☃'
z astral.7z 'key 🔑'

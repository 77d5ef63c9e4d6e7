#!/usr/bin/env bash
# Remakes the Verify test archives: the same four files in ZIP, RAR5
# (BLAKE2sp), RAR4 and 7z, and the b3sum/sha256sum output of the files
# (verify_test.go compares Verify's digests and its own hash of the
# extracted bytes with them). Tools: zip, rar, rar6, 7zz, b3sum, sha256sum.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p src/dir
seq 1 3000 > src/numbers.txt                 # compressible text
head -c 70000 /dev/zero | tr '\0' 'a' > src/dir/as.txt
awk 'BEGIN{x=12345; for(i=0;i<6000;i++){x=(x*1103515245+12345)%2147483648; printf "%c", 33+x%90}}' > src/noise.txt
: > src/empty.txt
touch -d '2024-01-02 03:04:05' src/* src/dir/* src/dir
cd src
rm -f "$here"/*.zip "$here"/*.rar "$here"/*.7z
zip -q -X -r -9 "$here/verify.zip" numbers.txt dir noise.txt empty.txt
zip -q -X -0 "$here/verify-store.zip" numbers.txt   # stored: the tests flip a content byte
rar a -cfg- -m3 -htb -qo- -idq "$here/verify-rar5.rar" numbers.txt dir noise.txt empty.txt
rar6 a -cfg- -ma4 -m3 -qo- -idq "$here/verify-rar4.rar" numbers.txt dir noise.txt empty.txt
7zz a -t7z -mx5 -mmt1 "$here/verify.7z" numbers.txt dir noise.txt empty.txt >/dev/null
b3sum numbers.txt dir/as.txt noise.txt empty.txt > "$here/b3sums.txt"
sha256sum numbers.txt dir/as.txt noise.txt empty.txt > "$here/sha256sums.txt"

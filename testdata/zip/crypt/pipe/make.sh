#!/bin/sh
# Rebuilds the encrypted ZIPs written to a pipe from a pipe (password
# SECRET): Info-ZIP zip 3.0 reading standard input knows no size, so each
# entry ("-") has 0xFFFFFFFF sizes in its local header and a signed Zip64
# data descriptor after its data; the forward Reader must find the end of
# the encrypted data without a size. The input is text.txt of ../make.sh.
#   sh testdata/zip/crypt/pipe/make.sh
set -eu
export TZ=UTC LC_ALL=C.UTF-8
out=$(cd "$(dirname "$0")" && pwd)
text() {
	i=0
	while [ $i -lt 150 ]; do
		printf 'line %04d: the quick brown fox jumps over the lazy dog\n' $i
		i=$((i + 1))
	done
}
rm -f "$out"/*.zip
# ZipCrypto over Store: not self-delimiting, found by the descriptor scan.
text | zip -q -0 -P SECRET - - > "$out/infozip-zipcrypto-pipe-store.zip"
# ZipCrypto over Deflate.
text | zip -q -P SECRET - - > "$out/infozip-zipcrypto-pipe-deflate.zip"

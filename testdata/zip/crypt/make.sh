#!/bin/sh
# Rebuilds the encrypted ZIP test archives in this directory with the real
# tools (Info-ZIP zip 3.0, 7-Zip 7zz, bsdtar). The password is SECRET.
# Inputs are generated deterministically; salts and headers are random, so
# the archives differ on every run (the tests do not depend on the bytes).
#   sh testdata/zip/crypt/make.sh
. "$(dirname "$0")/../lib.sh"

mkdir -p in/dir
printf 'hello, world\n' > in/hello.txt
textlines 150 > in/text.txt
# 2 KiB of incompressible bytes: sha256("rand<i>") for i = 0..63.
randbin 64 > in/rand.bin
printf 'nested\n' > in/dir/nested.txt
find in -exec touch -h -d '2024-01-02 03:04:05' {} +
cd in
files="hello.txt text.txt rand.bin dir/nested.txt"

z() { rm -f "$out/$1"; }

# Info-ZIP ZipCrypto: check byte from the CRC (seekable output) ...
z infozip-zipcrypto.zip
zip -q -P SECRET "$out/infozip-zipcrypto.zip" $files
# ... and streamed to stdout: data descriptors, check byte from the time.
z infozip-zipcrypto-stream.zip
zip -q -P SECRET - $files > "$out/infozip-zipcrypto-stream.zip"
# Stored, streamed: the Reader must scan for the descriptor.
z infozip-zipcrypto-stream-store.zip
zip -q -0 -P SECRET - $files > "$out/infozip-zipcrypto-stream-store.zip"

# 7-Zip: WinZip AES of each strength over several methods, and ZipCrypto.
for em in AES128 AES192 AES256; do
	z 7zz-$em-deflate.zip
	7zz a -bd -bso0 -tzip -pSECRET -mem=$em -mm=Deflate "$out/7zz-$em-deflate.zip" $files
done
for m in Deflate64 BZip2 LZMA Copy; do
	z 7zz-AES256-$m.zip
	7zz a -bd -bso0 -tzip -pSECRET -mem=AES256 -mm=$m "$out/7zz-AES256-$m.zip" $files
done
z 7zz-zipcrypto-deflate.zip
7zz a -bd -bso0 -tzip -pSECRET -mem=ZipCrypto -mm=Deflate "$out/7zz-zipcrypto-deflate.zip" $files

# bsdtar (libarchive): AES-256 and ZipCrypto, written with data descriptors.
z bsdtar-aes256.zip
bsdtar --format zip --options zip:encryption=aes256 --passphrase SECRET -cf "$out/bsdtar-aes256.zip" $files
z bsdtar-zipcrypt.zip
bsdtar --format zip --options zip:encryption=zipcrypt --passphrase SECRET -cf "$out/bsdtar-zipcrypt.zip" $files
z bsdtar-aes128-store.zip
bsdtar --format zip --options zip:encryption=aes128,zip:compression=store --passphrase SECRET -cf "$out/bsdtar-aes128-store.zip" $files

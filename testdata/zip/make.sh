#!/bin/sh
# Rebuilds the small ZIP test archives in this directory with the real
# tools (Info-ZIP zip 3.0, 7-Zip 7zz, bsdtar). Inputs are generated
# deterministically with fixed mtimes; run from anywhere:
#   sh testdata/zip/make.sh
# Zip64 archives with >4 GiB offsets or >65,535 entries are built in the
# test code (zip/zip64_test.go), not here, to keep the repository small.
. "$(dirname "$0")/lib.sh"

mkdir -p in/dir/sub in/emptydir
printf 'hello, world\n' > in/hello.txt
: > in/empty.txt
textlines 150 > in/text.txt
# 4 KiB of incompressible bytes: sha256("rand<i>") for i = 0..127.
randbin 128 > in/rand.bin
printf 'nested\n' > in/dir/sub/nested.txt
printf 'unicode name\n' > "in/dir/ünïcödé.txt"
ln -s hello.txt in/link
ln -s ../../text.txt in/dir/sub/uplink
find in -exec touch -h -d '2024-01-02 03:04:05' {} +

z() { rm -f "$out/$1"; }

cd in
# Info-ZIP: Deflate, extended timestamps, Unix modes, symlinks (-y), an
# archive comment (-z), directories.
z infozip-deflate.zip
printf 'archive comment\n' | zip -q -r -y -z "$out/infozip-deflate.zip" hello.txt empty.txt text.txt rand.bin dir emptydir link
# Stored, with the UT field.
z infozip-store.zip
zip -q -0 -r -y "$out/infozip-store.zip" hello.txt text.txt dir link
# Entry comments (-c reads one line per file from stdin).
z infozip-comments.zip
printf 'comment for hello\ncomment for text\n' | zip -q -c "$out/infozip-comments.zip" hello.txt text.txt
# Forced Zip64 records and extra fields.
z infozip-zip64.zip
zip -q -fz -r "$out/infozip-zip64.zip" hello.txt text.txt rand.bin
# Streamed from stdin: data descriptors, sizes only after the data.
z infozip-stdin-deflate.zip
cat text.txt | zip -q "$out/infozip-stdin-deflate.zip" -
z infozip-stdin-store.zip
cat rand.bin | zip -q -0 "$out/infozip-stdin-store.zip" -
z infozip-stdin-zip64.zip
cat text.txt | zip -q -fz "$out/infozip-stdin-zip64.zip" -

# 7-Zip: Deflate64, Copy, UTF-8 names with NTFS times.
z 7zz-deflate64.zip
7zz a -tzip -mm=Deflate64 -mx9 -bd -bso0 "$out/7zz-deflate64.zip" hello.txt text.txt rand.bin >/dev/null
z 7zz-copy.zip
7zz a -tzip -mm=Copy -snl -bd -bso0 "$out/7zz-copy.zip" hello.txt text.txt dir link >/dev/null
z 7zz-utf8-ntfs.zip
7zz a -tzip -mcu=on -mtc=on -snl -bd -bso0 "$out/7zz-utf8-ntfs.zip" hello.txt dir >/dev/null

# bsdtar: data descriptors on every entry (deflate and stored).
z bsdtar-deflate.zip
bsdtar --format zip -cf "$out/bsdtar-deflate.zip" hello.txt empty.txt text.txt rand.bin dir link
z bsdtar-store.zip
bsdtar --format zip --options zip:compression=store -cf "$out/bsdtar-store.zip" hello.txt empty.txt text.txt rand.bin link

# Self-extractor shapes: a stub before the archive, offsets adjusted by
# zip -A, and the same stub with the offsets left alone.
cd "$work"
i=0
while [ $i -lt 64 ]; do printf 'MZ-stub-%02d-not-a-real-program\n' $i; i=$((i + 1)); done > stub.bin
(cd in && zip -q -X ../plain.zip hello.txt text.txt)
cat stub.bin plain.zip > "$out/sfx-unadjusted.zip"
cat stub.bin plain.zip > "$out/sfx-adjusted.zip"
zip -q -A "$out/sfx-adjusted.zip"

#!/bin/sh
# Makes the hostile tarballs of issue 30 with the real tools.
# headers.tar.xz: 262,144 empty entries and nothing else (128 MiB of tar
# in a few KB of xz): a header-only bomb, to be held to MaxRatio and
# MaxTotalSize like one of data.
# Run from anywhere: sh testdata/tar/make-hostile.sh. Needs GNU tar, xz.
set -eu
cd "$(dirname "$0")"
out=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$work/empty"
tar --format=ustar --mtime=2024-01-02 --owner=0 --group=0 --numeric-owner -C "$work" -cf "$work/one.tar" empty
head -c 512 "$work/one.tar" > "$work/h"
i=0
while [ $i -lt 18 ]; do
	cat "$work/h" "$work/h" > "$work/h2"
	mv "$work/h2" "$work/h"
	i=$((i+1))
done
head -c 1024 /dev/zero >> "$work/h"
xz -6 -c "$work/h" > "$out/headers.tar.xz"

#!/bin/sh
# Rebuilds the Deflate64 (and Deflate) test zips with 7-Zip.
# The inputs are generated deterministically by the deflate package tests
# (TestGenerateInputs), which check the decoded entries against the same
# generator, so only the zips are committed.
set -eu
cd "$(dirname "$0")"
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
UNARC_DEFLATE_GEN="$tmp" go test -count=1 -run '^TestGenerateInputs$' ../../deflate/ >/dev/null
touch -d '2024-01-02 03:04:05' "$tmp"/*
rm -f d64-7zz-mx9.zip d64-7zz-mx1.zip deflate-7zz-mx9.zip
(cd "$tmp" && 7zz a -bd -bso0 -tzip -mm=Deflate64 -mx9 -mmt1 d64-7zz-mx9.zip text.txt far.bin small.txt)
(cd "$tmp" && 7zz a -bd -bso0 -tzip -mm=Deflate64 -mx1 -mmt1 d64-7zz-mx1.zip text.txt far.bin small.txt)
(cd "$tmp" && 7zz a -bd -bso0 -tzip -mm=Deflate -mx9 -mmt1 deflate-7zz-mx9.zip text.txt far.bin small.txt)
cp "$tmp"/*.zip .
ls -l *.zip

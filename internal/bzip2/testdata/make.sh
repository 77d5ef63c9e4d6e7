#!/usr/bin/env bash
# Remakes the .bz2 test files with the real tools: bzip2 1.0.8 at levels
# 1 and 9 (level 1 gives several 100k blocks), 7zz's BZip2 encoder,
# concatenated streams (as bzip2 -d and pbzip2 output them) and an empty
# stream. The inputs are deterministic (python3 random with fixed seeds)
# and not committed: SHA256SUMS records what each file decodes to.
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.bz2 SHA256SUMS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(17)
text = bytearray()
n = 0
while len(text) < 300_000:
    v = r.randrange(10000000)
    text += b'rec=%09d user=u%05d amount=%7d.%02d status=%s\n' % (n, n * 7919 % 100000, v // 100, v % 100, b'ok' if v % 7 else b'retry')
    n += 1
open(d + '/text.bin', 'wb').write(bytes(text))
# Runs of every length around the RLE1 limits (4 and 4+255), random
# bytes, all 256 byte values, and long zero runs.
m = bytearray()
for k in range(1, 600, 7):
    m += bytes([k % 251]) * k
m += bytes(r.randrange(256) for _ in range(40_000))
m += bytes(range(256)) * 8
m += b'\0' * 70_000
m += bytes(r.randrange(4) for _ in range(30_000))
open(d + '/mixed.bin', 'wb').write(bytes(m))
open(d + '/small.bin', 'wb').write(bytes(text[:2500]) + bytes([7]) * 300 + bytes(r.randrange(256) for _ in range(200)))
PY

bzip2 -1 -c "$tmp/text.bin" > text-l1.bz2
bzip2 -9 -c "$tmp/text.bin" > text-l9.bz2
bzip2 -1 -c "$tmp/mixed.bin" > mixed-l1.bz2
bzip2 -9 -c "$tmp/mixed.bin" > mixed-l9.bz2
bzip2 -9 -c "$tmp/small.bin" > small.bz2
bzip2 -c </dev/null > empty.bz2
7zz a -tbzip2 -mx9 -bso0 -bsp0 "$tmp/m.bz2" "$tmp/mixed.bin" && mv "$tmp/m.bz2" mixed-7zz.bz2
7zz a -tbzip2 -mx1 -bso0 -bsp0 "$tmp/t.bz2" "$tmp/text.bin" && mv "$tmp/t.bz2" text-7zz-mx1.bz2
# Streams one after the other: level 1, an empty stream, level 9.
cat text-l1.bz2 empty.bz2 small.bz2 > concat.bz2
cat "$tmp/text.bin" "$tmp/small.bin" > "$tmp/concat.bin"

sum() { echo "$(sha256sum < "$2" | cut -d' ' -f1)  $1"; }
{
  sum text-l1.bz2 "$tmp/text.bin"
  sum text-l9.bz2 "$tmp/text.bin"
  sum text-7zz-mx1.bz2 "$tmp/text.bin"
  sum mixed-l1.bz2 "$tmp/mixed.bin"
  sum mixed-l9.bz2 "$tmp/mixed.bin"
  sum mixed-7zz.bz2 "$tmp/mixed.bin"
  sum small.bz2 "$tmp/small.bin"
  sum empty.bz2 /dev/null
  sum concat.bz2 "$tmp/concat.bin"
} > SHA256SUMS

#!/bin/sh
# Archives for the pipelined decoder's tests (pipeline_test.go): inputs
# large enough for several compressed blocks, so filters (E8/E8E9, DELTA)
# and solid entries cross block and segment boundaries. Deterministic
# inputs from the inline Python; run from anywhere:
# sh testdata/rar5u/make-pipe.sh
. "$(dirname "$0")/../lib.sh"
here=$out
cd "$src"
python3 - <<'PY'
import random, struct, math
rng = random.Random(17)
b = bytearray()
while len(b) < 50000:
    r = rng.random()
    if r < 0.15:
        b.append(0xE8 if r < 0.08 else 0xE9)
        b += struct.pack("<i", rng.randrange(0, 50000) - (len(b) + 4))
    else:
        b.append(rng.choice([0x8b, 0x45, 0xfc, 0x89, 0x55, 0x48, 0x83, 0xec, 0x10, 0x00, 0xc3]))
open("x86big.bin", "wb").write(bytes(b))
a = bytearray()
rng = random.Random(19)
for i in range(40000):
    for c in range(3):
        a.append(int(128 + 90 * math.sin(i / (7.0 + c * 5)) + rng.randrange(-1, 2)) & 0xff)
open("audio3.bin", "wb").write(bytes(a))
words = ["alpha", "beta", "gamma", "rar", "window", "filter", "block", "match"]
out = []
rng = random.Random(23)
for i in range(2000):
    out.append("rec=%07d %s amount=%d\n" % (i, rng.choice(words), rng.randrange(100000)))
open("text2.txt", "wb").write("".join(out).encode())
PY
touch -d '2024-01-02 03:04:05' *
RAR="rar a -cfg- -idq -ep -tsm0 -tsc0 -tsa0 -qo- -mt1"
rm -f "$here"/pipe-*.rar
$RAR -m3 -mcE+ "$here/pipe-x86.rar" x86big.bin
$RAR -m3 -mc3D+ "$here/pipe-delta.rar" audio3.bin
$RAR -m3 -s -mcE+ "$here/pipe-solid.rar" x86big.bin text2.txt
ls -l "$here"/pipe-*.rar

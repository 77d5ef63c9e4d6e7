#!/usr/bin/env bash
# Remakes the .xz test files (and two ZIPs of method 95) with the real tools: xz (XZ Utils 5.4) for
# every check type, filter, block size and concatenation, and 7zz for the
# RISC-V filter (xz gains --riscv only in 5.6) and 7-Zip's own xz writer.
# input.bin is deterministic: 8 KiB of instruction-like words (branches
# of every architecture the BCJ filters convert, mixed with random words)
# and 8 KiB of text records.
set -euo pipefail
cd "$(dirname "$0")"
rm -f ./*.xz ./*.zip input.bin

python3 - <<'PY'
import random, struct
r = random.Random(13)
out = bytearray()
pat = [
    lambda: bytes([0xE8]) + struct.pack('<I', r.randrange(1 << 16))[:3] + b'\x00' * 0,  # x86 call (4 bytes: opcode + 3 of rel32)
    lambda: struct.pack('<I', (0xEB << 24) | r.randrange(1 << 24)),                   # ARM BL
    lambda: struct.pack('<HH', 0xF000 | r.randrange(1 << 11), 0xF800 | r.randrange(1 << 11)),  # Thumb BL
    lambda: struct.pack('<I', (0x25 << 26) | r.randrange(1 << 26)),                    # ARM64 BL
    lambda: struct.pack('<I', 0x90000000 | r.randrange(1 << 24)),                       # ARM64 ADRP
    lambda: struct.pack('>I', (0x12 << 26) | (r.randrange(1 << 24) << 2) | 1),          # PowerPC bl
    lambda: struct.pack('>I', 0x40000000 | r.randrange(1 << 22)),                       # SPARC call
    lambda: struct.pack('<I', 0x6F | (r.randrange(32) << 7) | (r.randrange(1 << 20) << 12)),  # RISC-V JAL
    lambda: struct.pack('<I', 0x17 | (r.randrange(32) << 7) | (r.randrange(1 << 20) << 12)),  # RISC-V AUIPC
    lambda: struct.pack('<I', r.randrange(1 << 32)),
    lambda: struct.pack('<I', r.randrange(1 << 32)),
]
while len(out) < 8 << 10:
    out += r.choice(pat)()
del out[8 << 10:]
text = bytearray()
n = 0
while len(text) < 8 << 10:
    v = r.randrange(10000000)
    text += b'rec=%09d user=u%05d amount=%7d.%02d status=%s\n' % (n, n * 7919 % 100000, v // 100, v % 100, b'ok' if v % 7 else b'retry')
    n += 1
del text[8 << 10:]
open('input.bin', 'wb').write(bytes(out + text))
PY

x() { out=$1; shift; xz -c "$@" input.bin > "$out"; }
for c in none crc32 crc64 sha256; do x check-$c.xz --check=$c -6; done
for f in x86 powerpc ia64 arm armthumb arm64 sparc; do x filter-$f.xz --$f --lzma2=preset=6,dict=64KiB; done
x filter-x86-start.xz --x86=start=4096 --lzma2=preset=6
x filter-delta1.xz --delta=dist=1 --lzma2=preset=6
x filter-delta4.xz --delta=dist=4 --lzma2=preset=6
x filter-delta256.xz --delta=dist=256 --lzma2=preset=6
x filter-chain3.xz --delta=dist=2 --x86 --arm --lzma2=preset=6
x blocks.xz --block-size=5000 --check=crc64 -6
x blocks-sized.xz -T2 --block-size=7000 --check=sha256 -6  # sizes in the block headers
x level0.xz -0
x level9e.xz -9e
xz -c --check=crc32 </dev/null > empty.xz
# Two streams, stream padding between them and after them.
{ xz -c --check=crc32 -6 input.bin; head -c 8 /dev/zero; xz -c --check=sha256 --x86 --lzma2 input.bin; head -c 4 /dev/zero; } > concat-padded.xz
{ xz -c -6 input.bin; xz -c </dev/null; } > concat-empty.xz
# Small files for the every-prefix truncation test.
tail -c 3000 input.bin > small.bin
xz -c -T2 --block-size=1000 --check=sha256 --delta=dist=3 --x86 --lzma2=preset=6 small.bin > small-blocks.xz
xz -c --check=crc64 --lzma2=preset=1 small.bin > small-crc64.xz
rm small.bin
7zz a -txz -mf=RISCV -bso0 -bsp0 filter-riscv-7zz.xz input.bin
7zz a -txz -mx5 -bso0 -bsp0 7zz-mx5.xz input.bin
# ZIP method 95 (XZ), from 7zz: sizes in the local header, and streamed
# (-si -so: a data descriptor after the data).
7zz a -tzip -mm=XZ -mx5 -bso0 -bsp0 zip-xz.zip input.bin
7zz a -tzip -mm=XZ -mx5 -bsp0 -siinput.bin -so stream.zip < input.bin > zip-xz-stream.zip
ls -l ./*.xz ./*.zip input.bin

"""Deterministic inputs for make.sh (no dependence on Python's random)."""
import math
import os
import struct
import sys

out = sys.argv[1]


class Rng:
    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFFFFFFFFFF or 1

    def next(self):  # xorshift64
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFFFFFFFFFF
        s ^= s >> 7
        s ^= (s << 17) & 0xFFFFFFFFFFFFFFFF
        self.s = s
        return s

    def bytes(self, n):
        return bytes(self.next() & 0xFF for _ in range(n))


def w(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


r = Rng(1)
words = b"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
text = bytearray()
n = 0
while len(text) < 60000:
    text += b"line %05d: " % n
    for _ in range(8):
        text += words[r.next() % len(words)] + b" "
    text += b"\n"
    n += 1
w("text.txt", bytes(text))
w("empty.txt", b"")
w("small1.txt", b"hello, solid world\n" * 3)
w("small2.txt", bytes(text[1000:5000]))

mixed = bytearray()
for k in range(12):
    if k % 3 == 0:
        mixed += r.bytes(4096)
    elif k % 3 == 1:
        mixed += bytes(text[k * 3000 : k * 3000 + 8000])
    else:
        mixed += bytes([k]) * 5000 + mixed[-3000:]
w("mixed.bin", bytes(mixed))

# x86-like: opcodes with frequent CALL/JMP rel32 to nearby targets.
x86 = bytearray()
ops = [b"\x55", b"\x89\xe5", b"\x8b\x45\x08", b"\x83\xec\x10", b"\xc3", b"\x90", b"\x31\xc0"]
while len(x86) < 60000:
    k = r.next() % 10
    if k < 3:
        x86 += b"\xe8" + struct.pack("<i", (r.next() % 4000) - 2000)
    elif k == 3:
        x86 += b"\xe9" + struct.pack("<i", (r.next() % 400) - 200)
    else:
        x86 += ops[r.next() % len(ops)]
w("x86.bin", bytes(x86))

# Delta-friendly: 4 interleaved slowly changing counters.
d = bytearray()
for i in range(40000):
    d += bytes([(i // 3) & 0xFF, (i * 2) & 0xFF, 0x40 + (i // 50) % 7, (r.next() % 3 + i) & 0xFF])
w("delta.bin", bytes(d))

# 16-bit stereo audio: two sines plus a little noise, in a WAV container.
samples = bytearray()
for i in range(30000):
    a = int(8000 * math.sin(i / 20.0) + (r.next() % 64) - 32)
    b = int(6000 * math.sin(i / 33.0 + 1) + (r.next() % 64) - 32)
    samples += struct.pack("<hh", a, b)
hdr = b"RIFF" + struct.pack("<I", 36 + len(samples)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 2, 44100, 44100 * 4, 4, 16) + b"data" + struct.pack("<I", len(samples))
w("audio.wav", hdr + bytes(samples))

# 24-bit BMP: smooth gradients with noise, 160x120.
W, H = 160, 120
px = bytearray()
for y in range(H):
    for x in range(W):
        px += bytes([(x + y) & 0xFF, (2 * x + (r.next() % 5)) & 0xFF, (3 * y + x // 4) & 0xFF])
bmp = b"BM" + struct.pack("<IHHI", 54 + len(px), 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, W, H, 1, 24, 0, len(px), 2835, 2835, 0, 0)
w("image.bmp", bmp + bytes(px))

# Bigger than the 4 MiB window: a random block, 5 MiB of regular text,
# the same block again (the repeat is out of reach).
blk = r.bytes(16384)
body = bytearray()
i = 0
while len(body) < 5 * 1024 * 1024:
    body += b"%08d\n" % i
    i += 1
w("big.bin", blk + bytes(body) + blk)

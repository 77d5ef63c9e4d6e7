# Deterministic inputs for make.sh (no randomness from the system).
import random, struct, math

def text(rng, n):
    words = ["alpha", "beta", "gamma", "delta", "rar", "window", "filter",
             "huffman", "solid", "block", "table", "match", "distance"]
    out = []
    size = 0
    i = 0
    while size < n:
        line = "rec=%07d %s %s amount=%d\n" % (i, rng.choice(words), rng.choice(words), rng.randrange(100000))
        out.append(line)
        size += len(line)
        i += 1
    return "".join(out)[:n].encode()

rng = random.Random(5)
open("text.txt", "wb").write(text(rng, 80000))
for k in range(5):
    open("solid-%d.txt" % k, "wb").write(text(random.Random(100 + k), 9000 + 3000 * k))
open("small.txt", "wb").write(b"small repetitive input " * 400)

# x86-like code: random bytes with many E8/E9 calls to nearby targets.
rng = random.Random(7)
b = bytearray()
while len(b) < 40000:
    r = rng.random()
    if r < 0.15:
        b.append(0xE8 if r < 0.1 else 0xE9)
        target = rng.randrange(0, 40000)
        b += struct.pack("<i", target - (len(b) + 4))
    else:
        b.append(rng.choice([0x8b, 0x45, 0xfc, 0x89, 0x55, 0x48, 0x83, 0xec, 0x10, 0x00, 0xc3]))
open("x86.bin", "wb").write(bytes(b))

# 4-channel 8-bit "audio": smooth waves.
a = bytearray()
for i in range(30000):
    for c in range(4):
        a.append(int(128 + 100 * math.sin(i / (9.0 + c * 3))) & 0xff)
open("audio.bin", "wb").write(bytes(a))

# Window wrap: chunks of a 16 KB random block (slightly mutated) and text.
rng = random.Random(11)
blk = bytearray(rng.getrandbits(8) for _ in range(16000))
w = bytearray()
k = 0
while len(w) < 420000:
    m = bytearray(blk)
    for _ in range(20):
        m[rng.randrange(len(m))] = rng.getrandbits(8)
    w += m
    w += text(random.Random(3), 50000)
    k += 1
open("wrap.bin", "wb").write(bytes(w))

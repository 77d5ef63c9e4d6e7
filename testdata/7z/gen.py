# Deterministic inputs for make.sh: text, binary, and "code-like" bytes
# rich in the opcodes every branch filter looks for.
import os, random, sys
out = sys.argv[1]
rnd = random.Random(20261129)
os.makedirs(out + "/dir/sub", exist_ok=True)
os.makedirs(out + "/emptydir", exist_ok=True)
with open(out + "/text.txt", "w") as f:
    for i in range(150):
        f.write("line %05d: the quick brown fox jumps over the lazy dog %d\n" % (i, (i * 7919) % 1000))
with open(out + "/dir/random.bin", "wb") as f:
    f.write(bytes(rnd.getrandbits(8) for _ in range(4000)))
open(out + "/dir/empty.txt", "wb").close()
with open(out + "/dir/sub/ünïcødé ☃.txt", "w") as f:
    f.write("unicode name\n" * 10)
hot = [0xE8, 0xE9, 0x0F, 0x80, 0x85, 0x00, 0xFF, 0xEB, 0xF0, 0xF8, 0x48, 0x40, 0x7F,
       0x94, 0x90, 0x97, 0xEF, 0x17, 0x97, 0x01, 0x10, 0x12, 0x16, 0xC0, 0x4B, 0x05]
code = bytearray()
while len(code) < 8000:
    if rnd.random() < 0.5:
        code.append(rnd.choice(hot))
    else:
        code.append(rnd.getrandbits(8))
with open(out + "/code.bin", "wb") as f:
    f.write(bytes(code))

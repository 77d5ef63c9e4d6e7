#!/bin/sh
# Makes the RAR 3.x/4.x (v29 compression) archives of the RAR 2.9
# checkpoint tests (rar/seek29_test.go) with rar6 -ma4. Content comes from
# fixed awk generators, so only rar's salts and IVs vary between runs:
#   a.txt (40 KiB of hex text), x.elf (an x86-64 ELF built here by cc
#   from generated C: rar applies its E8 filter to it), c.txt (40 KiB),
#   d.bin (160 KiB of 4-byte records that grow by small steps: delta
#   filter with -mcD+), w.wav (160 KiB of 16-bit stereo samples: audio
#   filter with -mcA+), b.bin (8 KiB of noise), e.txt (5 bytes), s.txt
#   (48 KiB of English-like lines).
# Archives: solid and not, -p and -hp (AES-128), multi-volume solid,
# and solid with delta and audio filters forced; PPMd forced (-mct+:
# rar6 then codes every file with PPMd, its 15 MiB model reset where
# it meets b.bin's noise) solid and not, -p and -hp.
# Password of the encrypted ones: seek.
. "$(dirname "$0")/../../../testdata/lib.sh"
rm -f ./*.rar

gen 4 40960 txt > "$src/a.txt"
elf 400 "$src/x.elf"
gen 5 40960 txt > "$src/c.txt"
# Records of four bytes, each field a slowly moving counter.
awk 'BEGIN { x = 99; for (i = 0; i < 40960; i++) { x = (x * 16807) % 2147483647
	printf "%c%c%c%c", (i * 3) % 256, (i + int(x / 1073741824)) % 256, int(i / 7) % 256, (i * 5 + int(x / 536870912)) % 256 } }' > "$src/d.bin"
# A two-channel 16-bit "sine" from a recurrence, with a little noise.
awk 'BEGIN { s = 0; c = 12000; x = 7; for (i = 0; i < 40960; i++) { x = (x * 16807) % 2147483647
	s += c / 16; c -= s / 16; v = int(s) + int(x / 268435456) - 4; if (v < 0) v += 65536; w = (v * 3) % 65536
	printf "%c%c%c%c", v % 256, int(v / 256) % 256, w % 256, int(w / 256) % 256 } }' > "$src/w.wav"
gen 6 8192 bin > "$src/b.bin"
printf 'tail\n' > "$src/e.txt"
awk 'BEGIN { x = 11; for (i = 0; i < 1300; i++) { x = (x * 16807) % 2147483647
	printf "the %s fox %d jumps over the lazy dog, line %d of the tale\n", (x % 3 ? "brown" : "red"), x % 977, i } }' | head -c 49152 > "$src/s.txt"
stamp
files="a.txt x.elf c.txt b.bin e.txt"
r4() { # r4 OUT ARGS...
	o=$1; shift
	(cd "$src" && rar6 a -idq -cfg- -ma4 -mt1 "$@" "$out/$o" $files)
}
r4 r4-solid.rar -s -ds -m3 -md64k
r4 r4-plain.rar -m3 -md64k
r4 r4-solid-aes.rar -s -ds -m3 -md64k -pseek
r4 r4-plain-hp.rar -m3 -md64k -hpseek
r4 r4-vol.rar -s -ds -m3 -md64k -v24k
files="d.bin w.wav a.txt"
r4 r4-delta.rar -s -ds -m3 -md64k -mcD+
files="w.wav d.bin c.txt"
r4 r4-audio.rar -s -ds -m3 -md64k -mcA+
files="s.txt b.bin a.txt"
r4 r4-ppm-solid.rar -s -ds -m3 -mct+
r4 r4-ppm.rar -m3 -mct+
r4 r4-ppm-solid-aes.rar -s -ds -m3 -mct+ -pseek
r4 r4-ppm-hp.rar -m3 -mct+ -hpseek
ls -l ./*.rar

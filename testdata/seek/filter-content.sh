# Sourced by make-filter.sh and make-bcj2.sh: writes their content into
# $src/d: x.elf (an x86-64 ELF built by cc from generated C: E8 calls
# abound), b.bin (160 KiB of noise) and hex.txt (200 KiB of random hex
# numbers). $src is removed at exit.
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
awk 'BEGIN { print "#include <stdio.h>"; print "int f0(int x) { return x + 1; }"
	for (i = 1; i < 1500; i++) printf "int f%d(int x) { return f%d(x * 3 + %d) ^ f%d(x); }\n", i, i - 1, i, (i * 7) % i
	print "int main(int c, char **v) { printf(\"%d\\n\", f1499(c)); return 0; }" }' > "$src/x.c"
mkdir "$src/d"
cc -O0 -fno-inline -o "$src/d/x.elf" "$src/x.c"
awk 'BEGIN { x = 99; for (i = 0; i < 163840; i++) { x = (x * 16807) % 2147483647; printf "%c", int(x / 4194304) % 256 } }' > "$src/d/b.bin"
awk 'BEGIN { x = 4242; out = 0
	while (out < 204800) {
		x = (x * 16807) % 2147483647
		s = sprintf("%08x %05d ok\n", x, out % 99991); printf "%s", s; out += length(s)
	}
}' | head -c 204800 > "$src/d/hex.txt"

# Sourced by make-filter.sh and make-bcj2.sh, after ../lib.sh: writes
# their content into $src/d: x.elf (an x86-64 ELF built by cc from
# generated C: E8 calls abound), b.bin (160 KiB of noise) and hex.txt
# (200 KiB of random hex numbers).
mkdir "$src/d"
elf 1500 "$src/d/x.elf"
noisebytes 99 163840 > "$src/d/b.bin"
hex 4242 204800 > "$src/d/hex.txt"

#!/bin/sh
# Rebuilds the PPMd test archives in this folder with the real tools.
# Inputs are generated deterministically (awk LCG), archived, then deleted;
# facts.json records what the Go tests need: model params, sizes, sha256.
# 7z: non-solid, one file, plain header (-mhc=off) so the packed stream is
#     bytes [32, 32+NextHeaderOffset).
# RAR: rar6 -ma4 -mct+ forces PPMd text compression in the RAR 3.x format.
set -eu
export TZ=UTC
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen NAME KIND BYTES SEED: text = words from a small vocabulary with
# punctuation; mixed = text lines interleaved with binary runs.
gen() {
	awk -v kind="$2" -v n="$3" -v seed="$4" 'BEGIN {
		split("the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there one all we their has been would more when will who some if so no time can only out said two may these other new about up into could people first than very what most such any state its world over made after great years our well life where did much long back should between each own found before might through many must work just under house without those power never against part while again same", w, " ")
		nw = length(w); x = seed; out = 0
		while (out < n) {
			x = (x * 1103515245 + 12345) % 2147483648
			if (kind == "mixed" && x % 23 == 0) {
				len = 64 + x % 512
				for (i = 0; i < len && out < n; i++) {
					x = (x * 1103515245 + 12345) % 2147483648
					printf "%c", 1 + int(x / 65536) % 255; out++
				}
				continue
			}
			line = ""
			words = 4 + x % 12
			for (i = 0; i < words; i++) {
				x = (x * 1103515245 + 12345) % 2147483648
				line = line (i ? " " : "") w[1 + int(x / 65536) % nw]
			}
			line = line (x % 3 ? "." : ",") "\n"
			if (out + length(line) > n) line = substr(line, 1, n - out)
			printf "%s", line; out += length(line)
		}
	}' > "$tmp/$1"
	touch -d 2020-01-01T00:00:00 "$tmp/$1"
}

gen text.txt text 100000 1
gen mixed.bin mixed 50000 7
gen small.txt text 3000 3
gen big.txt text 220000 11

sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { wc -c < "$1" | tr -d ' '; }

echo "[" > facts.json.tmp
sep=""
# z7 NAME INPUT ORDER MEM(bytes) — MEM as 7zz's mem= takes it (b suffix)
z7() {
	rm -f "$1"
	(cd "$tmp" && 7zz a -t7z -mhc=off -mtm=off -mtc=off -mta=off -mmt1 \
		"-m0=PPMd:o=$3:mem=$4b" "$OLDPWD/$1" "$2" >/dev/null)
	# 7-Zip shrinks the model memory to suit small inputs: record what the
	# archive says, and insist it is what was asked for.
	method=$(7zz l -slt "$1" | sed -n 's/^Method = PPMD:/PPMD:/p' | head -n1)
	order=$(echo "$method" | sed -n 's/^PPMD:o\([0-9]*\):mem\([0-9]*\)$/\1/p')
	memlog=$(echo "$method" | sed -n 's/^PPMD:o\([0-9]*\):mem\([0-9]*\)$/\2/p')
	if [ "$order" != "$3" ] || [ "$((1 << memlog))" != "$4" ]; then
		echo "$1: archive says $method, asked for o=$3 mem=$4" >&2
		exit 1
	fi
	printf '%s  {"archive": "%s", "kind": "7z", "order": %s, "mem": %s, "size": %s, "sha256": "%s"}\n' \
		"$sep" "$1" "$order" "$((1 << memlog))" "$(size "$tmp/$2")" "$(sha "$tmp/$2")" >> facts.json.tmp
	sep=","
}
z7 text-o6-2m.7z text.txt 6 2097152
z7 small-o2-64k.7z small.txt 2 65536
z7 text-o32-1m.7z text.txt 32 1048576
z7 text-o32-64k.7z text.txt 32 65536
z7 mixed-o8-256k.7z mixed.bin 8 262144
z7 mixed-o4-64k.7z mixed.bin 4 65536
z7 big-o16-128k.7z big.txt 16 131072

# rar NAME INPUT ORDER:MiB: a single file, one PPMd block; the RAR file
# header holds the CRC32 and sizes. (A later -mct+ would reset the order
# and memory to the defaults 8:25, so -mc<order>:<MiB>t+ stands alone.
# RAR stores orders above 16 in steps of 3: 40 stays 40, 63 becomes 61.)
rar4() {
	rm -f "$1"
	(cd "$tmp" && rar6 a -ma4 -m5 "-mc$3t+" -s- -ep -cfg- -idq -tl -mt1 "$OLDPWD/$1" "$2")
	printf '%s  {"archive": "%s", "kind": "rar", "size": %s, "sha256": "%s"}\n' \
		"$sep" "$1" "$(size "$tmp/$2")" "$(sha "$tmp/$2")" >> facts.json.tmp
}
rar4 text-rar-o6.rar text.txt 6:16
rar4 text-rar-o16.rar big.txt 16:1
rar4 mixed-rar-o4.rar mixed.bin 4:2
rar4 small-rar-o2.rar small.txt 2:1
rar4 big-rar-o40-1m.rar big.txt 40:1
rar4 text-rar-o63.rar text.txt 63:4
echo "]" >> facts.json.tmp
mv facts.json.tmp facts.json
ls -l

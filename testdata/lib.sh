# lib.sh: what the make scripts of the seek, index and checkpoint test
# archives share. A script sources it first, by its own path:
#
#	. "$(dirname "$0")/../lib.sh"             (from testdata/AREA/)
#	. "$(dirname "$0")/../../../testdata/lib.sh" (from PKG/testdata/AREA/)
#
# It stops on errors and unset names, fixes TZ=UTC and LC_ALL=C, moves
# to the script's folder, sets out (that folder) and src (a temporary
# folder, removed on exit; a script may use it as its work folder), and defines the content generators below:
# awk over a fixed Lehmer sequence, so the files are the same on every
# machine and an archive differs only by the tools' salts and IVs.
set -eu
export TZ=UTC LC_ALL=C
cd "$(dirname "$0")"
out=$(pwd)
src=$(mktemp -d)
libtmp=$src # removed on exit even if a script points src elsewhere
trap 'rm -rf "$libtmp"' EXIT

gen() { # gen SEED BYTES KIND: hex text rows (txt) or noise (bin)
	awk -v seed="$1" -v n="$2" -v kind="$3" 'BEGIN {
		x = seed * 7919 + 1; out = 0
		while (out < n) {
			x = (x * 16807) % 2147483647
			if (kind == "bin") { printf "%c", int(x / 4194304) % 256; out++ }
			else { s = sprintf("%08x %05d ok\n", x, out % 99991); printf "%s", s; out += length(s) }
		}
	}' | head -c "$2"
}

hex() { # hex SEED BYTES: hex text rows, the sequence started at SEED
	awk -v seed="$1" -v n="$2" 'BEGIN { x = seed; out = 0
		while (out < n) {
			x = (x * 16807) % 2147483647
			s = sprintf("%08x %05d ok\n", x, out % 99991); printf "%s", s; out += length(s)
		}
	}' | head -c "$2"
}

noisebytes() { # noisebytes SEED BYTES: bytes, the sequence started at SEED
	awk -v seed="$1" -v n="$2" 'BEGIN { x = seed; for (i = 0; i < n; i++) { x = (x * 16807) % 2147483647; printf "%c", int(x / 4194304) % 256 } }'
}

words() { # words SEED BYTES: words of a 64-word list, a sentence end now and then
	awk -v seed="$1" -v n="$2" 'BEGIN { x = seed; out = 0
		split("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega red green blue cyan magenta yellow black white one two three four five six seven eight nine ten north south east west up down left right", w, " ")
		k = length(w)
		while (out < n) {
			x = (x * 16807) % 2147483647
			s = w[int(x / 65536) % k + 1] ((x % 7 == 0) ? ".\n" : " ")
			printf "%s", s; out += length(s)
		}
	}' | head -c "$2"
}

stamp() { # stamp: the same modification time on everything in src
	find "$src" -exec touch -d '2024-01-02 03:04:05' {} +
}

elf() { # elf FUNCS OUT: an x86-64 ELF of our own, built by cc from a
	# chain of FUNCS calls (E8 bytes abound), not a system binary
	awk -v n="$1" 'BEGIN { print "#include <stdio.h>"; print "int f0(int x) { return x + 1; }"
		for (i = 1; i < n; i++) printf "int f%d(int x) { return f%d(x * 3 + %d) ^ f%d(x); }\n", i, i - 1, i, (i * 7) % i
		printf "int main(int c, char **v) { printf(\"%%d\\n\", f%d(c)); return 0; }\n", n - 1 }' > "$src/x.c"
	cc -O0 -fno-inline -o "$2" "$src/x.c"
}

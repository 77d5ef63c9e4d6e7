# lib.sh: what testdata/zip/make.sh and testdata/zip/crypt/make.sh
# share. Source it first, by the script's path:
#	. "$(dirname "$0")/lib.sh"      (testdata/zip/)
#	. "$(dirname "$0")/../lib.sh"   (testdata/zip/crypt/)
# It stops on errors and unset names, fixes TZ=UTC and LC_ALL=C.UTF-8
# (the inputs have non-ASCII names), sets out (the script's folder) and
# moves to work (a temporary folder, removed on exit); then it defines
# the content generators.
set -eu
export TZ=UTC LC_ALL=C.UTF-8
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

textlines() { # textlines N: N numbered lines of text
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'line %04d: the quick brown fox jumps over the lazy dog\n' $i
		i=$((i + 1))
	done
}

randbin() { # randbin N: N*32 incompressible bytes, sha256("rand<i>") for i < N
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'rand%d' $i | sha256sum | cut -c1-64 | xxd -r -p
		i=$((i + 1))
	done
}

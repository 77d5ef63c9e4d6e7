#!/bin/sh
# Makes the RAR archives of the reading-contract tests (rar/contract_test.go)
# with the real tools: rar 7 (RAR5) and rar6 -ma4 (RAR 4.x). Rerunnable;
# inputs are deterministic (fixed content and mtimes, TZ=UTC). The tests
# regenerate the expected contents in Go and compare with unrar when it is
# installed.
set -eu
export TZ=UTC
cd "$(dirname "$0")"
out=$(pwd)
rm -f ./*.rar
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cd "$src"
T='2024-01-02 03:04:05'
R="rar a -idq -cfg- -tsm4 -tsc- -tsa-"
R4="rar6 a -idq -cfg- -ma4"

# File versions: f.txt added three times with -ver keeps f.txt;1 ("one"),
# f.txt;2 ("two2") and the current f.txt ("three33"); g.txt has one.
for kind in 5 5s 4; do
	rm -rf v && mkdir v && cd v
	case $kind in
	5) A="$R -m3 -ver" ;;
	5s) A="$R -m3 -s -ver" ;;
	4) A="$R4 -m3 -ver" ;;
	esac
	for c in one two2 three33; do
		echo $c > f.txt && touch -d "$T" f.txt
		$A "$out/versions$kind.rar" f.txt
	done
	echo other > g.txt && touch -d "$T" g.txt
	$A "$out/versions$kind.rar" g.txt
	cd ..
done

# An older version without its current file: f.txt added twice with -ver
# (f.txt;1 "one", f.txt "two2"), then the current f.txt deleted (rar d),
# which leaves f.txt;1 alone; unrar lists it.
for kind in 5 4; do
	rm -rf v && mkdir v && cd v
	case $kind in
	5) A="$R -m3 -ver" D="rar d -idq -cfg-" ;;
	4) A="$R4 -m3 -ver" D="rar6 d -idq -cfg-" ;;
	esac
	for c in one two2; do
		echo $c > f.txt && touch -d "$T" f.txt
		$A "$out/versionsonly$kind.rar" f.txt
	done
	$D "$out/versionsonly$kind.rar" f.txt
	cd ..
done

# File copies: one 680 KB text file and 100 identical copies stored as
# references (-oi:1), solid; the archive is about 10 KB.
mkdir c && cd c
i=0; : > src.txt
while [ $i -lt 12000 ]; do echo "record $((i % 50)): copy source line, the same few records again and again" >> src.txt; i=$((i+1)); done
i=0; while [ $i -lt 100 ]; do cp src.txt "copy$i.txt"; i=$((i+1)); done
touch -d "$T" ./*
$R -m3 -s -oi:1 "$out/copies100.rar" src.txt copy*.txt
cd ..

# Solid, for parallel readers: eight 300 KB text files (http.FS test).
mkdir s && cd s
for f in 1 2 3 4 5 6 7 8; do
	i=0; : > "t$f.txt"
	while [ $i -lt 6000 ]; do echo "file $f line $((i % 300)): served in parallel" >> "t$f.txt"; i=$((i+1)); done
done
touch -d "$T" ./*
$R -m3 -s "$out/solid8.rar" t*.txt
cd ..

# Volumes: small.txt (complete in the first volume) and big.txt (spread
# over four 12 KB volumes), stored.
mkdir vol && cd vol
printf 'small file in the first volume\n' > small.txt
i=0; : > big.txt
while [ $i -lt 1500 ]; do echo "volume record $i: $(( (i*31337) % 1000000 ))" >> big.txt; i=$((i+1)); done
touch -d "$T" small.txt big.txt
$R -m0 -v12k "$out/volset.rar" small.txt big.txt
$R4 -m0 -v12k "$out/volsetr4.rar" small.txt big.txt
cd "$out"
for f in *.rar; do touch -d "$T" "$f"; done
ls -l

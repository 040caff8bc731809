#!/usr/bin/env bash
# whistler.sh — acceptance on Whistler's own examples: each of the eleven BPF-only programs
# of its examples/ folder compiles unchanged with `kiln compile`, and `bpftool prog loadall`
# loads every program of it. Whistler's files are not part of kiln; they are read from a
# checkout ($WHISTLER_DIR, or the fetched mirror), and without one the suite says SKIP.
# bench/whistler.sh does the work and prints the instruction counts.
set -u
src=${WHISTLER_DIR:-/work/.mirror/atgreen+Whistler/repo}
out=$(bash "$ROOT/bench/whistler.sh" "$src" 2>&1); rc=$?
if [ $rc -eq 2 ]; then
	echo "SKIP whistler/examples: no Whistler checkout (set WHISTLER_DIR to one): $out"
	exit 0
fi
n=0
while read -r ex insns published load; do
	case $ex in example|total) continue ;; esac
	n=$((n + 1))
	if [[ $load == ok* ]]; then
		echo "PASS whistler/$ex ($insns instructions, $load)"
	else
		echo "FAIL whistler/$ex: $load"
	fi
done <<<"$out"
[ $n -eq 11 ] || echo "FAIL whistler/examples: expected 11 examples, saw $n"

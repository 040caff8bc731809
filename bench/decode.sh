#!/bin/bash
# decode.sh — instructions per decoded event record (bench/decode.c under callgrind, counting
# only inside kiln_event_format), text and JSON. Usage: bench/decode.sh [N]  (default 2000);
# BUILD=dir picks the libkiln.a to link (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${1:-2000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-cc} -O2 -Iinclude -o "$out/decode" bench/decode.c "$BUILD/libkiln.a" -lbpf -lelf -ldw -lz -lpthread
for style in text json; do
	valgrind --tool=callgrind --toggle-collect=kiln_event_format --callgrind-out-file="$out/cg.$style" \
		"$out/decode" "$style" "$N" >/dev/null 2>"$out/log.$style"
	ir=$(awk '/^summary:/ { print $2 }' "$out/cg.$style")
	echo "$style: $((ir / N)) instructions per record ($ir over $N records)"
done

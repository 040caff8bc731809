#!/usr/bin/env bash
# map_dump.sh — reading a whole hash map (u32 key, u64 value, 1,000,000 entries by default):
# kiln_map_dump in kernel batches, kiln_map_dump per key (the reliable next-key walk), and
# `bpftool map dump pinned` (text and -j, output to /dev/null). Prints the times and ratios;
# asserts nothing. Usage: bash bench/map_dump.sh [ENTRIES [ROUNDS]]   (as root, after `make lib`)
set -u
ENTRIES=${1:-1000000}
ROUNDS=${2:-3}
. "$(dirname "$0")/build.sh"
bench_build map_dump
HELPER=$bin

mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || exit 1
dir=/sys/fs/bpf/kiln-bench-map-dump-$$
pin=$dir/kl_bench_dump
out=$(mktemp)
trap 'rm -rf "$dir" "$out"' EXIT

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }
best_of() {  # rounds, command...: the best wall time in ms
	local n=$1 best="" t0 ms; shift
	for _ in $(seq "$n"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "bench/map_dump: $* failed" >&2; echo -1; return; }
		ms=$(ms_since "$t0")
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	echo "$best"
}

# The helper fills the map, pins it and times both dumps (best of ROUNDS); the pin keeps the
# map after it exits, for bpftool to read the same one.
"$HELPER" "$pin" "$ENTRIES" "$ROUNDS" >"$out" || exit 1
grep '^warning' "$out" >&2
val() { awk -v k="$1" '$1 == k { print $2 }' "$out"; }
batch=$(val batch_ms)
perkey=$(val perkey_ms)

if [ ! -e "$pin" ]; then
	echo "bench/map_dump: nothing pinned at $pin" >&2
	exit 1
fi
bpftool_ms=$(best_of "$ROUNDS" bpftool map dump pinned "$pin")
bpftool_j_ms=$(best_of "$ROUNDS" bpftool -j map dump pinned "$pin")

printf 'hash map, %s entries (u32 key, u64 value), best of %s\n' "$ENTRIES" "$ROUNDS"
printf '  %-38s %10s ms  (%s batch calls)\n' "kiln_map_dump, kernel batches" "$batch" "$(val batch_calls)"
printf '  %-38s %10s ms  (%s next-key + lookup rounds)\n' "kiln_map_dump, per key" "$perkey" "$(val perkey_rounds)"
printf '  %-38s %10s ms\n' "bpftool map dump pinned (text)" "$bpftool_ms"
printf '  %-38s %10s ms\n' "bpftool -j map dump pinned" "$bpftool_j_ms"
printf 'ratios: per-key/batch %s, bpftool/batch %s, bpftool -j/batch %s\n' \
	"$(ratio "$perkey" "$batch")" "$(ratio "$bpftool_ms" "$batch")" "$(ratio "$bpftool_j_ms" "$batch")"

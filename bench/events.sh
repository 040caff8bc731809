#!/usr/bin/env bash
# events.sh — events/s drained by libkiln's reader (counting, and decoding to JSON and text)
# against libbpf's ring and perf buffer readers with a counting callback, from the same kiln
# producer in the same run (bench/events.c, bench/events.lisp). Asserts nothing. As root:
#   make lib && bash bench/events.sh [RING_EVENTS [ROUNDS]]      (default 2000000, 3 rounds)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
CC=${CC:-gcc}
lib=$BUILD/libkiln.a
if [ ! -f "$lib" ]; then
	echo "bench/events: $lib is missing (make lib)" >&2
	exit 1
fi
mkdir -p "$BUILD/bench"
bin=$BUILD/bench/events
"$CC" -O2 -g -std=gnu11 -Wall -Wextra -I"$ROOT/include" -o "$bin" "$ROOT/bench/events.c" "$lib" \
	-lbpf -lelf -ldw -lz -lpthread
"$bin" "$ROOT/bench/events.lisp" "${1:-2000000}" "${2:-3}"

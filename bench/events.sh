#!/usr/bin/env bash
# events.sh — events/s drained by libkiln's reader (counting, and decoding to JSON and text)
# against libbpf's ring and perf buffer readers with a counting callback, from the same kiln
# producer in the same run (bench/events.c, bench/events.lisp). Asserts nothing. As root:
#   make lib && bash bench/events.sh [RING_EVENTS [ROUNDS]]      (default 2000000, 3 rounds)
set -eu
. "$(dirname "$0")/build.sh"
bench_build events
"$bin" "$ROOT/bench/events.lisp" "${1:-2000000}" "${2:-3}"

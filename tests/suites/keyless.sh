#!/usr/bin/env bash
# keyless.sh — queue, stack and bloom-filter maps from the command line, on the maps of
# tests/corpus/queue-stack.lisp loaded and pinned by kiln: a queue gives back what was pushed
# first in, a stack last in (read by bpftool too), a full queue refuses a push (E2BIG, saying
# --exist) and drops its oldest with --exist, pop on an empty map fails with status 1, a bloom
# filter answers peek VALUE with status 0 for a pushed value and 1 for others, and get/set on
# these maps or push/pop on a keyed one are usage errors (status 2).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
pin=/sys/fs/bpf/kiln-keyless-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null' EXIT
SUITE=keyless
. "${ROOT:-$PWD}/tests/harness/report.sh"

if ! out=$("$KILN" load tests/corpus/queue-stack.lisp --pin "$pin" 2>&1); then
	fail load "$out"
	exit 0
fi
q=$pin/maps/q st=$pin/maps/st bl=$pin/maps/bl

# ---- a queue: first in, first out; the next element shown by dump and peek -----------------
for v in 5 6 7; do "$KILN" map push "$q" $v; done
check queue-dump-next "  next => 5" "$("$KILN" map dump "$q" | tail -1)"
check queue-peek-json '{"map":"q","value":5}' "$("$KILN" map peek "$q" --json)"
got=$(for i in 1 2 3; do "$KILN" map pop "$q" --json; done | tr -d '\n')
check queue-fifo '{"map":"q","value":5}{"map":"q","value":6}{"map":"q","value":7}' "$got"
err=$("$KILN" map pop "$q" 2>&1); rc=$?
check queue-empty "1 kiln map pop: q is empty" "$rc $err"

# ---- full: E2BIG, then --exist drops the oldest -----------------------------------------
for v in 1 2 3 4 5 6; do "$KILN" map push "$q" $v; done
err=$("$KILN" map push "$q" 7 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "q is full (6 elements); --exist drops the oldest" <<<"$err"; then pass queue-full
else fail queue-full "status $rc: $err"; fi
"$KILN" map push "$q" 7 --exist
check queue-exist-drops-oldest "2" "$("$KILN" map pop "$q" | sed 's/.*=> //')"

# ---- a stack: last in, first out, read back by bpftool too -----------------------------
for v in 10 20 30; do "$KILN" map push "$st" $v; done
if command -v bpftool >/dev/null; then
	bt=$(bpftool -j map peek pinned "$st" 2>&1)
	if grep -q '"value":\["0x1e","0x00","0x00","0x00","0x00","0x00","0x00","0x00"\]' <<<"$bt"; then
		pass stack-bpftool-peek
	else
		fail stack-bpftool-peek "bpftool map peek: $bt"
	fi
fi
got=$(for i in 1 2 3; do "$KILN" map pop "$st" | sed 's/.*=> //'; done | tr '\n' ' ')
check stack-lifo "30 20 10 " "$got"

# ---- a bloom filter: maybe in, certainly not -------------------------------------------
"$KILN" map push "$bl" 42
"$KILN" map peek "$bl" 42 >/dev/null; check bloom-member "0" "$?"
"$KILN" map peek "$bl" 4242 >/dev/null; check bloom-absent "1" "$?"
check bloom-json '{"map":"bl","maybe":true}' "$("$KILN" map peek "$bl" 42 --json)"

# ---- the wrong verbs --------------------------------------------------------------------
"$KILN" map get "$q" 0 >/dev/null 2>&1; check get-on-queue "2" "$?"
"$KILN" map pop "$pin/maps/results" >/dev/null 2>&1; check pop-on-array "2" "$?"
"$KILN" map pop "$bl" >/dev/null 2>&1; check pop-on-bloom "2" "$?"
exit 0

#!/usr/bin/env bash
# trace-flood.sh — kiln trace's printf flood accounting (src/cli/trace.c, trace_fmt.c): every
# event a probe sends is printed once or reported lost (`Lost N events`, JSON `lost_events`),
# never dropped unsaid. A program built here makes N close() calls on fds 1000000+i (EBADF at
# once), each printed by `printf("%d\n", args->fd - 1000000)`:
#   - with the default ring buffer (8 MiB at least: more than N records), all N are printed,
#     each index once;
#   - with a ring of one page a CPU (BPFTRACE_PERF_RB_PAGES=1) and the output a pipe nobody
#     reads until the program is done, loss is certain: it is reported, and the indexes printed
#     (each once) plus the events reported lost are N, in text and in JSON;
#   - printf's compiled formats print what the C library's would.
# Nothing is timed: the deadlines only stop a hung run. SKIP without a C compiler.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
case $KILN in /*) ;; *) KILN=$PWD/$KILN ;; esac
SUITE=trace-flood
. "${ROOT:-$PWD}/tests/harness/report.sh"
CC=${CC:-cc}
N=200000
if ! type -P "$CC" >/dev/null; then echo "SKIP $SUITE/suite: no C compiler ($CC)"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/flood.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
/* flood N [DONE]: N close() calls on fds 1000000+i, then DONE created */
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++)
		syscall(SYS_close, 1000000 + i);
	if (argc > 2)
		fclose(fopen(argv[2], "w"));
	return 0;
}
EOF2
if ! "$CC" -O1 -o "$tmp/flood" "$tmp/flood.c" 2>"$tmp/cc.err"; then
	echo "SKIP $SUITE/suite: $CC cannot build a test program: $(head -c 300 "$tmp/cc.err")"; exit 0
fi
PROG='tracepoint:syscalls:sys_enter_close /pid == cpid && args->fd >= 1000000/ { printf("%d\n", args->fd - 1000000); }'

# account NAME FILE JSON: the indexes printed in FILE (each once, all below N) plus the events
# it reports lost are N; sets $printed and $lost
account() {
	local name=$1 file=$2 json=$3 dups bad
	if [ "$json" = 1 ]; then
		sed -n 's/^{"type": "printf", "data": "\([0-9]*\)\\n"}$/\1/p' "$file" >"$tmp/$name.idx"
		lost=$(sed -n 's/^{"type": "lost_events", "data": {"events": \([0-9]*\)}}$/\1/p' "$file" | awk '{ s += $1 } END { print s + 0 }')
	else
		grep -E '^[0-9]+$' "$file" >"$tmp/$name.idx"
		lost=$(awk '/^Lost [0-9]+ events$/ { s += $2 } END { print s + 0 }' "$file")
	fi
	printed=$(wc -l <"$tmp/$name.idx")
	dups=$(sort -n "$tmp/$name.idx" | uniq -d | head -3 | tr '\n' ' ')
	bad=$(awk -v n=$N '$1 >= n' "$tmp/$name.idx" | head -3 | tr '\n' ' ')
	if [ -n "$dups" ]; then fail "$name" "indexes printed twice: $dups"; return 1
	elif [ -n "$bad" ]; then fail "$name" "indexes out of range: $bad"; return 1
	elif [ $((printed + lost)) -ne $N ]; then
		fail "$name" "$printed printed + $lost reported lost != $N: $((N - printed - lost)) lost unsaid"; return 1
	fi
	return 0
}

# ---- the default ring: all N printed -------------------------------------------------------------
timeout 300 "$KILN" trace -q -o "$tmp/all.txt" -c "$tmp/flood $N" -e "$PROG" 2>"$tmp/all.err"
rc=$?
if [ $rc -ne 0 ]; then fail all-printed "status $rc: $(head -c 300 "$tmp/all.err")"
elif account all-printed "$tmp/all.txt" 0; then
	if [ "$lost" -ne 0 ]; then fail all-printed "$lost of $N reported lost with the default ring buffer"
	else pass "all-printed ($printed)"; fi
fi

# ---- one page a CPU, the output stalled until the program is done: loss reported ----------------
# stalled NAME ARGS...: kiln trace's output through a pipe read only once DONE exists (300 s at
# most), into NAME.txt
stalled() {
	local name=$1; shift
	rm -f "$tmp/done"
	BPFTRACE_PERF_RB_PAGES=1 timeout 300 "$KILN" trace -q "$@" -c "$tmp/flood $N $tmp/done" -e "$PROG" \
		2>"$tmp/$name.err" | {
		for ((i = 0; i < 3000; i++)); do [ -e "$tmp/done" ] && break; sleep 0.1; done
		cat
	} >"$tmp/$name.txt"
	rc=${PIPESTATUS[0]}
}
for mode in text json; do
	name=tiny-ring-$mode
	if [ $mode = json ]; then stalled "$name" -f json; else stalled "$name"; fi
	if [ $rc -ne 0 ]; then fail "$name" "status $rc: $(head -c 300 "$tmp/$name.err")"
	elif [ ! -e "$tmp/done" ]; then fail "$name" "the program did not finish"
	elif account "$name" "$tmp/$name.txt" $([ $mode = json ] && echo 1 || echo 0); then
		if [ "$lost" -eq 0 ]; then fail "$name" "nothing reported lost from a ring of one page a CPU whose reader was stalled"
		else pass "$name ($printed printed, $lost reported lost)"; fi
	fi
done

# ---- compiled formats: as the C library prints them -----------------------------------------------
got=$(timeout 60 "$KILN" trace -q -e 'BEGIN { printf("%5d|%-8x|%lu|%hhd|%c|%p|%%|%o|%X|%ld|%08.3d|%+d|%u|%hd|%d\n", 42, 3808, 12345678901, -1, 65, 4096, 8, 255, -5, 7, 9, -1, 70000, -3000000000); exit(); }' 2>&1)
check formats "   42|ee0     |12345678901|-1|A|0x1000|%|10|FF|-5|     007|+9|4294967295|4464|1294967296" "$got"
got=$(timeout 60 "$KILN" trace -q -e 'BEGIN { printf("%d %u %x %X %lu %ld %lx %d %d\n", 0, 4294967295, 48879, 48879, 18446744073709551615, -9223372036854775807, -1, -2147483648, 1234567890); exit(); }' 2>&1)
check formats-plain "0 4294967295 beef BEEF 18446744073709551615 -9223372036854775807 ffffffffffffffff -2147483648 1234567890" "$got"

#!/usr/bin/env bash
# stops.sh — Ctrl-C and SIGTERM end kiln within a second even when its output goes into a pipe
# nobody reads (src/cli/stop.c). Each case starts kiln with stdout into a FIFO that a process
# holds open without ever reading, waits until kiln is blocked writing to it (its
# /proc/PID/syscall shows the same write on fd 1 twice, 0.1 s apart), sends the signal, and
# measures how long kiln takes to exit: under a second, with status 128 + the signal, and
# every link and program it held (the ids in its own /proc/PID/fdinfo) gone. The cases:
# `kiln run` of an object that sends a record on every system call (its printing makes more),
# `kiln run --interval 1ms` (the maps printed every millisecond), the same with stderr into the
# pipe too, `kiln trace` printing on every system call, and a host session file printing in a
# loop. A reader that is slow but reads loses nothing: the final report reaches it, it has a
# line for every record kiln read (none dropped by the signal that found a write waiting),
# and the status is 0. KILN_STOPS_ROUNDS (default 1) repeats the stalled cases.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=stops
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
tmp=$(mktemp -d)
k= r=
cleanup() {
	[ -n "$k" ] && kill -KILL "$k" 2>/dev/null
	[ -n "$r" ] && kill -KILL "$r" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

trace_prog='tracepoint:raw_syscalls:sys_enter { printf("%d %s\n", pid, comm); }'

# blocked_on PID FDS: 0 once PID has been blocked in write(FD, ...), FD one of FDS (a bracket
# expression: [12]), for two samples 0.1 s apart (the same call: buffer, count, stack); 1
# after 20 s or when PID has ended
blocked_on() {
	local i s last=
	for i in $(seq 200); do
		kill -0 "$1" 2>/dev/null || return 1
		s=$(cat /proc/"$1"/syscall 2>/dev/null)
		case "$s" in
		"1 0x"$2" "*) [ "$s" = "$last" ] && return 0 ;;
		*) s= ;;
		esac
		last=$s
		sleep 0.1
	done
	return 1
}

# exited_within PID: waits up to 3 s for PID (a child of this shell) to end; its status in
# $st and the milliseconds from now to its end in $ms (killed after 3 s: st=killed)
exited_within() {
	local t0=$EPOCHREALTIME i
	for i in $(seq 300); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.01
	done
	local t1=$EPOCHREALTIME
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"; wait "$1" 2>/dev/null; st=killed
	else
		wait "$1"; st=$?
	fi
}

# stalled NAME SIG FD ARGS...: `kiln ARGS...` with stdout into a FIFO nobody reads (and stderr
# too when FD is 2, else into a file), SIG once it is blocked writing to the FIFO
stalled() {
	local name=$1 sig=$2 fd=$3; shift 3
	local fifo=$tmp/$name.fifo err=$tmp/$name.err
	rm -f "$fifo"; mkfifo "$fifo"
	sleep 60 <"$fifo" & r=$!      # holds the read end open, never reads
	if [ "$fd" = 2 ]; then "$KILN" "$@" >"$fifo" 2>&1 & k=$!
	else "$KILN" "$@" >"$fifo" 2>"$err" & k=$!; fi
	if ! blocked_on $k "[1$fd]"; then
		fail "$name" "kiln never blocked writing to the pipe: $(cat "$err" 2>/dev/null | head -5 | tr '\n' '|')"
		kill -KILL $k $r 2>/dev/null; wait $k $r 2>/dev/null; k= r=
		return
	fi
	local links progs
	links=$(fd_ids $k link); progs=$(fd_ids $k prog)
	kill -"$sig" $k
	exited_within $k; k=
	local want=$((128 + $(kill -l "$sig")))
	if [ "$st" = "$want" ] && [ "$ms" -lt 1000 ]; then pass "$name (stopped in $ms ms)"
	else fail "$name" "status $st (want $want) $ms ms after SIG$sig"; fi
	if [ -n "$links" ] && [ -n "$progs" ] && gone link $links && gone prog $progs; then pass "$name/detached"
	else fail "$name/detached" "links '$links' programs '$progs' after the stop"; fi
	kill -KILL $r 2>/dev/null; wait $r 2>/dev/null; r=
	rm -f "$fifo"
}

rounds=${KILN_STOPS_ROUNDS:-1}
for ((round = 1; round <= rounds; round++)); do
	sfx=; [ "$rounds" -gt 1 ] && sfx=-$round
	for sig in INT TERM; do
		stalled "run-flood-sig$sig$sfx" $sig 1 run tests/lib/ev-flood.lisp
		stalled "trace-sig$sig$sfx" $sig 1 trace -e "$trace_prog"
		stalled "session-sig$sig$sfx" $sig 1 run tests/stops/print-loop.lisp
	done
	stalled "run-interval-sigINT$sfx" INT 1 run tests/cli/tp-only.lisp --interval 1ms
	stalled "run-stderr-too-sigINT$sfx" INT 2 run tests/lib/ev-flood.lisp
done

# `kiln run` dropped stdout, and said so on stderr (a file here)
expect_said() {
	if grep -q "kiln run: stdout is not being read; the rest of its output is dropped" "$tmp/$1.err"; then pass "$1/said"
	else fail "$1/said" "stderr: $(tail -3 "$tmp/$1.err" | tr '\n' '|')"; fi
}
expect_said run-flood-sigINT${sfx}

# ---- a slow reader is no stalled one: it gets everything, the status is 0 ------------------
fifo=$tmp/slow.fifo
mkfifo "$fifo"
python3 -c '
import sys, time
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as out:
    while True:
        b = f.read1(2048)
        if not b:
            break
        out.write(b)
        time.sleep(0.05)
' "$fifo" "$tmp/slow.out" & r=$!
"$KILN" run tests/lib/ev-flood.lisp >"$fifo" 2>"$tmp/slow.err" & k=$!
# the reader has read 100 KB at 40 KB/s: kiln, sending faster, has been waiting on a full pipe
for _ in $(seq 200); do
	[ "$(stat -c %s "$tmp/slow.out" 2>/dev/null || echo 0)" -gt 100000 ] && break
	kill -0 $k 2>/dev/null || break
	sleep 0.1
done
if [ "$(stat -c %s "$tmp/slow.out" 2>/dev/null || echo 0)" -gt 100000 ] && kill -0 $k 2>/dev/null; then
	kill -INT $k
	for _ in $(seq 300); do kill -0 $k 2>/dev/null || break; sleep 0.05; done   # 15 s
	if kill -0 $k 2>/dev/null; then kill -KILL $k; st=killed; else wait $k; st=$?; fi
	k=
	wait $r; r=
	check slow-reader/status 0 "$st"
	if grep -qE '^events: records=[1-9][0-9]* lost=0 drops=[0-9]+$' "$tmp/slow.out"; then pass slow-reader/report
	else fail slow-reader/report "no final report in what the reader read: $(tail -2 "$tmp/slow.out" | tr '\n' '|')"; fi
	# every record read is a line the reader got: the write the signal found waiting went on
	n=$(sed -n 's/^events: records=\([0-9]*\) .*/\1/p' "$tmp/slow.out")
	check slow-reader/complete "${n:-none}" "$(grep -c '^sys_call ' "$tmp/slow.out")"
	if grep -q 'not being read' "$tmp/slow.err"; then fail slow-reader/kept "$(cat "$tmp/slow.err" | tr '\n' '|')"
	else pass slow-reader/kept; fi
else
	fail slow-reader "the reader never read 100 KB: $(head -3 "$tmp/slow.err" | tr '\n' '|')"
fi

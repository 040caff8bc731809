#!/usr/bin/env bash
# trace-signals.sh — SIGUSR1 to a running `kiln trace` prints every map as it stands and the
# trace goes on (src/cli/trace.c on_usr1), as bpftrace prints them: the same text beside
# bpftrace 0.17 (text and JSON), the maps printed twice (at the signal and at the end), and the
# trace still running after the signal (an interval probe ends it). Without bpftrace, kiln's
# own output is still checked for the two printings. Waits on the output, never a bare sleep.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
case $KILN in /*) ;; *) KILN=$PWD/$KILN ;; esac
SUITE=trace-signals
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/trace/wait.sh"
BPFTRACE=${BPFTRACE:-$(type -P bpftrace)}
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

# usr1 OUT TRACER ARGS...: the tracer's output in OUT after one SIGUSR1 sent once its probes
# are attached; it exits by itself (interval:s:2)
usr1() {
	local out=$1 pid; shift
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$@" >"$out" 2>"$out.err" &
	pid=$!; pids+=("$pid")
	if ! wait_for "$out.err" __BPFTRACE_NOTIFY_PROBES_ATTACHED 30; then
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 1
	fi
	kill -USR1 "$pid"
	wait_for "$out" '@scalar' 10
	wait "$pid"
}
prog='BEGIN { @scalar = 5; @h[1] = hist(5); @s["a", 2] = count(); } interval:s:2 { exit(); }'
for fmt in text json; do
	opt=(); [ $fmt = json ] && opt=(-f json)
	usr1 "$tmp/k.$fmt" "$KILN" trace "${opt[@]}" -e "$prog"
	rc=$?
	check "$fmt/exit-status" 0 "$rc"
	check "$fmt/maps-printed-twice" 2 "$(grep -c '@scalar' "$tmp/k.$fmt")"
	if [ -z "$BPFTRACE" ]; then
		echo "SKIP $SUITE/$fmt/same-as-bpftrace: bpftrace is not installed"
		continue
	fi
	usr1 "$tmp/b.$fmt" "$BPFTRACE" "${opt[@]}" -e "$prog"
	check "$fmt/same-as-bpftrace" "$(grep -v '^Attaching\|attached_probes' "$tmp/b.$fmt")" \
		"$(grep -v '^Attaching\|attached_probes' "$tmp/k.$fmt")"
done

# Ctrl-C while every context switch runs a command (system(), whose own switches feed the
# flood): kiln stops within a deadline, END still prints, and the records it let go are said.
# The stop used to wait for every record left, each a command (unbounded); and a command
# printing nothing (system("true")) once freed the batch's text twice.
for cmd in "echo foo" true; do
	name=stop-under-system-flood/${cmd%% *}
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$KILN" trace --unsafe -e "tracepoint:sched:sched_switch { system(\"$cmd\"); } END { printf(\"end\\n\"); }" \
		>"$tmp/f.out" 2>"$tmp/f.err" &
	pid=$!; pids+=("$pid")
	if ! wait_for "$tmp/f.err" __BPFTRACE_NOTIFY_PROBES_ATTACHED 30; then
		fail "$name" "never attached: $(head -c 300 "$tmp/f.err")"; kill -9 "$pid"; continue
	fi
	# (a backlog of commands builds up for a moment)
	wait_for "$tmp/f.out" "Lost [0-9]* events" 2
	kill -INT "$pid"
	end=$((SECONDS + 10))
	while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.05; done
	if kill -0 "$pid" 2>/dev/null; then
		fail "$name" "still running 10 s after SIGINT"; kill -9 "$pid"; wait "$pid" 2>/dev/null; continue
	fi
	wait "$pid"; rc=$?
	if [ "$rc" -ne 0 ]; then   # (what kiln said, for whoever reads the failure)
		fail "$name/exit-status" "status $rc; stderr: $(tr '\n' '|' <"$tmp/f.err" | head -c 400)"
	else
		pass "$name/exit-status"
	fi
	check "$name/end-printed" end "$(grep -x end "$tmp/f.out")"
done

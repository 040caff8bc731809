#!/usr/bin/env bash
# trace.sh — `make bench-trace`: kiln trace against bpftrace 0.17 on the same scripts, taking
# turns, ROUNDS runs each (bench/trace_run.py does one run and the summary): the time from
# spawning the tracer (the whole process) to its __BPFTRACE_NOTIFY_PROBES_ATTACHED line,
# the peak RSS of the whole run, and the xlated instructions of the programs it holds while
# it traces (BEGIN and END left out: bpftrace has closed or not yet loaded them then).
# Scripts: four one-liners and those of bpftrace v0.17.0's tools that both attach here, the
# tools read from bpftrace's sources (a peer, tests/harness/peers.sh; without it the one-liners only).
# Prints per-script medians and ratios kiln/bpftrace, then per metric the totals, the
# geometric mean and the median of the ratios; writes bench/trace-results.json. Asserts
# nothing. Usage (as root, after make): [ROUNDS=7] bash bench/trace.sh [NAME...]
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
BPFTRACE=${BPFTRACE:-bpftrace}
. "$ROOT/tests/harness/peers.sh"
ROUNDS=${ROUNDS:-7}
RESULTS=${RESULTS:-$ROOT/bench/trace-results.json}
OUT=$BUILD/bench/trace
# tools whose probes are all tracepoints, intervals or profiles (this kernel has no kprobes)
TOOLS="opensnoop execsnoop syscount bitesize naptime killsnoop setuids pidpersec statsnoop
syncsnoop writeback cpuwalk"

for tool in "$KILN" "$(command -v "$BPFTRACE")" "$(command -v bpftool)"; do
	if [ ! -x "$tool" ]; then
		echo "trace.sh: needs kiln (make), bpftrace 0.17 and bpftool: '$tool' is missing" >&2
		exit 1
	fi
done
mkdir -p "$OUT"
rm -f "$OUT"/*.bt
# the spawner: libc only (its memory image is the floor of the RSS measured)
export TRACE_EXEC=$BUILD/bench/trace_exec
"${CC:-cc}" -O2 -Wall -Wextra -o "$TRACE_EXEC" "$ROOT/bench/trace_exec.c" || exit 1
cat >"$OUT/begin-exit.bt" <<'EOF'
BEGIN { printf("hello\n"); exit(); }
EOF
cat >"$OUT/count-comm.bt" <<'EOF'
tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }
EOF
cat >"$OUT/read-hist.bt" <<'EOF'
tracepoint:syscalls:sys_exit_read /args->ret > 0/ { @bytes = hist(args->ret); }
EOF
cat >"$OUT/interval.bt" <<'EOF'
tracepoint:syscalls:sys_enter_openat { @opens = count(); }
interval:ms:100 { print(@opens); clear(@opens); }
EOF
if bpftrace_has_tag; then
	for t in $TOOLS; do
		peer_git "$BPFTRACE_SRC" show "v0.17.0:tools/$t.bt" >"$OUT/$t.bt"
	done
else
	echo "trace.sh: no bpftrace source with tag v0.17.0 at '$BPFTRACE_SRC' ($PEERS_HOW): one-liners only" >&2
fi

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=(begin-exit count-comm read-hist interval)
	for t in $TOOLS; do [ -f "$OUT/$t.bt" ] && names+=("$t"); done
fi

# kiln's BEGIN and END programs, by name, from the Lisp it generates
declare -A skip=()
for n in "${names[@]}"; do
	skip[$n]=$("$KILN" trace -d "$OUT/$n.bt" 2>/dev/null |
		sed -n 's/^(defprog \([^ ]*\) .*"raw_tracepoint\/kiln_trace_\(begin\|end\)".*/\1/p' | tr '\n' ' ')
done

raw=$OUT/raw.txt
echo "L start $(cut -d' ' -f1-3 /proc/loadavg)" >"$raw"   # other work on the machine skews both
for ((r = 1; r <= ROUNDS; r++)); do
	for n in "${names[@]}"; do
		if (( r % 2 )); then order=(kiln bpftrace); else order=(bpftrace kiln); fi
		for side in "${order[@]}"; do
			if [ "$side" = kiln ]; then
				SKIP_PROGS=${skip[$n]} python3 "$ROOT/bench/trace_run.py" run "$n" kiln "$r" \
					"$KILN" trace "$OUT/$n.bt" >>"$raw"
			else
				SKIP_PROGS="" python3 "$ROOT/bench/trace_run.py" run "$n" bpftrace "$r" \
					"$BPFTRACE" "$OUT/$n.bt" >>"$raw"
			fi
		done
	done
	echo "trace.sh: round $r of $ROUNDS done" >&2
done
echo "L end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
python3 "$ROOT/bench/trace_run.py" summary "$raw" "$RESULTS" "$ROUNDS"
echo "wrote $RESULTS"

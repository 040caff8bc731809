#!/usr/bin/env bash
# flood.sh — the printf flood of issue 32: a printf on each of N getpid() calls (default
# 2,000,000) by bench/flood_work.c, written to a file with -o, under kiln trace and under
# bpftrace 0.17, taking turns with a bare run of the workload, ROUNDS rounds (default 3).
#   kiln trace -o FILE -c 'flood_work N' -e 'tracepoint:syscalls:sys_enter_getpid
#       /pid == cpid/ { printf("%d %llu\n", pid, nsecs); }'
# Per side, medians over the rounds: the workload's loop time (its own clock) and its slowdown
# against the bare run of the same round, the lines in the file, the events lost as the tracer reported them
# ("Lost N events" lines), the events neither printed nor reported (N - lines - lost: silent
# loss; -1: the tracer's own child made one getpid() before its exec), the loss in percent of N
# (and the worst round's), the tracer's whole wall time and the lines it printed per
# second of it (from the workload's start to the tracer's exit). Then the workload's time
# under bpftrace over its time under kiln, round by round and their median (issue 32 wants it at least 5, and kiln's loss at
# most 1%). Asserts nothing. Usage (as root, after make):
#   [ROUNDS=3] [N=2000000] [SIDES="bare kiln bpftrace"] bash bench/flood.sh
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
BPFTRACE=${BPFTRACE:-bpftrace}
ROUNDS=${ROUNDS:-3}
N=${N:-2000000}
SIDES=${SIDES:-bare kiln bpftrace}
OUT=$BUILD/bench/flood
mkdir -p "$OUT"
WORK=$OUT/flood_work
"${CC:-cc}" -O2 -Wall -Wextra -o "$WORK" "$ROOT/bench/flood_work.c" || exit 1
case " $SIDES " in *" kiln "*) [ -x "$KILN" ] || { echo "flood.sh: no kiln at $KILN (make)" >&2; exit 1; } ;; esac
case " $SIDES " in *" bpftrace "*)
	command -v "$BPFTRACE" >/dev/null || { echo "flood.sh: no bpftrace ($BPFTRACE)" >&2; exit 1; } ;; esac
# bpftrace under another name: tests running beside the bench may stop "bpftrace" by name
ln -sf "$(command -v "$BPFTRACE" 2>/dev/null || echo "$BPFTRACE")" "$OUT/bt-flood"
PROG='tracepoint:syscalls:sys_enter_getpid /pid == cpid/ { printf("%d %llu\n", pid, nsecs); }'

now_ns() { date +%s%N; }

# one run of SIDE in round $r: prints "R SIDE LOOP_NS LINES LOST WALL_NS ROUND"
one() {
	local side=$1 file=$OUT/$1.txt err=$OUT/$1.err t0 t1
	rm -f "$file"
	t0=$(now_ns)
	case $side in
	bare) "$WORK" "$N" 2>"$err" ;;
	kiln) "$KILN" trace -q -o "$file" -c "$WORK $N" -e "$PROG" 2>"$err" ;;
	bpftrace) "$OUT/bt-flood" -q -o "$file" -c "$WORK $N" -e "$PROG" 2>"$err" ;;
	esac
	t1=$(now_ns)
	local w
	w=$(grep -m1 '^FLOOD_WORK' "$err")
	if [ -z "$w" ]; then
		echo "flood.sh: $side: the workload did not report:" >&2
		head -5 "$err" >&2
		return
	fi
	# FLOOD_WORK PID N LOOP_NS START_RT END_RT
	set -- $w
	local loop=$4 start=$5 lines=0 lost=0
	if [ "$side" != bare ]; then
		lines=$(grep -c '^[0-9][0-9]* [0-9][0-9]*$' "$file")
		lost=$(awk '/^Lost [0-9]+ events$/ { s += $2 } END { print s + 0 }' "$file")
	fi
	echo "R $side $loop $lines $lost $((t1 - start)) $r"
}

raw=$OUT/raw.txt
echo "L start $(cut -d' ' -f1-3 /proc/loadavg)" >"$raw"
read -r -a sides <<<"$SIDES"
for ((r = 1; r <= ROUNDS; r++)); do
	# interleaved, the order turned round every other round
	if (( r % 2 )); then order=("${sides[@]}"); else order=(); for ((i = ${#sides[@]} - 1; i >= 0; i--)); do order+=("${sides[i]}"); done; fi
	for s in "${order[@]}"; do one "$s" | tee -a "$raw" >&2; done
	echo "flood.sh: round $r of $ROUNDS done" >&2
done
echo "L end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw"
awk -v n="$N" '
function median(s,    a, k, i, j, t) {
	k = split(s, a, " ")
	if (k == 0) return "-"
	for (i = 2; i <= k; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return k % 2 ? a[(k + 1) / 2] + 0 : (a[k / 2] + a[k / 2 + 1]) / 2
}
$1 == "L" { print "load " $2 ": " $3 " " $4 " " $5 }
$1 == "R" {
	if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 }
	loop[$2] = loop[$2] " " $3; lines[$2] = lines[$2] " " $4; lost[$2] = lost[$2] " " $5
	silent[$2] = silent[$2] " " (n - $4 - $5); pct[$2] = pct[$2] " " 100 * (n - $4) / n
	if (!($2 in worst) || 100 * (n - $4) / n > worst[$2]) worst[$2] = 100 * (n - $4) / n
	wall[$2] = wall[$2] " " $6; rate[$2] = rate[$2] " " ($6 > 0 ? $4 / ($6 / 1e9) : 0)
	at[$2, $7] = $3; rounds[$7] = 1
}
END {
	printf "%-9s %10s %8s %9s %9s %9s %7s %7s %9s %11s\n", "side", "loop s", "x bare", "lines", "reported", "silent", "loss %", "worst %", "wall s", "lines/s"
	b = median(loop["bare"])
	for (i = 1; i <= ns; i++) {
		s = order[i]; l = median(loop[s]); L[s] = l
		xs = ""   # the slowdown against the bare run of the same round
		for (r in rounds) if ((s, r) in at && ("bare", r) in at && at["bare", r] > 0) xs = xs " " at[s, r] / at["bare", r]
		x = xs != "" ? sprintf("%.1f", median(xs)) : "-"
		if (s == "bare") { printf "%-9s %10.3f %8s %9s %9s %9s %7s %7s %9.3f %11s\n", s, l / 1e9, x, "-", "-", "-", "-", "-", median(wall[s]) / 1e9, "-"; continue }
		printf "%-9s %10.3f %8s %9d %9d %9d %7.2f %7.2f %9.3f %11.0f\n", s, l / 1e9, x,
			median(lines[s]), median(lost[s]), median(silent[s]), median(pct[s]), worst[s], median(wall[s]) / 1e9, median(rate[s])
	}
	q = ""
	for (r in rounds) if (("kiln", r) in at && ("bpftrace", r) in at && at["kiln", r] > 0) q = q " " sprintf("%.1f", at["bpftrace", r] / at["kiln", r])
	if (q != "")
		printf "workload under bpftrace / under kiln (median of the rounds'"'"'):%s = %.1f (issue 32: >= 5; kiln loss <= 1%%)\n", q, median(q)
}' "$raw"

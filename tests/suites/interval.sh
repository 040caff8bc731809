#!/usr/bin/env bash
# interval.sh — `kiln run --interval`: the maps printed every interval under a numbered line
# as well as at exit, maps declared :display :log2-hist / (:linear-hist 0 100 10) drawn as
# bpftrace's hist()/lhist() (exact bars and labels, [4K, 8K) included; a bad :display is a
# compile error), re-read each time (a key the test sets, and a getppid caller's count, appear in a later block and not an earlier one); --top 2 keeps the two biggest values,
# --sort key orders them; per-CPU counts summed (a getppid caller's exactly), or listed with
# --per-cpu; --clear empties the maps after each printing; --json lines all
# parse; a bad --interval, --top or --sort is a usage error; SIGINT stops kiln run within 2 s
# though the interval is long. The program (tests/interval/counts.lisp) counts getppid calls
# by tgid; its second map is only filled by the test through --pin, so its contents are
# known exactly whatever else runs on the machine.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
pin=/sys/fs/bpf/kiln-interval-$$
out=$(mktemp -d)
k=
trap '[ -n "$k" ] && kill -KILL $k 2>/dev/null; "$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" "$out"' EXIT
SUITE=interval
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
getppid="$BUILD/tests/getppid"
prog=tests/interval/counts.lisp

# blocks FILE: the number of interval lines printed so far
blocks() { grep -c '^--- interval [0-9]*, [0-9:]* ---$' "$1"; }
# block FILE N MAP: map MAP's lines in interval block N (its heading without the map's id)
block() {
	awk -v n="$2" -v m="$3" '
		/^--- interval / { cur = ($3 == n ",") ; inmap = 0; next }
		/^map / { inmap = cur && $2 == m; if (inmap) { sub(/ \(.*\)/, ""); print }; next }
		/^[a-z]/ { inmap = 0 }
		inmap { print }' "$1"
}
# wait_blocks FILE N: 0 once N interval blocks are complete (N+1 begun), 1 after 10 s
wait_blocks() {
	local i
	for i in $(seq 200); do
		[ "$(blocks "$1")" -gt "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# ---- usage errors ------------------------------------------------------------------------
for bad in "--interval soon" "--interval 0" "--top 0" "--top x" "--sort size" "--clear"; do
	"$KILN" run $prog -w $bad >/dev/null 2>"$out/usage.err"; rc=$?
	check "usage ${bad// /=}" "2" "$rc"
done

# ---- :display refused where it cannot draw --------------------------------------------------
printf '(defmap h :type :hash :key u32 :value u32 :max-entries 4 :display :log2-hist)\n' >"$out/bad1.lisp"
printf '(defmap h :type :array :key u32 :value u64 :max-entries 4 :display (:linear-hist 10 0 1))\n' >"$out/bad2.lisp"
check display-u64-value "1 :display draws a histogram: the map needs an integer :key (the bucket) and a u64 :value (its count): :log2-hist" \
	"$("$KILN" compile "$out/bad1.lisp" -o "$out/b.o" >/dev/null 2>"$out/b.err"; echo $?) $(sed -n 's/.*error: //p' "$out/b.err")"
check display-linear-range "1 :linear-hist needs LO < HI, STEP > 0 and at most 1000 buckets: (:linear-hist 10 0 1)" \
	"$("$KILN" compile "$out/bad2.lisp" -o "$out/b.o" >/dev/null 2>"$out/b.err"; echo $?) $(sed -n 's/.*error: //p' "$out/b.err")"

# ---- text: blocks re-read the maps; --top 2 --sort key --------------------------------------
if ! start_run "$out/a.out" "$out/a.err" $prog -w --pin "$pin" --interval 200ms --top 2 --sort key; then
	fail run-start "$(cat "$out/a.err")"
	exit 0
fi
wait_blocks "$out/a.out" 1
for kv in "1 10" "2 30" "3 20" "4 5"; do "$KILN" map set "$pin/maps/scores" $kv; done
for kv in "0 1" "1 2" "3 4"; do "$KILN" map set "$pin/maps/lat" $kv; done
for kv in "0 3" "2 6" "10 1" ; do "$KILN" map set "$pin/maps/pct" $kv; done
"$getppid" 50 >/dev/null & gp=$!; wait $gp
# the first block begun after the changes shows them all
last=$(( $(blocks "$out/a.out") + 1 ))
wait_blocks "$out/a.out" $last
check scores-before "map scores:
  (empty)" "$(block "$out/a.out" 1 scores)"
check scores-top2-by-key "map scores, the top 2 of 4 by value:
  2 => 30
  3 => 20" "$(block "$out/a.out" $last scores)"
# the caller made 50 calls: one of the biggest counts unless something else makes more
calls_last=$(block "$out/a.out" $last calls)
lines=$(grep -c ' => ' <<<"$calls_last")
if [ "$lines" -ge 1 ] && [ "$lines" -le 2 ]; then pass calls-top2-lines; else fail calls-top2-lines "$calls_last"; fi
check calls-before-none 0 "$(block "$out/a.out" 1 calls | grep -c "^  $gp => ")"
n=$(sed -n "s/^  $gp => //p" <<<"$calls_last")
if [ -z "$n" ]; then
	# another process made more getppid calls meanwhile: the count is in the dump then
	n=$("$KILN" map get "$pin/maps/calls" $gp --json | grep -o '"value":[0-9]*' | cut -d: -f2)
fi
check calls-counted 50 "$n"
# :display :log2-hist, kiln's (log2 x) buckets (0 holds 0 and 1) drawn as bpftrace draws hist()
bar() { printf '%*s' "$1" '' | tr ' ' @; }
check log2-hist "map lat:
$(printf '%-16s%8d |%-52s|' '[0, 2)' 1 "$(bar 13)")
$(printf '%-16s%8d |%-52s|' '[2, 4)' 2 "$(bar 26)")
$(printf '%-16s%8d |%-52s|' '[4, 8)' 0 '')
$(printf '%-16s%8d |%-52s|' '[8, 16)' 4 "$(bar 52)")" "$(block "$out/a.out" $last lat)"
check linear-hist "map pct:
$(printf '%-16s%8d |%-52s|' '[0, 10)' 3 "$(bar 26)")
$(printf '%-16s%8d |%-52s|' '[10, 20)' 0 '')
$(printf '%-16s%8d |%-52s|' '[20, 30)' 6 "$(bar 52)")
$(for lo in 30 40 50 60 70 80 90; do printf '%-16s%8d |%-52s|\n' "[$lo, $((lo + 10)))" 0 ''; done
)
$(printf '%-16s%8d |%-52s|' '[100, ...)' 1 "$(bar 8)")" "$(block "$out/a.out" $last pct)"
check log2-label-4K "[4K, 8K)" "$("$KILN" map set "$pin/maps/lat" 12 9 && b=$(( $(blocks "$out/a.out") + 1 )) &&
	wait_blocks "$out/a.out" $b && block "$out/a.out" $b lat | tail -1 | cut -c1-16 | sed 's/ *$//')"
"$KILN" map set "$pin/maps/scores" 3 40
b=$(( $(blocks "$out/a.out") + 1 )); wait_blocks "$out/a.out" $b
check scores-changed "map scores, the top 2 of 4 by value:
  2 => 30
  3 => 40" "$(block "$out/a.out" $b scores)"
if stop_run; then pass sigint-bounded; else fail sigint-bounded "still running 2 s after SIGINT"; fi
# and at exit, as before: the whole view once more, under no interval line
tail_scores=$(awk '/^--- interval /{t=""} {t = t $0 "\n"} END {printf "%s", t}' "$out/a.out" | sed -n '/^map scores/,$p' | sed 's/ (.*)//')
check exit-print "map scores, the top 2 of 4 by value:
  2 => 30
  3 => 40" "$(sed -n '/^map scores/,/^map [^s]/p' <<<"$tail_scores" | grep -v '^map [^s]' | tail -3)"
"$KILN" unload "$pin" >/dev/null 2>&1

# ---- --clear: printed once, then gone; --sort value ------------------------------------------
# (every value must be set between two ticks, or a tick between the sets prints and clears
# some of them a block early: 2 s between ticks, where five `kiln map set` take well under one
# even under ASan; 200 ms had split them on a loaded machine)
if start_run "$out/c.out" "$out/c.err" $prog -w --pin "$pin" --interval 2s --clear --sort value --per-cpu; then
	wait_blocks "$out/c.out" 1
	for kv in "7 3" "8 1" "9 2"; do "$KILN" map set "$pin/maps/scores" $kv; done
	"$KILN" map set "$pin/maps/pct" 1 5
	"$KILN" map set "$pin/maps/pcalls" 1 7
	b=$(( $(blocks "$out/c.out") + 1 )); wait_blocks "$out/c.out" $((b + 1))
	check clear-printed "map scores:
  8 => 1
  9 => 2
  7 => 3" "$(block "$out/c.out" $b scores)"
	check clear-then-empty "map scores:
  (empty)" "$(block "$out/c.out" $((b + 1)) scores)"
	check clear-hist "[10, 20)               5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@| (empty)" \
		"$(block "$out/c.out" $b pct | tail -1) $(block "$out/c.out" $((b + 1)) pct | tail -1 | sed 's/^ *//')"
	ncpu=$(( $(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1 ))
	check per-cpu-listed "  1 => [$(seq -s, 1 $ncpu | sed 's/[0-9]*/7/g; s/,/ /g')]" "$(block "$out/c.out" $b pcalls | grep '^  1 => ')"
	check clear-map-empty 0 "$("$KILN" map dump "$pin/maps/scores" --json | grep -c .)"
	stop_run || fail clear-sigint "still running 2 s after SIGINT"
else
	fail clear-start "$(cat "$out/c.err")"
fi
"$KILN" unload "$pin" >/dev/null 2>&1

# ---- --json: every line parses; interval lines numbered; a long interval still stops -----------
if start_run "$out/j.out" "$out/j.err" $prog -w --pin "$pin" --interval 200ms --json; then
	"$KILN" map set "$pin/maps/scores" 5 55
	"$KILN" map set "$pin/maps/lat" 0 2 && "$KILN" map set "$pin/maps/lat" 2 5
	"$getppid" 30 >/dev/null & jp=$!; wait $jp
	for i in $(seq 200); do [ "$(grep -c '"interval"' "$out/j.out")" -ge 2 ] && break; sleep 0.05; done
	stop_run || fail json-sigint "still running 2 s after SIGINT"
	got=$(python3 -c '
import json, sys
n, iv, seen, hist, summed = 0, [], False, None, None
for line in open(sys.argv[1]):
    o = json.loads(line); n += 1
    if "interval" in o: iv.append(o["interval"])
    if o.get("map") == "scores" and o.get("key") == 5 and o.get("value") == 55: seen = True
    if o.get("map") == "lat" and o["hist"]: hist = o["hist"]
    if o.get("map") == "pcalls" and o.get("key") == int(sys.argv[2]): summed = o["value"]
print(n > 0, iv[:2], seen, summed, hist)' "$out/j.out" $jp 2>&1)
	check json-parses "True [1, 2] True 30 [{'min': 0, 'max': 1, 'count': 2}, {'min': 2, 'max': 3, 'count': 0}, {'min': 4, 'max': 7, 'count': 5}]" "$got"
else
	fail json-start "$(cat "$out/j.err")"
fi
"$KILN" unload "$pin" >/dev/null 2>&1
if start_run "$out/l.out" "$out/l.err" $prog -w --interval 60s; then
	if stop_run; then pass sigint-long-interval; else fail sigint-long-interval "still running 2 s after SIGINT"; fi
else
	fail long-start "$(cat "$out/l.err")"
fi
exit 0

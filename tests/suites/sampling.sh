#!/usr/bin/env bash
# sampling.sh — perf_event programs sampled by `kiln run`: tests/lib/sampling.lisp counts its
# samples per CPU; with every CPU kept busy by a spinner (cpu-clock counts running time), at
# --freq 100 for 2 s every online CPU must have about 200, at --period 20000000 (20 ms) about
# 100, within 25%; while it runs there is a perf link per CPU for its program, and none once
# kiln exits; a bad --freq is a usage error. Only this run's map and program are looked at.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/sampling"
mkdir -p "$out"
pass() { echo "PASS sampling/$1"; }
fail() { echo "FAIL sampling/$1: $2"; }
ncpu=$(nproc)

spin() { for i in $(seq "$ncpu"); do timeout "$1" sh -c 'while :; do :; done' & done; }

# per_cpu NAME WANT ARGS...: run 2 s with the CPUs busy, every CPU's count within 25% of WANT
per_cpu() {
	local name=$1 want=$2 line bad="" n=0 cpu v
	shift 2
	spin 3
	"$KILN" run tests/lib/sampling.lisp --duration 2 --json "$@" >"$out/$name.json" 2>"$out/$name.err"
	wait
	while read -r line; do
		cpu=$(sed 's/.*"key":\([0-9]*\).*/\1/' <<<"$line")
		v=$(sed 's/.*"value":\([0-9]*\).*/\1/' <<<"$line")
		n=$((n + 1))
		if [ "$v" -lt $((want * 3 / 4)) ] || [ "$v" -gt $((want * 5 / 4)) ]; then bad="$bad cpu$cpu=$v"; fi
	done < <(grep '^{"map":"samples"' "$out/$name.json")
	if [ "$n" = "$ncpu" ] && [ -z "$bad" ]; then
		pass "$name ($n CPUs, about $want samples each)"
	else
		fail "$name" "$n of $ncpu CPUs counted, want about $want each:$bad; $(tr '\n' ' ' <"$out/$name.err")"
	fi
}
per_cpu freq-100 200 --freq 100
per_cpu period-20ms 100 --period 20000000
if grep -q "attached sample: cpu-clock at 100 Hz on $ncpu CPU" "$out/freq-100.err"; then pass attach-message
else fail attach-message "$(head -2 "$out/freq-100.err")"; fi

# a perf link per CPU while kiln runs, none after: counted by the id of this run's program
. tests/harness/run.sh
start_run "$out/links.out" "$out/links.err" tests/lib/sampling.lisp --duration 5 --freq 50 ||
	fail links-run "kiln run did not say it was running"
links=$(fd_ids "$k" link)
n=$(count_words $links)
kill -INT "$k"; wait "$k"
if [ "$n" = "$ncpu" ] && gone link $links; then pass "links-per-cpu ($n while running, gone after)"
else fail links-per-cpu "$n links while running (want $ncpu): $links; after exit: $(for l in $links; do bpftool link show id "$l" 2>/dev/null | head -1; done)"; fi

"$KILN" run tests/lib/sampling.lisp --duration 0.1 --freq abc >/dev/null 2>&1; rc=$?
if [ $rc != 0 ]; then pass bad-freq; else fail bad-freq "status 0"; fi
exit 0

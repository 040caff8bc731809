#!/usr/bin/env bash
# run.sh DIR NAME... — runs each libFuzzer harness DIR/fuzz_NAME for FUZZ_TIME seconds (default
# 60), FUZZ_JOBS of them at a time (default 2), on its corpus DIR/corpus/NAME (kept between
# runs: what a run finds, the next starts from) and its seeds DIR/seed/NAME (else
# DIR/seed/object), with DIR/NAME.dict when there is one. Each harness's output goes to
# DIR/NAME.log; a crash, leak, sanitizer report or timeout leaves its input in
# DIR/crash/NAME/ (and, up to 16 KB, base64 in the output) and makes run.sh exit 1. Prints
# one line per harness: executions, time, coverage. FUZZ_ARGS adds libFuzzer options.
set -u
dir=${1:?usage: run.sh DIR NAME...}
shift
T=${FUZZ_TIME:-60}
J=${FUZZ_JOBS:-2}
start=$(date +%s)

one() {        # name: the fuzzing run, its exit status in DIR/NAME.rc
	local name=$1 seeds=$dir/seed/$1 dict=()
	[ -d "$seeds" ] || seeds=$dir/seed/object
	[ -f "$dir/$name.dict" ] && dict=(-dict="$dir/$name.dict")
	mkdir -p "$dir/corpus/$name" "$dir/crash/$name"
	local t0=$SECONDS
	# -close_fd_mask=3: the decoders' output goes nowhere (libFuzzer keeps its own stderr);
	# -timeout: one input taking longer than 10 s is a hang, as a crash
	# shellcheck disable=SC2086  # FUZZ_ARGS is a list of options
	"$dir/fuzz_$name" -max_total_time="$T" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
		-print_final_stats=1 -artifact_prefix="$dir/crash/$name/" "${dict[@]}" ${FUZZ_ARGS:-} \
		"$dir/corpus/$name" "$seeds" >"$dir/$name.log" 2>&1
	echo $? >"$dir/$name.rc"
	echo $((SECONDS - t0)) >"$dir/$name.secs"
}

running=0
for name in "$@"; do
	if [ ! -x "$dir/fuzz_$name" ]; then
		echo "fuzz: no harness $dir/fuzz_$name (make fuzz-bins)" >&2
		echo 1 >"$dir/$name.rc"
		continue
	fi
	if [ "$running" -ge "$J" ]; then
		wait -n
		running=$((running - 1))
	fi
	echo "fuzz: $name for ${T} s"
	one "$name" &
	running=$((running + 1))
done
wait

bad=0
for name in "$@"; do
	log=$dir/$name.log rc=$(cat "$dir/$name.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" 2>/dev/null | tail -1)
	secs=$(cat "$dir/$name.secs" 2>/dev/null)
	rm -f "$dir/$name.rc" "$dir/$name.secs"
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*' "$log" 2>/dev/null | tail -1)
	printf 'fuzz: %-8s %9s execs in %3s s (%s execs/s)  %s\n' "$name" "${execs:-?}" "${secs:-?}" \
		"$(( ${execs:-0} / (${secs:-0} > 0 ? ${secs:-1} : 1) ))" "$cov"
	if [ "$rc" -ne 0 ]; then
		bad=1
		echo "fuzz: $name FAILED (status $rc); the end of $log:"
		grep -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|Test unit written|fuzz_[a-z]+:' "$log" | head -20 | sed 's/^/    /'
		for f in "$dir/crash/$name"/*; do
			[ -f "$f" ] || continue
			echo "    input kept: $f (to keep it fixed: tests/fuzz/regress/$name/)"
			# in the log too, for a CI machine that is gone: base64 -d recovers it
			[ "$(stat -c %s "$f")" -le 16384 ] && echo "    base64: $(base64 -w0 "$f")"
		done
	fi
done
echo "fuzz: $# harnesses in $(($(date +%s) - start)) s"
exit $bad

#!/usr/bin/env bash
# bench.sh — `make bench`: kiln against clang -O2 over every twin of the semantic corpus
# (tests/corpus/NAME.lisp with its C twin NAME.c, the big-* programs among them). Each round
# compiles every program with both compilers (whole process each, timed) and loads both
# objects (bench/measure.c), taking turns at going first; per program it records instructions
# as loaded, the kernel's xlated instructions and JITed bytes, the verifier's processed count
# and stack depth, and the run time per call under BPF_PROG_TEST_RUN (the kernel's time per
# run with repeat REPEAT, or up to 1,000,000 for a program under 1 us, so that a test-run
# takes 10 ms or more; averaged over 4 test-runs; raw tracepoints, which take no repeat: the
# wall time of REPEAT calls) on the program's first `;; twin-args: --input` or `--ctx`, or
# else an IPv4 TCP SYN. Prints per-program
# medians and, per metric, totals, the ratio of totals, the geometric mean and median of the
# kiln/clang ratios (below 1: kiln is smaller or faster) and the worst five; writes
# bench/results.json and bench/ratios.png (gnuplot). Asserts nothing.
# Usage: [ROUNDS=5] [REPEAT=10000] bash bench/bench.sh [NAME...]   (as root, after make)
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${ROUNDS:-5}
REPEAT=${REPEAT:-10000}
# shellcheck source=bench/clang.sh  # CLANG, its flags, kiln_compile/clang_compile, ns_of
. "$ROOT/bench/clang.sh"
OUT=$BUILD/bench/bench
RESULTS=${RESULTS:-$ROOT/bench/results.json}
PLOT=${PLOT:-$ROOT/bench/ratios.png}
# shellcheck source=bench/build.sh  # sets $bin, the measure binary
. "$ROOT/bench/build.sh"
bench_build measure
mkdir -p "$OUT"
if [ ! -x "$KILN" ]; then
	echo "bench: $KILN is missing (make)" >&2
	exit 1
fi

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for f in "$ROOT"/tests/corpus/*.lisp; do
		[ -f "${f%.lisp}.c" ] && names+=("$(basename "$f" .lisp)")
	done
fi

raw=$OUT/raw.txt
: >"$raw"
now_us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }   # bash's clock: no fork

compile() {       # side name: one timed whole-process compile, its ms in $ms; or fails
	local src=$ROOT/tests/corpus/$2
	case $1 in
	kiln) ns_of kiln_compile "$src.lisp" "$OUT/$2.kiln.o" || return 1 ;;
	clang) ns_of clang_compile "$src.c" "$OUT/$2.clang.o" || return 1 ;;
	floor) ns_of floor_process "$src.lisp" "$OUT/$2.floor.o" || return 1 ;;
	esac
	ms=$(printf '%d.%06d' $((ns / 1000000)) $((ns % 1000000)))
}

declare -A failed=()
start=$(now_us)
for ((r = 1; r <= ROUNDS; r++)); do
	for n in "${names[@]}"; do
		[ -n "${failed[$n]:-}" ] && continue
		if (( r % 2 )); then order=(kiln clang); else order=(clang kiln); fi
		# compiles, and the floor (the least a whole process costs here, timed the same way):
		# each of the three goes first, second and third in turn, as the first one after the
		# last program's loads runs slower than the others
		case $((r % 3)) in
		1) sides=(kiln clang floor) ;;
		2) sides=(clang floor kiln) ;;
		0) sides=(floor kiln clang) ;;
		esac
		for side in "${sides[@]}"; do
			if ! compile "$side" "$n"; then
				failed[$n]="$side does not compile it"
				continue 2
			fi
			echo "C $r $n $side $ms" >>"$raw"
		done
		args=$(sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' "$ROOT/tests/corpus/$n.lisp" | tr '\n' ' ')
		for side in "${order[@]}"; do
			# shellcheck disable=SC2086  # twin-args are words by design
			if ! rows=$("$bin" "$OUT/$n.$side.o" "$REPEAT" $args 2>/dev/null); then
				failed[$n]="the $side object does not load"
				continue 2
			fi
			sed "s/^PROG /P $r $n /; s/^\(P [0-9]* [^ ]* [^ ]*\)/\1 $side/" <<<"$rows" >>"$raw"
		done
	done
done
end=$(now_us)

mkdir -p "$(dirname "$RESULTS")"
dat=$OUT/ratios.dat
awk -v json="$RESULTS" -v dat="$dat" -v rounds="$ROUNDS" -v repeat="$REPEAT" -f "$ROOT/bench/summary.awk" "$raw"
for n in "${!failed[@]}"; do
	echo "left out: $n (${failed[$n]})"
done
echo "results: ${RESULTS#"$ROOT"/}; $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", (b - a) / 1e6 }') s of measuring"

if command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal pngcairo size 1800,700 noenhanced font ",9"
set output "$PLOT"
set title "kiln / clang -O2 per program (below 1: kiln smaller or faster)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -70 scale 0
set yrange [0:*]
set grid ytics
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb "black" dt 2
plot "$dat" using 2:xtic(1) title "instructions", '' using 3 title "verifier processed", '' using 4 title "run time"
GP
	echo "plot: ${PLOT#"$ROOT"/}"
else
	echo "plot: gnuplot is missing (make bench installs gnuplot-nox)"
fi

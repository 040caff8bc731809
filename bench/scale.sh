#!/usr/bin/env bash
# scale.sh — how kiln's compile time and memory grow with the size of the source: generated
# programs of growing size (map increments in one program, programs in one file, defuns,
# maps, structs), each compiled whole process under /usr/bin/time (wall seconds, peak RSS);
# then a typical program against clang -O2 on its C twin (tests/corpus: the median over the
# corpus of kiln/clang per file, the two interleaved, several rounds). Prints tables; asserts
# nothing. Usage: bash bench/scale.sh [ROUNDS]   (after `make kiln`)
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
ROUNDS=${1:-${ROUNDS:-5}}
# shellcheck source=bench/clang.sh
. "$ROOT/bench/clang.sh"
OUT=$BUILD/bench/scale
mkdir -p "$OUT"
if [ ! -x "$KILN" ]; then
	echo "bench/scale: $KILN is missing (make kiln)" >&2
	exit 1
fi
if [ ! -x /usr/bin/time ]; then
	echo "bench/scale: /usr/bin/time is missing (apt-get install time)" >&2
	exit 1
fi

# -- generators: each prints a source of size N on stdout -----------------------------------
gen_incs() {     # N map increments in one program
	echo '(defmap m :type :hash :key u32 :value u64 :max-entries 1024)'
	echo '(defprog p (:type :xdp)'
	for ((i = 0; i < $1; i++)); do echo "  (incf-map m $((i % 1000)))"; done
	echo '  XDP_PASS)'
}
gen_progs() {    # N programs in one file, each incrementing a counter
	echo '(defmap m :type :array :key u32 :value u64 :max-entries 1024)'
	for ((i = 0; i < $1; i++)); do
		echo "(defprog p$i (:type :xdp) (incf (getmap m $((i % 1024)))) XDP_PASS)"
	done
}
gen_sections() {  # N programs, each in a section of its own and calling a defun of its own
	echo '(defmap m :type :array :key u32 :value u64 :max-entries 1024)'
	for ((i = 0; i < $1; i++)); do
		echo "(defun f$i (x) (+ x $i))"
		echo "(defprog p$i (:type :xdp :section \"xdp/p$i\") (incf (getmap m (f$i $((i % 1024))))) XDP_PASS)"
	done
}
gen_defuns() {   # N defuns, one program calling each
	echo '(defmap m :type :array :key u32 :value u64 :max-entries 1)'
	for ((i = 0; i < $1; i++)); do echo "(defun f$i (x) (+ (* x 3) $i))"; done
	echo '(defprog p (:type :xdp) (let ((s 0))'
	for ((i = 0; i < $1; i++)); do echo "  (setf s (f$i s))"; done
	echo '  (setf (getmap m 0) s) XDP_PASS))'
}
gen_maps() {     # N maps, one program touching each
	for ((i = 0; i < $1; i++)); do
		echo "(defmap m$i :type :array :key u32 :value u64 :max-entries 4)"
	done
	echo '(defprog p (:type :xdp)'
	for ((i = 0; i < $1; i++)); do echo "  (incf (getmap m$i 0))"; done
	echo '  XDP_PASS)'
}
gen_structs() {  # N structs, each the value of a map one program writes
	for ((i = 0; i < $1; i++)); do
		echo "(defstruct rec$i (a u32) (b u64) (c (array u8 $((i % 16 + 1)))))"
		echo "(defmap m$i :type :array :key u32 :value rec$i :max-entries 1)"
	done
	echo '(defprog p (:type :xdp)'
	for ((i = 0; i < $1; i++)); do
		echo "  (let ((v (getmap m$i 0))) (when v (setf (rec$i-a v) $i)))"
	done
	echo '  XDP_PASS)'
}

# -- scaling table -----------------------------------------------------------------------------
printf '%-9s %7s %9s %10s %9s  %s\n' shape N wall-s maxrss-MB obj-KB status
measure() {      # SHAPE N
	local src=$OUT/$1-$2.lisp obj=$OUT/$1-$2.o tf=$OUT/time.txt
	"gen_$1" "$2" >"$src"
	local st=ok
	/usr/bin/time -o "$tf" -f '%e %M' "$KILN" compile "$src" -o "$obj" >/dev/null 2>"$OUT/err.txt" ||
		st="error: $(grep -m1 error: "$OUT/err.txt" | cut -c1-60)"
	read -r wall rss < <(tail -n 1 "$tf")
	[ "$st" = ok ] || rm -f "$obj"
	printf '%-9s %7s %9s %10s %9s  %s\n' "$1" "$2" "$wall" "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
		"$( [ -f "$obj" ] && awk -v b="$(stat -c %s "$obj")" 'BEGIN { printf "%.0f", b / 1024 }' || echo -)" "$st"
}
for n in 1000 5000 10000 20000; do measure incs "$n"; done
for n in 100 1000 2000; do measure progs "$n"; done
for n in 1000 5000; do measure sections "$n"; done
for n in 100 1000 5000; do measure defuns "$n"; done
for n in 100 1000 5000; do measure maps "$n"; done
for n in 100 1000 5000; do measure structs "$n"; done

# -- a typical program: whole process, kiln against clang ---------------------------------------
# the floor: starting a process that does nothing (clang.sh's floor_process), timed the same way
files=("$ROOT"/tests/corpus/*.lisp)
ratios=$OUT/ratios.txt
: >"$ratios"
for f in "${files[@]}"; do
	name=$(basename "$f" .lisp)
	kiln_compile "$f" "$OUT/$name.kiln.o" && clang_compile "${f%.lisp}.c" "$OUT/$name.clang.o" || continue
	kt=() ct=() tt=()
	for ((r = 0; r < ROUNDS; r++)); do   # interleaved, so load on the machine hits both alike
		ns_of floor_process "$f" "$OUT/$name.floor.o"
		tt+=("$ns")
		ns_of kiln_compile "$f" "$OUT/$name.kiln.o"
		kt+=("$ns")
		ns_of clang_compile "${f%.lisp}.c" "$OUT/$name.clang.o"
		ct+=("$ns")
	done
	k=$(printf '%s\n' "${kt[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")
	t=$(printf '%s\n' "${tt[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")
	c=$(printf '%s\n' "${ct[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p")
	echo "$name $k $c $t" >>"$ratios"
done
echo
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
n=$(wc -l <"$ratios")
if [ "$n" -eq 0 ]; then
	echo "no corpus file compiled"
	exit 0
fi
km=$(awk '{ print $2 }' "$ratios" | median)
cm=$(awk '{ print $3 }' "$ratios" | median)
rm=$(awk '{ print $2 / $3 }' "$ratios" | median)
tm=$(awk '{ print $4 }' "$ratios" | median)
echo "typical compile, whole process ($n corpus files, median of $ROUNDS interleaved rounds each):"
awk -v k="$km" -v c="$cm" -v r="$rm" -v t="$tm" 'BEGIN {
	printf "  kiln %.2f ms, clang -O2 %.2f ms (medians per file); median kiln/clang %.4f: kiln %.1fx faster\n",
		k / 1e6, c / 1e6, r, 1 / r
	printf "  the floor, /bin/true timed alike: %.2f ms; above it kiln %.2f ms, clang %.2f ms (%.1fx)\n",
		t / 1e6, (k - t) / 1e6, (c - t) / 1e6, (k > t) ? (c - t) / (k - t) : 0 }'

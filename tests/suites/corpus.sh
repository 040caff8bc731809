#!/usr/bin/env bash
# corpus.sh — the semantic corpus: every tests/corpus/NAME.lisp is compiled by kiln, its C
# twin NAME.c by clang, and build/tests/twin runs both in the kernel and compares them.
# Prints "PASS corpus/NAME" or "FAIL corpus/NAME: reason" (details indented below).
# Usage (from tests/run, or by hand): bash tests/suites/corpus.sh [NAME...]
# Environment: KILN (the compiler), BUILD (build dir), ROOT (repository root).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
TWIN=$BUILD/tests/twin
OUT=$BUILD/tests/corpus
mkdir -p "$OUT"
. "$ROOT/tests/harness/twin_obj.sh"

# twin needs root and bpf(), not bpffs: it pins nothing.
fails=0

fail() {           # name, first line, details...
	local name=$1 why=$2
	shift 2
	echo "FAIL corpus/$name: $why"
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed '/^$/d' | head -40 | sed 's/^/    /'
	fails=$((fails + 1))
}

# twin-args lines (";; twin-args: ..."), joined: hex inputs and flags, no quoting needed.
twin_args() {
	sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' "$1" | tr '\n' ' '
}

run_test() {
	local lisp=$1 name out rc
	name=$(basename "$lisp" .lisp)
	local c=${lisp%.lisp}.c kobj=$OUT/$name.kiln.o cobj=$OUT/$name.clang.o

	if [ ! -f "$c" ]; then
		fail "$name" "no C twin $c"
		return
	fi
	if ! out=$(twin_obj "$c" "$cobj"); then
		fail "$name" "the C twin does not build" "$out"
		return
	fi
	if [ ! -x "$KILN" ]; then
		fail "$name" "no compiler at $KILN (make kiln)"
		return
	fi
	rm -f "$kobj"
	out=$(timeout 60 "$KILN" compile "$lisp" -o "$kobj" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$kobj" ]; then
		fail "$name" "kiln compile failed (status $rc): $(printf '%s\n' "$out" | head -1)" \
			"$(printf '%s\n' "$out" | tail -n +2)"
		return
	fi
	if [ ! -x "$TWIN" ]; then
		fail "$name" "no harness at $TWIN (make test-bins)"
		return
	fi
	# shellcheck disable=SC2046  # twin-args are whitespace-separated words by design
	out=$(timeout 300 "$TWIN" "$kobj" "$cobj" $(twin_args "$lisp") 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS corpus/$name"
	else
		fail "$name" "$(printf '%s\n' "$out" | head -1)" "$(printf '%s\n' "$out" | tail -n +2)"
	fi
	# the same semantics with the optimizer's passes off
	local k0=$OUT/$name.kiln-O0.o
	if ! out=$(timeout 60 "$KILN" compile -O0 "$lisp" -o "$k0" 2>&1); then
		fail "$name-O0" "kiln compile -O0 failed: $(printf '%s\n' "$out" | head -1)"
	# shellcheck disable=SC2046
	elif out=$(timeout 300 "$TWIN" "$k0" "$cobj" $(twin_args "$lisp") 2>&1); then
		echo "PASS corpus/$name-O0"
	else
		fail "$name-O0" "$(printf '%s\n' "$out" | head -1)" "$(printf '%s\n' "$out" | tail -n +2)"
	fi
}

if [ $# -gt 0 ]; then
	files=()
	for n in "$@"; do
		n=$(basename "$n" .lisp)
		files+=("$ROOT/tests/corpus/$n.lisp")
	done
else
	files=("$ROOT"/tests/corpus/*.lisp)
fi
for f in "${files[@]}"; do
	if [ ! -f "$f" ]; then
		fail "$(basename "$f" .lisp)" "no such corpus program $f"
		continue
	fi
	run_test "$f"
done
[ "$fails" -eq 0 ]

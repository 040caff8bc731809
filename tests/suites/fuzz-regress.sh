#!/usr/bin/env bash
# fuzz-regress.sh — every input a fuzz harness ever crashed on stays harmless: each
# tests/fuzz/regress/NAME/ file goes through harness NAME's entry point, built without
# libFuzzer as $BUILD/tests/fuzz/fuzz_NAME (tests/fuzz/replay.c is its main; in an ASan build
# it runs under the sanitizers). One line per harness, "PASS fuzz-regress/NAME (N inputs)";
# a crash, a non-zero exit or fewer inputs run than there are files is a FAIL naming the
# input. The compiler's harness also runs over the examples and the bad-input programs.
set -u
cd "${ROOT:-$(dirname "$0")/../..}"
BUILD=${BUILD:-$PWD/build}
tmo=(); command -v timeout >/dev/null && tmo=(timeout 300)

for src in tests/fuzz/fuzz_*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c); name=${name#fuzz_}
	bin=$BUILD/tests/fuzz/fuzz_$name
	inputs=()
	for f in tests/fuzz/regress/"$name"/*; do
		[ -f "$f" ] && inputs+=("$f")
	done
	if [ "$name" = compiler ]; then
		for f in examples/*.lisp tests/errors/*.lisp; do
			[ -f "$f" ] && inputs+=("$f")
		done
	fi
	[ ${#inputs[@]} -gt 0 ] || continue
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz-regress/$name: no replay build $bin (make test-bins)"
		continue
	fi
	out=$(FUZZ_REPLAY_VERBOSE=1 "${tmo[@]}" "$bin" "${inputs[@]}" 2>&1 >/dev/null; echo "rc=$?")
	rc=${out##*rc=}
	ran=$(printf '%s\n' "$out" | grep -c '^running ')
	if [ "$rc" -ne 0 ]; then
		last=$(printf '%s\n' "$out" | sed -n 's/^running \(.*\) ([0-9]* bytes)$/\1/p' | tail -1)
		what="exit status $rc"
		[ "$rc" -eq 124 ] && what="timeout"
		[ "$rc" -ge 128 ] && [ "$rc" -ne 124 ] && what="crash (signal $((rc - 128)))"
		echo "FAIL fuzz-regress/$name: $what on ${last:-?}"
		printf '%s\n' "$out" | grep -v '^running ' | grep -v '^rc=' | tail -15 | sed 's/^/    /'
	elif [ "$ran" -ne ${#inputs[@]} ]; then
		echo "FAIL fuzz-regress/$name: ran $ran of ${#inputs[@]} inputs"
	else
		echo "PASS fuzz-regress/$name (${#inputs[@]} inputs)"
	fi
done
exit 0

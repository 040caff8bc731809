#!/usr/bin/env bash
# tests/valgrind.sh — `make test-valgrind`: `kiln compile` under valgrind's memcheck over
# every .lisp in examples/, tests/corpus/, tests/errors/ (bad input: kiln must fail cleanly),
# tests/whistler/ and tests/core/ (kernel types, read from the kernel's BTF). Any memcheck
# error (invalid read or write, use of an uninitialised value, a bad free) or a definitely or
# indirectly lost block fails the file. Two files at a
# time (the machine's cores). Prints "PASS valgrind/NAME" or "FAIL valgrind/NAME: why" and
# ends with "N passed, N failed"; exits non-zero on any failure.
# Environment: KILN (default ./kiln), BUILD (default build/, for the logs and objects).
set -u
cd "$(dirname "$0")/.."
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/valgrind"
rm -rf "$out" && mkdir -p "$out"
if ! command -v valgrind >/dev/null; then
	echo "FAIL valgrind/setup: valgrind is not installed (apt-get install valgrind)"
	exit 1
fi

one() {   # FILE: the verdict line for it
	local src=$1 name rc
	name=$(echo "${src%.lisp}" | tr / -)
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --track-origins=yes --log-file="$out/$name.log" \
		"$KILN" compile "$src" -o "$out/$name.o" >/dev/null 2>"$out/$name.err"
	rc=$?
	if [ $rc -eq 99 ]; then
		echo "FAIL valgrind/$name: $(grep -m1 -E '^==[0-9]+== [A-Z]' "$out/$name.log" | sed 's/^==[0-9]*== //') (log: $out/$name.log)"
	elif [ $rc -gt 1 ]; then
		echo "FAIL valgrind/$name: kiln exited with status $rc: $(head -1 "$out/$name.err")"
	elif [ $rc -eq 1 ] && [[ $src != tests/errors/* ]]; then
		echo "FAIL valgrind/$name: does not compile: $(head -1 "$out/$name.err")"
	elif [ $rc -eq 0 ] && [[ $src == tests/errors/* ]]; then
		echo "FAIL valgrind/$name: compiled, but it is bad input"
	else
		echo "PASS valgrind/$name"
	fi
}
export -f one
export KILN out

log=$(printf '%s\n' examples/*.lisp tests/corpus/*.lisp tests/errors/*.lisp tests/whistler/*.lisp tests/core/*.lisp |
	xargs -P 2 -I{} bash -c 'one "$1"' _ {})
printf '%s\n' "$log"
pass=$(grep -c '^PASS ' <<<"$log")
fail=$(grep -c '^FAIL ' <<<"$log")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]

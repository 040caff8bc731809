#!/usr/bin/env bash
# warnings.sh — compile-time warnings: every tests/warnings/NAME.lisp lists on its first lines
# the warnings kiln must print, in order (`;; expect: FILE:LINE:COL: warning: ...`), or
# `;; expect: no warnings`. Each warning is followed by the source line and a caret under the
# column, as errors are; the compile still succeeds (status 0, an object written); -w and
# --no-warnings silence them; `kiln check` (which compiles in memory through libkiln) prints
# the same ones. The examples compile without any warning.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/warnings"
mkdir -p "$out"
tmo=(); command -v timeout >/dev/null && tmo=(timeout 20)

pass() { echo "PASS warnings/$1"; }
fail() { echo "FAIL warnings/$1: $2"; }

# Every "warning:" line of err is followed by its source line and a caret under its column.
carets_ok() {   # stderr, file
	local err=$1 file=$2 w loc line col src pad
	while IFS= read -r w; do
		loc=${w#"$file":}; line=${loc%%:*}; loc=${loc#*:}; col=${loc%%:*}
		src=$(sed -n "${line}p" "$file")
		pad=${src:0:$((col - 1))}
		pad=${pad//[^$'\t']/ }
		[ "$(grep -A2 -xF -- "$w" <<<"$err" | sed -n 2p)" == "  $src" ] || return 1
		[ "$(grep -A2 -xF -- "$w" <<<"$err" | sed -n 3p)" == "  $pad^" ] || return 1
	done < <(grep ': warning: ' <<<"$err")
}

for src in tests/warnings/*.lisp; do
	name=$(basename "$src" .lisp)
	want=$(sed -n 's/^;; expect: //p' "$src")
	[ "$want" = "no warnings" ] && want=""
	obj="$out/$name.o"
	rm -f "$obj"
	err=$("${tmo[@]}" "$KILN" compile "$src" -o "$obj" 2>&1 >/dev/null); rc=$?
	got=$(grep ': warning: ' <<<"$err")
	if [ $rc -ne 0 ] || [ ! -s "$obj" ]; then
		fail "$name" "expected the compile to succeed with an object, got status $rc: $(head -3 <<<"$err" | tr '\n' '|')"
	elif [ "$got" != "$want" ]; then
		fail "$name" "expected warnings '$want' got '$got'"
	elif [ -z "$want" ] && [ -n "$err" ]; then
		fail "$name" "expected nothing on stderr, got '$(head -3 <<<"$err" | tr '\n' '|')'"
	elif ! carets_ok "$err" "$src"; then
		fail "$name" "expected each warning's source line and a caret under its column, got '$(tr '\n' '|' <<<"$err")'"
	else
		pass "$name"
	fi
	for flag in -w --no-warnings; do
		err=$("${tmo[@]}" "$KILN" compile "$src" -o "$obj" "$flag" 2>&1 >/dev/null); rc=$?
		if [ $rc -eq 0 ] && [ -z "$err" ]; then pass "$name$flag"
		else fail "$name$flag" "expected status 0 and no output, got $rc '$(head -2 <<<"$err" | tr '\n' '|')'"; fi
	done
	rm -f "$obj"
done

# through libkiln: `kiln check` compiles in memory and prints the same warnings; -w silences
src=tests/warnings/unused-map.lisp
want=$(sed -n 's/^;; expect: //p' "$src")
err=$("${tmo[@]}" "$KILN" check "$src" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && [ "$(grep ': warning: ' <<<"$err")" == "$want" ] && carets_ok "$err" "$src"; then
	pass check-prints-warnings
else
	fail check-prints-warnings "status $rc, stderr '$(tr '\n' '|' <<<"$err")'"
fi
err=$("${tmo[@]}" "$KILN" check -w "$src" 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && [ -z "$err" ]; then pass check-w
else fail check-w "status $rc, stderr '$(tr '\n' '|' <<<"$err")'"; fi

# the examples and the verifier's test programs warn about nothing
for src in examples/*.lisp tests/verifier/*.lisp; do
	err=$("${tmo[@]}" "$KILN" compile "$src" -o "$out/clean.o" 2>&1 >/dev/null)
	if grep -q ': warning: ' <<<"$err"; then
		fail "clean-$(basename "$src" .lisp)" "$(grep ': warning: ' <<<"$err" | head -3 | tr '\n' '|')"
	else
		pass "clean-$(basename "$src" .lisp)"
	fi
done
rm -f "$out/clean.o"

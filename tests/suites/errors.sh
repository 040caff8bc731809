#!/usr/bin/env bash
# errors.sh — bad input gets a clear error, never a crash: every tests/errors/NAME.lisp says
# on its first line the exact first line kiln must print (`;; expect: FILE:LINE:COL: error:
# ...`); kiln must exit 1, show the source line and a caret, and leave no object behind.
# Then the command line's usage errors.
set -u
cd "$ROOT"
out="$BUILD/tests/errors"
mkdir -p "$out"
for src in tests/errors/*.lisp; do
	name=$(basename "$src" .lisp)
	want=$(sed -n '1s/^;; expect: //p' "$src")
	obj="$out/$name.o"
	rm -f "$obj"
	err=$("$KILN" compile "$src" -o "$obj" 2>&1 >/dev/null); rc=$?
	got=$(head -1 <<<"$err")
	if [ $rc -ne 1 ]; then
		echo "FAIL errors/$name: exit status $rc, expected 1 ($got)"
	elif [ "$got" != "$want" ]; then
		echo "FAIL errors/$name: expected '$want' got '$got'"
	elif [ -n "$(sed -n 2p <<<"$err")" ] && ! sed -n 3p <<<"$err" | grep -q '^ *\^$'; then
		echo "FAIL errors/$name: no caret line under the source line"
	elif [ -e "$obj" ]; then
		echo "FAIL errors/$name: an object was written despite the error"
	else
		echo "PASS errors/$name"
	fi
done

check_cli() {   # name, expected status, pattern of stderr+stdout, command...
	local name=$1 want=$2 pat=$3; shift 3
	local o rc
	o=$("$@" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pat" <<<"$o"; then
		echo "PASS errors/cli-$name"
	else
		echo "FAIL errors/cli-$name: status $rc (want $want), output: $(head -2 <<<"$o" | tr '\n' ' ')"
	fi
}
check_cli no-args 2 "usage: kiln" "$KILN"
check_cli help 0 "commands:" "$KILN" --help
check_cli help-compile 0 "usage: kiln compile" "$KILN" help compile
check_cli unknown-command 2 "unknown command 'frob'" "$KILN" frob
check_cli compile-no-file 2 "usage: kiln compile" "$KILN" compile
check_cli compile-bad-option 2 "unknown option '--fast'" "$KILN" compile --fast x.lisp
check_cli compile-missing-file 1 "kiln: cannot read /nonexistent.lisp: No such file or directory" "$KILN" compile /nonexistent.lisp
check_cli compile-two-files 2 "one source file at a time" "$KILN" compile a.lisp b.lisp
check_cli test-run-bad-hex 2 "not hex bytes" "$KILN" test-run examples/xdp-count.lisp --data zz

#!/usr/bin/env bash
# errors.sh — bad input gets a clear error, never a crash: every tests/errors/NAME.lisp says
# on its first line the exact first line kiln must print (`;; expect: FILE:LINE:COL: error:
# ...`); kiln must exit 1, show the source line and a caret under the column, and leave no
# object behind. Then the command line's usage errors (status 2) and file errors (status 1).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/errors"
mkdir -p "$out"
tmo=(); command -v timeout >/dev/null && tmo=(timeout 10)

# The two lines kiln prints under the message: the source line indented by two spaces, then
# a caret under the column (tabs in the line are kept so the caret lines up).
caret_ok() {   # stderr, file, line, col
	local err=$1 file=$2 line=$3 col=$4 src pad
	src=$(sed -n "${line}p" "$file")
	[ -z "$src" ] && return 0          # an empty line gets no excerpt
	[ "$(sed -n 2p <<<"$err")" == "  $src" ] || return 1
	pad=${src:0:$((col - 1))}
	pad=${pad//[^$'\t']/ }
	[ "$(sed -n 3p <<<"$err")" == "  $pad^" ]
}

for src in tests/errors/*.lisp; do
	name=$(basename "$src" .lisp)
	want=$(sed -n '1s/^;; expect: //p' "$src")
	obj="$out/$name.o"
	rm -f "$obj"
	if [ -z "$want" ]; then
		echo "FAIL errors/$name: the first line is not ';; expect: FILE:LINE:COL: error: MESSAGE'"
		continue
	fi
	err=$("${tmo[@]}" "$KILN" compile "$src" -o "$obj" 2>&1 >/dev/null); rc=$?
	got=$(head -1 <<<"$err")
	loc=${want#"$src":}; line=${loc%%:*}; loc=${loc#*:}; col=${loc%%:*}
	if [ $rc -ge 124 ]; then
		what="crashed (status $rc)"; [ $rc -eq 124 ] && what="timed out"
		echo "FAIL errors/$name: kiln $what; expected '$want' got '$got'"
	elif [ $rc -ne 1 ]; then
		echo "FAIL errors/$name: expected exit status 1 and '$want' got status $rc and '$got'"
	elif [ "$got" != "$want" ]; then
		echo "FAIL errors/$name: expected '$want' got '$got'"
	elif ! caret_ok "$err" "$src" "$line" "$col"; then
		echo "FAIL errors/$name: expected the source line $line and a caret under column $col, got '$(sed -n 2,3p <<<"$err" | tr '\n' '|')'"
	elif [ -e "$obj" ]; then
		echo "FAIL errors/$name: expected no object after an error, got $obj"
	else
		echo "PASS errors/$name"
	fi
	rm -f "$obj"
done

check_cli() {   # name, expected status, text expected in stdout+stderr, command...
	local name=$1 want=$2 text=$3; shift 3
	local o rc
	o=$("${tmo[@]}" "$@" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$o"; then
		echo "PASS errors/cli-$name"
	else
		echo "FAIL errors/cli-$name: expected status $want and '$text' got status $rc and '$(head -2 <<<"$o" | tr '\n' ' ')'"
	fi
}
check_cli no-args 2 "usage: kiln" "$KILN"
check_cli help 0 "commands:" "$KILN" --help
check_cli help-compile 0 "usage: kiln compile" "$KILN" help compile
check_cli compile-help 0 "usage: kiln compile" "$KILN" compile --help
check_cli unknown-command 2 "unknown command 'nosuchcmd'" "$KILN" nosuchcmd
check_cli compile-no-file 2 "usage: kiln compile" "$KILN" compile
check_cli compile-bad-option 2 "unknown option '--fast'" "$KILN" compile --fast examples/xdp-count.lisp
check_cli compile-o-no-name 2 "-o needs a file name" "$KILN" compile examples/xdp-count.lisp -o
check_cli compile-two-files 2 "one source file at a time" "$KILN" compile a.lisp b.lisp
check_cli compile-missing-file 1 "kiln: cannot read tests/errors/no-such-file.lisp: No such file or directory" \
	"$KILN" compile tests/errors/no-such-file.lisp -o "$out/no-such-file.o"
check_cli compile-directory 1 "kiln: cannot read tests/errors: Is a directory" \
	"$KILN" compile tests/errors -o "$out/dir.o"
check_cli compile-unwritable 1 "kiln: error: cannot write $out/no-such-dir/x.o: No such file or directory" \
	"$KILN" compile examples/xdp-count.lisp -o "$out/no-such-dir/x.o"
check_cli test-run-bad-hex 2 "not hex bytes" "$KILN" test-run examples/xdp-count.lisp --data zz
if [ -e "$out/no-such-file.o" ] || [ -e "$out/dir.o" ]; then
	echo "FAIL errors/cli-no-object: expected no object after a read error, got $(ls "$out"/no-such-file.o "$out"/dir.o 2>/dev/null)"
else
	echo "PASS errors/cli-no-object"
fi

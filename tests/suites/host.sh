#!/usr/bin/env bash
# host.sh — kiln's host side (src/host/), form by form: each tests/host/NAME.lisp runs under
# `kiln run` and must print exactly tests/host/NAME.expected (its standard output, then
# "--- stderr" and its standard error, then "--- exit STATUS"): format's directives, loop's
# clauses, list and string functions, handler-case and friends, a session's map access, and
# errors as file:line:col with the line and a caret. The interrupt-* files wait for Ctrl-C:
# uncaught it ends kiln with status 130 (a session's links are gone after it), caught by
# handler-case the first one is handled and a second one ends kiln at once. Then 300 seeded
# mutations of the files (tests/host/mutate.py) must each end with status 0 or 1: no crash.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=host
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
tmp=$(mktemp -d)
trap '[ -n "${k:-}" ] && kill -KILL $k 2>/dev/null; rm -rf "$tmp"' EXIT

for f in tests/host/*.lisp; do
	name=$(basename "$f" .lisp)
	case $name in interrupt-*) continue ;; esac
	"$KILN" run "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; echo "--- exit $rc")
	if [ "$got" == "$(cat "tests/host/$name.expected")" ]; then pass "$name"
	else fail "$name" "$(diff <(echo "$got") "tests/host/$name.expected" | head -10 | tr '\n' ' ')"; fi
done

# uncaught: status 130, the error at the form that was running
"$KILN" run tests/host/interrupt-uncaught.lisp >"$tmp/out" 2>"$tmp/err" &
k=$!
if wait_text "$tmp/out" waiting; then
	kill -INT $k
	ended
	check interrupt-uncaught/status 130 "$st"
	check interrupt-uncaught/message "tests/host/interrupt-uncaught.lisp:3:7: error: Interactive interrupt (Ctrl-C)" \
		"$(head -1 "$tmp/err")"
else
	fail interrupt-uncaught "no 'waiting': $(cat "$tmp/err")"
fi

# caught once, then a second Ctrl-C ends kiln in the handler's own loop
"$KILN" run tests/host/interrupt-twice.lisp >"$tmp/out" 2>"$tmp/err" &
k=$!
if wait_text "$tmp/out" waiting; then
	kill -INT $k
	if wait_text "$tmp/out" caught; then
		pass interrupt-twice/caught
		kill -INT $k
		ended
		check interrupt-twice/second-ends 130 "$st"
	else
		fail interrupt-twice/caught "$(cat "$tmp/out" "$tmp/err")"
	fi
else
	fail interrupt-twice "no 'waiting': $(cat "$tmp/err")"
fi

# uncaught inside a session: its link and program are gone with it
"$KILN" run tests/host/interrupt-session.lisp >"$tmp/out" 2>"$tmp/err" &
k=$!
if wait_text "$tmp/out" attached; then
	links=$(fd_ids $k link) progs=$(fd_ids $k prog)
	kill -INT $k
	ended
	check interrupt-session/status 130 "$st"
	if [ -n "$links" ] && [ -n "$progs" ] && gone link $links && gone prog $progs; then pass interrupt-session/detached
	else fail interrupt-session/detached "links '$links' programs '$progs' after the session"; fi
else
	fail interrupt-session "no 'attached': $(cat "$tmp/err")"
fi
k=

# never a crash: 300 seeded mutations of the files above end with status 0 or 1
python3 tests/host/mutate.py "$KILN" 300 "${HOST_MUTATE_SEED:-18}"

#!/usr/bin/env bash
# host.sh — kiln's host side (src/host/), form by form: each tests/host/NAME.lisp runs under
# `kiln run` and must print exactly tests/host/NAME.expected (its standard output, then
# "--- stderr" and its standard error, then "--- exit STATUS"): format's directives, loop's
# clauses, list and string functions, handler-case and friends, a session's map access, host
# numbers (floats, and integers past 64 bits as errors; numbers.lisp's output also against
# SBCL's when sbcl is installed), and errors as file:line:col with the line and a caret. The interrupt-* files wait for Ctrl-C:
# uncaught it ends kiln with status 130 (a session's links are gone after it), caught by
# handler-case the first one is handled and a second one ends kiln at once; a loop whose turns
# evaluate nothing ((loop), (dotimes (i 1000000000000) nil)) ends within 1 s of the first. The
# limits: a depth or size passed is an error with status 1 (never a signal), a circular list
# prints a bounded line (tests/host/limits.lisp has the errors themselves). Then 300 seeded
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

# numbers.lisp prints what SBCL prints: a float's digits, contagion, format's ~F ~$ ~E
if command -v sbcl >/dev/null; then
	if diff <(sbcl --script tests/host/numbers.lisp 2>&1) <("$KILN" run tests/host/numbers.lisp 2>&1) >"$tmp/d"
	then pass numbers/as-sbcl
	else fail numbers/as-sbcl "$(head -10 "$tmp/d" | tr '\n' ' ')"; fi
else
	echo "SKIP $SUITE/numbers/as-sbcl: sbcl is not installed"
fi

# (sleep 0.25) sleeps a quarter of a second: not an error, not at once, not a whole second
printf '(sleep 0.25)\n' >"$tmp/sleepf.lisp"
t0=$(date +%s%N)
"$KILN" run "$tmp/sleepf.lisp" >"$tmp/out" 2>"$tmp/err"
rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $rc -eq 0 ] && [ $ms -ge 250 ] && [ $ms -lt 1000 ]; then pass "sleep-float (${ms} ms)"
else fail sleep-float "status $rc after ${ms} ms: $(head -c 200 "$tmp/err")"; fi

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

# a decoding ring consumer polled until Ctrl-C (handler-case): an exec of ours is decoded
"$KILN" run tests/host/interrupt-ring.lisp >"$tmp/out" 2>"$tmp/err" &
k=$!
if wait_text "$tmp/out" waiting; then
	pid=$(sh -c 'echo $$; exec true')
	if wait_text "$tmp/out" "exec pid=$pid"; then pass interrupt-ring/decoded
	else fail interrupt-ring/decoded "no 'exec pid=$pid': $(head -c 300 "$tmp/out")"; fi
	kill -INT $k
	ended
	check interrupt-ring/status-and-last "0 stopped" "$st $(tail -1 "$tmp/out")"
else
	fail interrupt-ring "no 'waiting': $(cat "$tmp/err")"
fi
k=

# limits (issue 28): an uncaught one ends kiln with status 1 and the error, never a signal
printf '(let ((f 1))\n  (dotimes (i 200000) (setf f (list (quote progn) f)))\n  (eval f))\n' >"$tmp/deep.lisp"
"$KILN" run "$tmp/deep.lisp" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "deep.lisp:3:3: error: stack overflow: forms and calls nested" "$tmp/err"; then pass limits/deep-progn-status
else fail limits/deep-progn-status "status $rc: $(head -c 300 "$tmp/err")"; fi
printf '(let () (make-array 100000000000))\n' >"$tmp/big.lisp"
"$KILN" run "$tmp/big.lisp" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "error: make-array: 100000000000 elements" "$tmp/err"; then pass limits/make-array-status
else fail limits/make-array-status "status $rc: $(head -c 300 "$tmp/err")"; fi
# a circular list printed by print at the top: a bounded line, status 0
printf '(let ((l (list 1 2 3)))\n  (setf (cdr (cdr (cdr l))) l)\n  (print l))\n' >"$tmp/circ.lisp"
"$KILN" run "$tmp/circ.lisp" >"$tmp/out" 2>"$tmp/err" &
k=$!
if ended; then
	check limits/print-circular "0 (1 2 3 1 2 ...) " "$st $(tr -d '\n' <"$tmp/out")"
else
	fail limits/print-circular "still printing after 5 s ($(stat -c %s "$tmp/out") bytes)"
	kill -KILL $k; wait $k 2>/dev/null
fi

# the first Ctrl-C ends a loop that evaluates nothing (each turn checks it) within 1 s
interrupt_loop() {   # NAME FORM
	printf '(format t "waiting~%%")\n(finish-output)\n%s\n' "$2" >"$tmp/$1.lisp"
	"$KILN" run "$tmp/$1.lisp" >"$tmp/out" 2>"$tmp/err" &
	k=$!
	if ! wait_text "$tmp/out" waiting; then
		fail "interrupt-$1" "no 'waiting': $(cat "$tmp/err")"
		return
	fi
	local t0 ms
	t0=$(date +%s%N)
	kill -INT $k
	st=running
	while :; do               # a deadline of 1 s from the signal
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		kill -0 $k 2>/dev/null || { wait $k; st=$?; break; }
		[ $ms -lt 1000 ] || break
		sleep 0.01
	done
	if [ "$st" = 130 ] && grep -q "$1.lisp:3:1: error: Interactive interrupt" "$tmp/err"; then
		pass "interrupt-$1 (${ms} ms)"
	else
		fail "interrupt-$1" "status $st after ${ms} ms: $(head -c 200 "$tmp/err")"
		kill -KILL $k 2>/dev/null; wait $k 2>/dev/null
	fi
}
interrupt_loop loop '(loop)'
interrupt_loop dotimes '(dotimes (i 1000000000000) nil)'
interrupt_loop loop-for '(loop for i from 0)'
k=

# never a crash: 300 seeded mutations of the files above end with status 0 or 1
python3 tests/host/mutate.py "$KILN" 300 "${HOST_MUTATE_SEED:-18}"

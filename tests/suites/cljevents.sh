#!/usr/bin/env bash
# cljevents.sh — clj-ebpf's event API (seed 002) end to end:
# - tests/events/clj-events.lisp makes its event with make-event-def in eval-when; `kiln run
#   --json` (its host side running the eval-when) loads it, and a getppid() of ours sends one
#   event, decoded by its BTF with the layout clj-ebpf gives it; the sizes and offsets the
#   program stored (event-* unquoted and quoted, in code, macros and defconstants, one of the
#   made event's after the eval-when: compiled in place) are checked;
# - tests/events/clj-events-macro.lisp makes its event in a macro called at the top level;
# - tests/events/host-events.lisp: the same functions on the host side of a session file, and
#   make-event-def of specs computed there.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=cljevents
. tests/harness/report.sh
. tests/harness/run.sh
getppid="$BUILD/tests/getppid"
out=$(mktemp -d)
k=
trap '[ -n "$k" ] && kill $k 2>/dev/null; rm -rf "$out"' EXIT

# run_trigger NAME SRC: kiln run SRC --json for 1.5 s, one getppid() of ours while it runs; its
# pid in $gp, the output in $out/NAME.json
run_trigger() {
	if ! start_run "$out/$1.json" "$out/$1.err" "$2" --duration 1.5 --json; then
		fail "$1" "kiln run did not start: $(head -3 "$out/$1.err" | tr '\n' ' ')"; return 1
	fi
	"$getppid" 1 >/dev/null & gp=$!
	wait $gp; wait $k; k=
}

# ---- make-event-def in eval-when, the event decoded by kiln run --json ------------------------
if run_trigger eval-when tests/events/clj-events.lisp; then
	o=$(cat "$out/eval-when.json")
	# (seq counts every process's getppid: others may call it too)
	ev=$(grep "^{\"event\":\"ppid_call\",\"pid\":$gp," <<<"$o" | sed 's/"seq":[1-9][0-9]*,/"seq":N,/')
	check eval-when-event "{\"event\":\"ppid_call\",\"pid\":$gp,\"seq\":N,\"layout\":1201,\"comm\":\"getppid\"}" "$ev"
	# event-size 30, offset of :comm 14, size of :seq 8 (ppid-call, in code); tally's offset
	# of :flags 8 and size of :calls 4 (defconstants), its event-size 9 (quoted)
	facts=$(grep -o '^{"map":"facts","key":[0-5],"value":[0-9]*' <<<"$o" | sed 's/.*"value"://' | tr '\n' ' ')
	check eval-when-layout "30 14 8 8 4 9 " "$facts"
fi

# ---- make-event-def in a macro at the top level ---------------------------------------------
if run_trigger macro tests/events/clj-events-macro.lisp; then
	ev=$(grep -c "^{\"event\":\"getppid_seen\",\"pid\":$gp,\"kind\":7,\"mark\":7,\"seq\":[0-9]*,\"size\":16}$" "$out/macro.json")
	check macro-event 1 "$ev"
fi

# ---- the host side: the same functions in a session file -------------------------------------
o=$(timeout 20 "$KILN" run tests/events/host-events.lisp --duration 0.1 2>"$out/host.err")
check host-forms "conn 30 (:TS :PID :SPORT :COMM) :CHAR 12 16
pkt 10 6 (:U16 :U8 :U8 :U32) 3
error: pkt has no field :NOPE
computed 4 2" "$(head -4 <<<"$o")"

# ---- kiln compile (no host side): the same program compiles and the verifier accepts it -----
if "$KILN" compile tests/events/clj-events.lisp -o "$out/ce.o" 2>"$out/ce.err" &&
   "$KILN" check "$out/ce.o" >"$out/check" 2>&1 && grep -q 'on_getppid *accepted' "$out/check"; then
	pass compile-check
else fail compile-check "$(head -3 "$out/ce.err" "$out/check" | tr '\n' ' ')"; fi

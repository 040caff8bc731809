#!/usr/bin/env bash
# whistler.sh — acceptance on Whistler's own examples: each of the twelve BPF-only programs
# of its examples/ folder (runqlat's eval-when included) compiles unchanged with `kiln compile`, and `bpftool prog loadall`
# loads every program of it. Whistler's files are not part of kiln; they are read from a
# checkout (a peer, tests/harness/peers.sh), and without one the suite says SKIP.
# bench/whistler.sh does the work and prints the instruction counts. Before that, kiln's own
# programs in tests/whistler/ load.
set -u
# kiln's own programs in Whistler's dialect: the tracing forms, loaded into the kernel
mkdir -p "$BUILD/tests/whistler"
for f in "$ROOT"/tests/whistler/*.lisp; do
	name=$(basename "$f" .lisp)
	obj="$BUILD/tests/whistler/$name.o"
	if ! err=$("$KILN" compile "$f" -o "$obj" 2>&1); then
		echo "FAIL whistler/$name: $err"
	elif ! err=$("$BUILD/tests/loadobj" "$obj" 2>&1); then
		echo "FAIL whistler/$name: $(tail -3 <<<"$err" | tr '\n' ' ')"
	else
		echo "PASS whistler/$name ($(grep -c insns <<<"$err") programs loaded)"
	fi
done

# a real event: the shell's kill(own pid, 0), seen through deftracepoint's fields and
# fill-process-info (pid, uid, comm "sh")
obj="$BUILD/tests/whistler/trigger-kill.o"
if out=$("$BUILD/tests/trigger" "$obj" seen sh -c 'kill -0 $$' 2>&1); then
	child=$(awk '$1 == "child" { print $2 }' <<<"$out")
	got=$(awk '$1 ~ /^seen/ { printf "%s ", $2 }' <<<"$out")
	want="$child $child $(id -u) $((0x6873)) 1 "
	if [ "$got" = "$want" ]; then
		echo "PASS whistler/trigger-kill-event (tracepoint fields and process info of pid $child)"
	else
		echo "FAIL whistler/trigger-kill-event: seen '$got', expected '$want'"
	fi
else
	echo "FAIL whistler/trigger-kill-event: $(tail -3 <<<"$out" | tr '\n' ' ')"
fi

# eval-when at the top level: kiln compile ran its body (probe-file, handler-case around a
# failing eval) and the program returns the branch it chose; kiln check takes it as well
if out=$("$KILN" test-run "$ROOT/tests/whistler/eval-when.lisp" 2>&1) && grep -q 'retval 43 ' <<<"$out" &&
	chk=$("$KILN" check "$ROOT/tests/whistler/eval-when.lisp" 2>&1) && grep -q 'eval_when_choice *accepted' <<<"$chk"; then
	echo "PASS whistler/eval-when-choice (retval 43: tracefs found, the missing tracepoint fell back; kiln check accepted)"
else
	echo "FAIL whistler/eval-when-choice: expected retval 43 and accepted, got '$(tr '\n' ' ' <<<"$out ${chk:-}" | head -c 300)'"
fi

. "$ROOT/tests/harness/peers.sh"
out=$(bash "$ROOT/bench/whistler.sh" "$WHISTLER_DIR" 2>&1); rc=$?
if [ $rc -eq 2 ]; then
	peer_skip whistler/examples "no Whistler checkout at $WHISTLER_DIR"
	exit 0
fi
n=0
while read -r ex insns published load; do
	case $ex in example|total) continue ;; esac
	n=$((n + 1))
	if [[ $load == ok* ]]; then
		echo "PASS whistler/$ex ($insns instructions, $load)"
	else
		echo "FAIL whistler/$ex: $load"
	fi
done <<<"$out"
[ $n -eq 12 ] || echo "FAIL whistler/examples: expected 12 examples, saw $n"

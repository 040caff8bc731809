#!/usr/bin/env bash
# passes.sh — every optimizer pass switched off by name, on a twin program whose code it
# changes: the object with -fno-PASS differs from the -O2 one (so the switch works and the
# pass does something there) and still computes what clang's twin computes in the kernel
# (so no later pass depended on it for correctness). The passes are read from `kiln compile
# --help`, which prints opt.c's table: a pass with no program below fails. --print-after
# prints the IR after the pass. unreachable is not an optimisation: without it the kernel
# refuses the program, and that is what is checked for it; bpf-loop likewise (its program's
# loops, as loops, are more than the verifier walks). (tests/unit/test_passes.c checks
# each pass alone on IR.)
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=passes
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/twin_obj.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a corpus program where each pass changes the code (found by compiling the corpus both ways)
declare -A prog=(
	[unreachable]=classify [dce]=struct-flow [thread]=thread
	[swap-cmp]=cg-ingress [coalesce]=big-conntrack [merge-returns]=arp-reply [branch-over-jump]=big-bytes
	[propagate]=xdp1 [inline]=defun-calls [unroll]=defun-calls [sccp]=xdp1 [adce]=big-hist [bits]=let-scope [gvn]=big-conntrack [dse]=map-reuse [reassoc]=wh-pkt-tc [unroll-fold]=wh-bits [select]=form-values [thread-const]=wh-parse [rotate]=loop-while [triangle]=imm64 [bpf-loop]=big-loop [jmp32]=cmp32 [forward]=wh-fixes [sums]=xdp1 [bounds-first]=loop-bytes [copies]=let-scope [nonnull]=wh-parse [globals]=big-nat [merge-checks]=wh-parse [idle-exit]=big-dns [strength]=big-csum
)
passes=$("$KILN" compile --help | sed -n '/^optimizer passes/,$p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[ -n "$passes" ] || fail list "kiln compile --help lists no optimizer pass"
for p in $passes; do
	n=${prog[$p]:-}
	if [ -z "$n" ]; then
		fail "$p" "no program for this pass in passes.sh"
		continue
	fi
	lisp=tests/corpus/$n.lisp
	args=$(sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' "$lisp" | tr '\n' ' ')
	if ! out=$(twin_obj "tests/corpus/$n.c" "$tmp/$n.clang.o"); then
		fail "$p" "the C twin does not build: $out"
	elif ! out=$("$KILN" compile "$lisp" -o "$tmp/$n.o" 2>&1) ||
		! out=$("$KILN" compile -fno-"$p" "$lisp" -o "$tmp/$n.no-$p.o" 2>&1); then
		fail "$p" "kiln compile: $out"
	elif cmp -s "$tmp/$n.o" "$tmp/$n.no-$p.o"; then
		fail "$p" "-fno-$p changes nothing in $n"
	elif [ "$p" = unreachable ]; then
		out=$("$KILN" check "$tmp/$n.no-$p.o" 2>&1)
		if grep -q 'REJECTED.*unreachable insn' <<<"$out"; then pass "$p (the kernel refuses $n without it)"
		else fail "$p" "$n without it: $(head -2 <<<"$out")"; fi
	elif [ "$p" = bpf-loop ]; then   # its loops, as loops, are more than the verifier walks
		out=$("$KILN" check "$tmp/$n.no-$p.o" 2>&1)
		if grep -qE 'REJECTED.*(too large|too complex)|refused this: (BPF program is too large|The sequence of [0-9]+ jumps is too complex)' <<<"$out"
		then pass "$p (the kernel refuses $n without it)"
		else fail "$p" "$n without it: $(head -2 <<<"$out")"; fi
	# shellcheck disable=SC2086  # twin-args are whitespace-separated words by design
	elif ! out=$(timeout 120 "$BUILD/tests/twin" "$tmp/$n.no-$p.o" "$tmp/$n.clang.o" $args 2>&1); then
		fail "$p" "$n with -fno-$p against clang: $(head -3 <<<"$out")"
	else
		pass "$p ($n)"
	fi
done
# the SSA form's invariants (kiln compile --verify-ir: after lowering and after every pass)
# over every program of the corpus, the examples and Whistler's tests, at -O2 and -O0
n=0 broken=
for f in tests/corpus/*.lisp examples/*.lisp tests/whistler/*.lisp; do
	for lvl in -O2 -O0; do
		out=$("$KILN" compile --verify-ir $lvl "$f" -o "$tmp/v.o" 2>&1)
		if grep -q 'internal error' <<<"$out"; then broken="$broken $f $lvl: $(grep -m1 'internal error' <<<"$out");"; fi
		n=$((n + 1))
	done
done
if [ -z "$broken" ] && [ $n -gt 150 ]; then pass "verify-ir ($n compiles)"; else fail verify-ir "${broken:-only $n compiles}"; fi
out=$("$KILN" compile --print-after coalesce tests/corpus/big-conntrack.lisp -o "$tmp/pa.o" 2>&1)
if grep -q '^;; after coalesce$' <<<"$out" && grep -q '^func ' <<<"$out"; then pass print-after
else fail print-after "$(head -3 <<<"$out")"; fi
# unroll-fold's trials run sccp (and unreachable, adce, dce) through the pass manager, so
# -fno-sccp holds there too: without sccp no loop of wh-bits folds, and the object is the one
# without unroll-fold; --print-after sccp prints the trial's run besides the pipeline's
w=tests/corpus/wh-bits.lisp
if ! out=$("$KILN" compile -fno-sccp "$w" -o "$tmp/ns.o" 2>&1) ||
	! out=$("$KILN" compile -fno-sccp -fno-unroll-fold "$w" -o "$tmp/nsu.o" 2>&1); then
	fail no-sccp-in-unroll-fold "kiln compile: $out"
elif cmp -s "$tmp/ns.o" "$tmp/nsu.o"; then pass no-sccp-in-unroll-fold
else fail no-sccp-in-unroll-fold "with -fno-sccp, unroll-fold still folded a loop of $w"; fi
n=$("$KILN" compile --print-after sccp "$w" -o "$tmp/pa2.o" 2>&1 | grep -c '^;; after sccp$')
if [ "$n" -ge 2 ]; then pass "print-after-in-trial ($n runs of sccp)"
else fail print-after-in-trial "--print-after sccp printed $n runs in $w (the pipeline's and unroll-fold's trial's expected)"; fi
out=$("$KILN" compile -fno-nosuchpass tests/corpus/csum.lisp -o "$tmp/x.o" 2>&1)
check unknown-pass "kiln compile: no optimizer pass 'nosuchpass'; the passes:" "$(head -1 <<<"$out")"

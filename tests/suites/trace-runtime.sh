#!/usr/bin/env bash
# trace-runtime.sh — bpftrace v0.17.0's own runtime tests (tests/runtime/*, NAME/RUN/EXPECT
# files read from its sources at test time, a peer: tests/harness/peers.sh) run by
# kiln's runner, tests/trace/runtime.py: each test under bpftrace 0.17, then, if bpftrace
# passes it here, under `kiln trace`. Prints both counts and each test kiln fails with why.
# Only the files that fit a ~60 s budget run (FILES below; `call` alone takes ~20 s, the
# others wait on probes or timeouts longer). SKIP without the sources or bpftrace.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-runtime
. "${ROOT:-$PWD}/tests/harness/report.sh"
FILES="basic call variable precedence signed_ints intcast tuples pointers"
# What kiln passes of these (of the 131 bpftrace passes here; 37 when the runner was added);
# a lower count is a regression. Raise it when kiln passes more.
KILN_PASSED=127
. "${ROOT:-$PWD}/tests/harness/bpftrace_src.sh"
# bpftrace's results are kept in build/ (not $BUILD: the ASan run shares them) and reused
# while the test texts and bpftrace's version are the same: bpftrace is not what is tested
mkdir -p build
out=$(python3 tests/trace/runtime.py --mirror "$mirror" --kiln "$KILN" --bpftrace "$BPFTRACE" \
	--bpftrace-cache build/trace-runtime-bpftrace.json $FILES 2>&1)
rc=$?
sed 's/^/  /' <<<"$out"
check runner-status 0 "$rc"
line=$(grep '^bpftrace 0.17: ' <<<"$out")
ref=$(sed -n 's/^bpftrace 0.17: \([0-9]*\) passed.*/\1/p' <<<"$line")
got=$(sed -n 's/.*kiln trace: \([0-9]*\) passed.*/\1/p' <<<"$line")
if [ -z "$ref" ] || [ "$ref" -eq 0 ]; then
	fail bpftrace-passes "bpftrace 0.17 passed none of $FILES: ${line:-no summary}"
else
	pass bpftrace-passes
fi
if [ -n "$got" ] && [ "$got" -ge "$KILN_PASSED" ]; then
	pass kiln-passes
else
	fail kiln-passes "kiln trace passed ${got:-?} of bpftrace's $ref, fewer than the $KILN_PASSED recorded"
fi

#!/usr/bin/env bash
# trace-runtime026.sh — bpftrace v0.26.1's runtime suite (tests/runtime/* at that tag, read
# from the bpftrace peer's mirror at test time) run against `kiln trace` (its default
# dialect, today's bpftrace) by tests/trace/runtime026.py, each case judged against its own
# EXPECT lines (bpftrace 0.26 is not installed here to run beside it), with the suite's test
# programs built as that tag's CMakeLists builds them (tests/trace/testprogs.sh, into build/).
# Prints per file the cases, those skipped (with why: what this kernel lacks) and kiln's
# passes, and each case kiln fails with why. A file's count below its FLOOR fails. Under the
# sanitizers (the ASan pass: KILN_SANITIZER_LOGS set) only ASAN_FILES run: the normal pass
# has judged kiln on every case. SKIP without the sources or that tag.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-runtime026
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/peers.sh"
if ! peer_git "$BPFTRACE_SRC" rev-parse -q --verify v0.26.1 >/dev/null 2>&1; then
	peer_skip "$SUITE/suite" "no bpftrace source with tag v0.26.1 at $BPFTRACE_SRC"
	exit 0
fi
mirror=$(peer_git "$BPFTRACE_SRC" rev-parse --absolute-git-dir)
FILES="addrspace array basic bool btf builtin call complex_types config dwarf dwunwind
	file-output for intcast interop intptrcast json-output languages macro map other
	pid_namespace pointers precedence probe record regression selftest signals signed_ints
	stdlib strcontains struct tuples uprobe usdt variable watchpoint"
ASAN_FILES="basic variable"
[ -n "${KILN_SANITIZER_LOGS:-}" ] && FILES=$ASAN_FILES
# What kiln passes per file now (the fewest of two runs on a loaded machine: a usdt case
# varies); fewer is a regression. Raise a number when kiln passes more.
# (When the runner was added: 1,056 cases, 120 skipped by kernel or REQUIRES, kiln 140, ~65 s;
# most failures were v0.26 syntax: lower-case begin/end, config =, args.field, let, fn.)
declare -A FLOOR=(
	[addrspace]=0 [array]=5 [basic]=16 [bool]=0 [btf]=0 [builtin]=18 [call]=16
	[complex_types]=0 [config]=0 [dwarf]=0 [dwunwind]=0 [file-output]=3 [for]=0 [intcast]=1
	[interop]=0 [intptrcast]=2 [json-output]=0 [languages]=0 [macro]=0 [map]=0 [other]=18
	[pid_namespace]=0 [pointers]=1 [precedence]=0 [probe]=28 [record]=0 [regression]=3
	[selftest]=1 [signals]=1 [signed_ints]=0 [stdlib]=0 [strcontains]=0 [struct]=0
	[tuples]=1 [uprobe]=6 [usdt]=12 [variable]=7 [watchpoint]=0
)
mkdir -p build
progs=build/trace-testprogs026
if ! out=$(bash tests/trace/testprogs.sh "$mirror" v0.26.1 "$progs" 2>&1); then
	fail testprogs "the suite's test programs did not build: $(tail -3 <<<"$out" | tr '\n' '|')"
fi
[ -n "$out" ] && sed 's/^/  /' <<<"$out"
start=$SECONDS
# shellcheck disable=SC2086   # the file names
out=$(python3 tests/trace/runtime026.py --mirror "$mirror" --kiln "$KILN" --testprogs "$progs" \
	--jobs "${KILN_RUNTIME_JOBS:-4}" $FILES 2>&1)
rc=$?
sed 's/^/  /' <<<"$out"
echo "  ($((SECONDS - start)) s)"
check runner-status 0 "$rc"
for f in $FILES; do   # the table's row: file cases skipped kiln
	got=$(awk -v f="$f" '$1 == f && NF == 4 { print $4 }' <<<"$out")
	if [ -n "$got" ] && [ "$got" -ge "${FLOOR[$f]:-0}" ]; then
		pass "kiln-passes/$f"
	else
		fail "kiln-passes/$f" "kiln trace passed ${got:-?} of $f's cases, fewer than the ${FLOOR[$f]:-0} recorded"
	fi
done

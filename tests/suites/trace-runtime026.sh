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
# What kiln passes per file now (one fewer where it passes 10 or more: a case or two varies
# on a loaded machine); fewer is a regression. Raise a number when kiln passes more.
# (When the runner was added: 1,056 cases, 120 skipped by kernel or REQUIRES, kiln 140, ~65 s;
# most failures were v0.26 syntax: lower-case begin/end, config =, args.field, let, fn;
# after the v0.26 grammar, builtins and v0.17 causes were merged: 475 of the 938 it runs.)
declare -A FLOOR=(
	[addrspace]=1 [array]=12 [basic]=25 [bool]=2 [btf]=3 [builtin]=28 [call]=80 [complex_types]=3
	[config]=2 [dwarf]=4 [dwunwind]=0 [file-output]=3 [for]=9 [intcast]=7 [interop]=0
	[intptrcast]=2 [json-output]=28 [languages]=2 [macro]=21 [map]=9 [other]=54 [pid_namespace]=1
	[pointers]=9 [precedence]=4 [probe]=41 [record]=0 [regression]=10 [selftest]=1 [signals]=2
	[signed_ints]=11 [stdlib]=9 [strcontains]=1 [struct]=5 [tuples]=15 [uprobe]=11 [usdt]=23
	[variable]=22 [watchpoint]=0
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

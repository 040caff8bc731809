#!/usr/bin/env bash
# trace-name.sh — kiln started as `bpftrace` (a symlink whose name, argv[0]'s basename, is
# bpftrace; src/cli/main.c) behaves as `kiln trace`: a one-liner runs through it and prints
# what `kiln trace` prints, its comm is "bpftrace", its options and exit codes are trace's
# (a wrong option exits 2 as `kiln trace` does; `kiln` itself would read it as a command).
# That is how bpftrace's runtime suites run on kiln (BPFTRACE_RUNTIME_TEST_EXECUTABLE,
# tests/trace/runtime.py). Needs tracing (BEGIN probes): SKIP when kiln trace cannot attach.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-name
. "${ROOT:-$PWD}/tests/harness/report.sh"
dir=$(mktemp -d /tmp/kiln-trace-name-$$.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln -s "$(readlink -f "$KILN")" "$dir/bpftrace"
prog='BEGIN { printf("hi %d\n", 6 * 7); exit() }'
want=$(timeout 20 "$KILN" trace -e "$prog" 2>&1); wrc=$?
if [ $wrc -ne 0 ]; then
	echo "SKIP $SUITE/suite: kiln trace cannot run a BEGIN probe here (status $wrc): $want"
	exit 0
fi
got=$(timeout 20 "$dir/bpftrace" -e "$prog" 2>&1); rc=$?
check one-liner "0 $want" "$rc $got"
got=$(timeout 20 "$dir/bpftrace" -e 'BEGIN { printf("%s\n", comm); exit() }' 2>&1 | grep -v -e '^Attaching' -e '^$')
check comm bpftrace "$got"
"$KILN" trace --no-such-option >/dev/null 2>&1; want=$?
"$dir/bpftrace" --no-such-option >/dev/null 2>&1; rc=$?
check wrong-option-status "$want" "$rc"
got=$("$dir/bpftrace" --version 2>&1)
want=$("$KILN" trace --version 2>&1)
check version "$want" "$got"

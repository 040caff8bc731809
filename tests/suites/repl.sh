#!/usr/bin/env bash
# repl.sh — `kiln repl` through a pseudo-terminal (tests/host/repl.py): values, multi-line
# forms, errors that leave the session usable, a program compiled, loaded and attached as it
# is entered counting this test's own calls exactly, maps kept across loads, a verifier
# rejection, dump/disasm/check, Ctrl-C, Ctrl-D, the history file. After it ends, the
# programs it loaded are gone.
set -u
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
hist=$(mktemp)
trap 'rm -f "$hist"' EXIT
rm -f "$hist"
prog=krepl$$   # this run's program name (15 characters at most), counted below
python3 tests/host/repl.py "$KILN" "$hist" "$prog"
# nothing of the session stays: no program of this run's name
left=$(bpftool prog show 2>/dev/null | grep -c "name $prog\$")
if [ "$left" = 0 ]; then echo "PASS repl/unloaded"; else echo "FAIL repl/unloaded: $left programs $prog left"; fi

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
python3 tests/host/repl.py "$KILN" "$hist"
# nothing of the session stays: no program named on_getppid loaded by a kiln repl
left=$(bpftool prog show 2>/dev/null | grep -c 'name on_getppid')
if [ "$left" = 0 ]; then echo "PASS repl/unloaded"; else echo "FAIL repl/unloaded: $left programs on_getppid left"; fi

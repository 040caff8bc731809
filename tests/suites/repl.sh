#!/usr/bin/env bash
# repl.sh — `kiln repl` through a pseudo-terminal (tests/host/repl.py): values, multi-line
# forms, errors that leave the session usable, a program compiled, loaded and attached as it
# is entered counting this test's own calls exactly, maps kept across loads, a verifier
# rejection, dump/disasm/check, Ctrl-C, Ctrl-D, the history file; :help, Tab completion,
# detach and attach again, (load FILE) and its errors at FILE:line:col, a struct read from a
# map printed by its fields. After it ends, the programs it loaded are gone.
set -u
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
hist=$(mktemp) ids=$(mktemp)
trap 'rm -f "$hist" "$ids"' EXIT
rm -f "$hist"
prog=krepl$$   # this run's program name (15 characters at most)
python3 tests/host/repl.py "$KILN" "$hist" "$prog" "$ids"
# nothing of the session stays: each program the repl held (by id) is gone
left=""
while read -r id; do
	[ -n "$id" ] && bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
done <"$ids"
if [ -s "$ids" ] && [ -z "$left" ]; then echo "PASS repl/unloaded"
else echo "FAIL repl/unloaded: programs left:${left:- (no ids recorded)}"; fi

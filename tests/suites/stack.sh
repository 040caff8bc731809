#!/usr/bin/env bash
# stack.sh — `kiln stack` against the real kernel: a program pinned and attached with
# `kiln load` records the kernel stack of getppid() calls; `kiln stack` prints its frames named
# through /proc/kallsyms, as text and as JSON, refuses an unknown stack id, and the user stack
# of a process still running is named with --pid.
set -u
pin=/sys/fs/bpf/kiln-stack-$$
tmp=$(mktemp -d)
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" "$tmp"' EXIT
getppid="$BUILD/tests/getppid"

pass() { echo "PASS stack/$1"; }
fail() { echo "FAIL stack/$1: $2"; }
slot() { "$KILN" map get "$pin/maps/ids" "$1" --json 2>/dev/null | grep -o '"value":[0-9]*' | cut -d: -f2; }

if ! o=$("$KILN" load tests/lib/obj-stack.lisp --pin "$pin" --attach 2>&1); then
	fail load "$o"
	exit 0
fi
"$getppid" 3 >/dev/null
kid=$(slot 0)
if [ -z "$kid" ] || [ "$kid" -ge 1024 ]; then
	fail stack-id "ids slot 0 is '$kid' after getppid"
	exit 0
fi
pass stack-id

# text: "  #0 0xADDR func+0x1a [kernel]", every name one kallsyms has
out=$("$KILN" stack "$pin/maps/stacks" "$kid" 2>&1); rc=$?
n=$(grep -cE '^  #[0-9]+ 0x[0-9a-f]{16} [A-Za-z0-9_.$]+\+0x[0-9a-f]+ \[kernel\]$' <<<"$out")
if [ $rc -eq 0 ] && [ "$n" -ge 1 ] && [ "$n" -eq "$(wc -l <<<"$out")" ]; then pass text
else fail text "rc $rc, $n frame lines: $out"; fi
missing=""
for name in $(sed -nE 's/^  #[0-9]+ 0x[0-9a-f]+ ([^+ ]+)\+0x.*/\1/p' <<<"$out"); do
	grep -qE " $name(\$|	)" /proc/kallsyms || missing="$missing $name"
done
if [ -z "$missing" ] && [ "$n" -ge 1 ]; then pass kallsyms-names
else fail kallsyms-names "not in /proc/kallsyms:$missing"; fi
if grep -qi 'syscall' <<<"$out"; then pass syscall-path
else fail syscall-path "no frame names the system call entry: $out"; fi

# the same stack by id:N and as JSON
id=$(bpftool -j map show pinned "$pin/maps/stacks" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
o=$("$KILN" stack "id:$id" "$kid" 2>&1)
if [ "$o" = "$out" ]; then pass by-id; else fail by-id "$o"; fi
json=$("$KILN" stack "$pin/maps/stacks" "$kid" --json 2>&1)
if python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["stackid"] == int(sys.argv[2]), o
fr = o["frames"]
assert len(fr) >= 1
for f in fr:
    assert f["addr"].startswith("0x") and f["symbol"] and f["module"] == "kernel", f
    assert isinstance(f["offset"], int) and f["file"] is None and f["line"] is None, f
' "$json" "$kid" 2>"$tmp/err"; then pass json
else fail json "$(cat "$tmp/err") in: $json"; fi

# errors: an unknown id is 1 with a message, a bad id is usage (2), a non-stack map is 1
o=$("$KILN" stack "$pin/maps/stacks" 999999 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'no stack id 999999' <<<"$o"; then pass unknown-id
else fail unknown-id "rc $rc: $o"; fi
o=$("$KILN" stack "$pin/maps/stacks" twelve 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'not a stack id' <<<"$o"; then pass bad-id
else fail bad-id "rc $rc: $o"; fi
o=$("$KILN" stack "$pin/maps/ids" 0 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q 'not a stack_trace map' <<<"$o"; then pass not-a-stack-map
else fail not-a-stack-map "rc $rc: $o"; fi
o=$("$KILN" stack "$pin/maps/nosuch" 0 2>&1); rc=$?
if [ $rc -eq 1 ]; then pass missing-map; else fail missing-map "rc $rc: $o"; fi

# a user stack with --pid: a process that waits for its pid to be in ids slot 3 (the one
# pid the program then watches), makes its getppid() calls and stays a while; named through
# its maps (the user stacks are in `ustacks`). Without --pid the addresses stay raw.
if command -v python3 >/dev/null; then
	python3 -c 'import os, sys, time
while not os.path.exists(sys.argv[1]): time.sleep(0.02)
for i in range(3): os.getppid()
open(sys.argv[2], "w").write("x"); time.sleep(10)' "$tmp/go" "$tmp/ready" &
	py=$!
	"$KILN" map set "$pin/maps/ids" 3 "$py" >/dev/null 2>&1
	touch "$tmp/go"
	for _ in $(seq 100); do [ -s "$tmp/ready" ] && break; sleep 0.05; done
	uid=$(slot 1); who=$(slot 2)
	if [ "$who" = "$py" ] && [ -n "$uid" ] && [ "$uid" -lt 1024 ]; then
		o=$("$KILN" stack "$pin/maps/ustacks" "$uid" --pid "$py" 2>&1); rc=$?
		if [ $rc -eq 0 ] && grep -qE '^  #0 0x[0-9a-f]{16} [^ ]+\+0x[0-9a-f]+ .*(\[/|\()' <<<"$o"; then pass user-pid
		else fail user-pid "rc $rc: $o"; fi
		o=$("$KILN" stack "$pin/maps/ustacks" "$uid" 2>&1); rc=$?
		if [ $rc -eq 0 ] && grep -q 'note: user addresses are shown raw' <<<"$o" && grep -q '^  #0 0x[0-9a-f]* \[user\]$' <<<"$o"
		then pass user-raw; else fail user-raw "rc $rc: $o"; fi
	else
		fail user-pid "the stacks recorded are of pid '$who', not python's $py (user stack id '$uid')"
	fi
	kill "$py" 2>/dev/null; wait "$py" 2>/dev/null
fi

if "$KILN" unload "$pin" >/dev/null 2>&1 && [ ! -e "$pin" ]; then pass unload; else fail unload "$pin remains"; fi

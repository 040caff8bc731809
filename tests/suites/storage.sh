#!/usr/bin/env bash
# storage.sh — local storage from the command line, on the maps of tests/lib/storage-cli.lisp
# loaded and pinned by kiln: task, sk, inode and cgrp storage are keyed by an fd for their
# object, which `kiln map` opens from what names it (a PID, PID:FD of a socket another process
# holds, a file, a cgroup v2 directory); set, get (the key shown as given) and delete work,
# dump says how to read one, and a key of the wrong shape is an error that says what it takes.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
pin=/sys/fs/bpf/kiln-storage-$$
holder=
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null; [ -n "$holder" ] && kill $holder 2>/dev/null' EXIT
SUITE=storage
. "${ROOT:-$PWD}/tests/harness/report.sh"

if ! out=$("$KILN" load tests/lib/storage-cli.lisp --pin "$pin" 2>&1); then
	fail load "$out"
	exit 0
fi
m=$pin/maps
. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
cg=$(cgroup2_root)

# a task's value by its PID: this shell's
"$KILN" map set "$m/per_task" $$ 7
check task-get "  $$ => 7" "$("$KILN" map get "$m/per_task" $$)"
"$KILN" map delete "$m/per_task" $$
err=$("$KILN" map get "$m/per_task" $$ 2>&1); rc=$?
if [ $rc = 1 ] && grep -q 'No such file' <<<"$err"; then pass task-delete; else fail task-delete "status $rc: $err"; fi
err=$("$KILN" map get "$m/per_task" self 2>&1); rc=$?
if [ $rc != 0 ] && grep -q "a task storage's key is a PID, not 'self'" <<<"$err"; then pass task-key-error
else fail task-key-error "status $rc: $err"; fi

# a file's value by its path
f=$(mktemp)
"$KILN" map set "$m/per_inode" "$f" 9
check inode-get "{\"map\":\"per_inode\",\"key\":\"$f\",\"value\":9}" "$("$KILN" map get "$m/per_inode" "$f" --json)"
rm -f "$f"

# a cgroup's value by its directory
if [ -n "$cg" ]; then
	"$KILN" map set "$m/per_cgroup" "$cg" 42
	check cgrp-get "  $cg => 42" "$("$KILN" map get "$m/per_cgroup" "$cg")"
	"$KILN" map delete "$m/per_cgroup" "$cg"
	"$KILN" map get "$m/per_cgroup" "$cg" >/dev/null 2>&1
	check cgrp-delete 1 $?
else
	echo "SKIP storage/cgrp-get: no cgroup2 hierarchy mounted"
fi

# a socket another process holds, as PID:FD (read through pidfd_getfd)
fifo=$(mktemp -u); mkfifo "$fifo"
python3 -c 'import socket, sys, time
s = socket.socket()
print(s.fileno(), flush=True)
sys.stdin.read()' <"$fifo" >"$fifo.fd" &
holder=$!
exec 7>"$fifo"      # the holder lives until this closes
fd=
for _ in $(seq 100); do fd=$(cat "$fifo.fd" 2>/dev/null); [ -n "$fd" ] && break; sleep 0.05; done
if [ -z "$fd" ]; then
	fail sk-holder "the socket holder printed no fd"
else
	"$KILN" map set "$m/per_sock" "$holder:$fd" 11
	check sk-get "  $holder:$fd => 11" "$("$KILN" map get "$m/per_sock" "$holder:$fd")"
	err=$("$KILN" map get "$m/per_sock" "$holder" 2>&1); rc=$?
	if [ $rc != 0 ] && grep -q "an sk storage's key is PID:FD" <<<"$err"; then pass sk-key-error
	else fail sk-key-error "status $rc: $err"; fi
fi
exec 7>&-
wait "$holder" 2>/dev/null; holder=
rm -f "$fifo" "$fifo.fd"

out=$("$KILN" map dump "$m/per_cgroup")
if grep -q 'cgrp_storage: entries are not listed; `kiln map get MAP CGROUP-DIR`' <<<"$out"; then pass dump-hint
else fail dump-hint "$out"; fi

# inode storage from a program: inode-storage-get is an LSM hook's helper; a kernel locked
# down refuses lsm programs, anything else must accept this one
out=$("$KILN" check tests/lib/inode-storage.lisp 2>&1)
if grep -q '^count_open  *accepted' <<<"$out"; then pass inode-lsm-program
elif grep -q 'locked down' <<<"$out"; then echo "SKIP storage/inode-lsm-program: the kernel refuses lsm programs: $out"
else fail inode-lsm-program "$out"; fi

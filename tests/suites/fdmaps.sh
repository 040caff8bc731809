#!/usr/bin/env bash
# fdmaps.sh — maps that hold fds, filled from the command line by what they hold and listed by
# what the kernel gives back (tests/lib/fdmaps.lisp, loaded and pinned by kiln): a program by
# pinned path, id:N and name:NAME into a prog-array (dump shows its id, as bpftool knows it), a
# map by pinned path into an array-of-maps (its id), the cgroup v2 root into a cgroup-array
# (bpftool sees the slot filled), an ifindex into a devmap and a queue size into a cpumap; a
# directory that is not a cgroup v2 one, and a program that does not exist, are errors.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
pin=/sys/fs/bpf/kiln-fdmaps-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null' EXIT
SUITE=fdmaps
. "${ROOT:-$PWD}/tests/harness/report.sh"

if ! out=$("$KILN" load tests/lib/fdmaps.lisp --pin "$pin" --attach 2>&1); then
	fail load "$out"
	exit 0
fi
M=$pin/maps
pid=$(bpftool -j prog show pinned "$pin/progs/entry" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
mid=$(bpftool -j map show pinned "$M/inner" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)

"$KILN" map set "$M/jumps" 0 "$pin/progs/entry" && "$KILN" map set "$M/jumps" 1 "id:$pid" &&
	"$KILN" map set "$M/jumps" 2 "name:entry"
check prog-array "0 $pid|1 $pid|2 $pid" "$("$KILN" map dump "$M/jumps" --json | sed -n 's/.*"key":\([0-9]*\),"value":{"prog_id":\([0-9]*\)}}/\1 \2/p' | paste -sd'|')"

"$KILN" map set "$M/tables" 1 "$M/inner"
check array-of-maps '{"map":"tables","key":1,"value":{"map_id":'"$mid"'}}' "$("$KILN" map dump "$M/tables" --json)"

. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
cg=$(cgroup2_root)
if [ -n "$cg" ]; then
	# user space cannot read a cgroup-array back: the attached program asks the kernel whether
	# the task calling getppid is under the cgroup in slot 0 (the root: every task is)
	"$BUILD/tests/getppid" 1 >/dev/null
	before=$("$KILN" map get "$M/under_result" 0 --json | grep -o '"value":[0-9]*' | cut -d: -f2)
	"$KILN" map set "$M/groups" 0 "$cg"
	"$BUILD/tests/getppid" 1 >/dev/null
	after=$("$KILN" map get "$M/under_result" 0 --json | grep -o '"value":[0-9]*' | cut -d: -f2)
	if [ "${before:-100}" -lt 100 ] && [ "$after" = 101 ]; then pass "cgroup-array ($cg: empty slot $before, then 101)"
	else fail cgroup-array "under_result before ${before:-?} (want < 100), after ${after:-?} (want 101)"; fi
else
	echo "SKIP fdmaps/cgroup-array: no cgroup v2 mount"
fi
err=$("$KILN" map set "$M/groups" 1 /tmp 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "/tmp is not a cgroup v2 directory" <<<"$err"; then pass not-a-cgroup; else fail not-a-cgroup "status $rc: $err"; fi
err=$("$KILN" map set "$M/jumps" 3 name:no_such_prog_x 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "name:no_such_prog_x" <<<"$err"; then pass no-such-program; else fail no-such-program "status $rc: $err"; fi

"$KILN" map set "$M/ports" 2 1
check devmap "  2 => ifindex 1" "$("$KILN" map dump "$M/ports" | tail -1)"
"$KILN" map set "$M/cpus" 0 192
check cpumap "  0 => qsize 192" "$("$KILN" map dump "$M/cpus" | tail -1)"
exit 0

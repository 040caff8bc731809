#!/usr/bin/env bash
# cli.sh — the kiln command line against the real kernel: map dump/get/set/delete by pinned
# path, id and name (read back with bpftool), map and prog list, check (accepted and refused
# with the source line), load/unload with pins and links, and run: attached while it runs,
# nothing attached or pinned after the duration, after SIGINT, or after SIGTERM.
set -u
out="$BUILD/tests/cli"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-cli-$$
ns=kcli$$
trap 'rm -rf "$pin" "$pin-run"; ip netns del $ns 2>/dev/null; ip link del kc$$a 2>/dev/null' EXIT
getppid="$BUILD/tests/getppid"

pass() { echo "PASS cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; }
expect() {   # name, condition-command...: PASS when it succeeds
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$(printf '%q ' "$@")"; fi
}
links() { bpftool link list 2>/dev/null | grep -c '^[0-9]*:'; }
pins() { find /sys/fs/bpf -maxdepth 3 2>/dev/null | grep -c kiln-cli; }

# ---- load --pin, map set/get/delete/dump by path, id and name; bpftool reads back ----------
if ! o=$("$KILN" load tests/cli/counters.lisp --pin "$pin" 2>&1); then
	fail load "$o"
else
	expect load-pins test -e "$pin/maps/calls" -a -e "$pin/maps/pairs" -a -e "$pin/progs/count_xdp"
	"$KILN" map set "$pin/maps/pairs" 7 0x2a >/dev/null 2>&1
	o=$("$KILN" map set "$pin/maps/calls" 0 12345 2>&1); rc=$?
	bt=$(bpftool -j map dump pinned "$pin/maps/calls" 2>&1)
	if [ $rc -eq 0 ] && grep -q '"value":12345' <<<"$bt"; then pass map-set-bpftool
	else fail map-set-bpftool "kiln rc $rc '$o'; bpftool: $bt"; fi
	o=$("$KILN" map get "$pin/maps/calls" 0 2>&1)
	expect map-get grep -q '^  0 => 12345$' <<<"$o"
	id=$(bpftool -j map show pinned "$pin/maps/calls" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
	o=$("$KILN" map get "id:$id" 0 --json 2>&1)
	expect map-get-id-json grep -qx '{"map":"calls","key":0,"value":12345}' <<<"$o"
	# a struct value: set by hex through bpftool, decoded by BTF
	bpftool map update pinned "$pin/maps/pairs" key 3 0 0 0 value 5 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0 >/dev/null 2>&1
	o=$("$KILN" map dump "$pin/maps/pairs" --json 2>&1)
	expect map-dump-btf grep -qx '{"map":"pairs","key":3,"value":{"a":5,"b":9}}' <<<"$o"
	o=$("$KILN" map dump name:pairs 2>&1)
	expect map-dump-name-text grep -q '^  3 => {a: 5, b: 9}$' <<<"$o"
	# per-CPU: set writes every CPU, dump shows one value per possible CPU
	"$KILN" map set "$pin/maps/percpu" 1 77 >/dev/null 2>&1
	ncpu=$(( $(cut -d- -f2 /sys/devices/system/cpu/possible) + 1 ))
	o=$("$KILN" map get "$pin/maps/percpu" 1 --json 2>&1)
	want=$(printf '77,%.0s' $(seq $ncpu)); want="[${want%,}]"
	expect map-percpu grep -qF "\"value\":$want" <<<"$o"
	# flags, delete, errors
	o=$("$KILN" map set "$pin/maps/pairs" 3 1 --noexist 2>&1); rc=$?
	expect map-set-noexist test $rc -eq 1 -a -n "$(grep 'File exists' <<<"$o")"
	"$KILN" map delete "$pin/maps/pairs" 3 >/dev/null 2>&1
	o=$("$KILN" map get "$pin/maps/pairs" 3 2>&1); rc=$?
	expect map-delete test $rc -eq 1 -a -n "$(grep 'No such file' <<<"$o")"
	o=$("$KILN" map get "$pin/maps/calls" 99999999999 2>&1); rc=$?
	expect map-key-range test $rc -eq 2 -a -n "$(grep 'not in range' <<<"$o")"
	o=$("$KILN" map dump "$pin/maps/nosuch" 2>&1); rc=$?
	expect map-missing-pin test $rc -eq 1 -a -n "$(grep -i 'no such file' <<<"$o")"
	o=$("$KILN" map dump name:no-such-map-kiln 2>&1); rc=$?
	expect map-missing-name test $rc -eq 1
	# lists: our map and program appear with the kernel's ids
	o=$("$KILN" map list --json 2>&1)
	expect map-list grep -q "{\"id\":$id,\"name\":\"calls\",\"type\":\"array\"" <<<"$o"
	pid=$(bpftool -j prog show pinned "$pin/progs/count_xdp" | grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)
	tag=$(bpftool -j prog show pinned "$pin/progs/count_xdp" | grep -o '"tag":"[0-9a-f]*"' | head -1)
	o=$("$KILN" prog list --json 2>&1)
	expect prog-list grep -q "{\"id\":$pid,\"type\":\"xdp\",\"name\":\"count_xdp\",$tag," <<<"$o"
	o=$("$KILN" prog list 2>&1)
	expect prog-list-text grep -qE "^ *$pid +xdp +count_xdp " <<<"$o"
	"$KILN" unload "$pin" 2>&1
	expect unload test ! -e "$pin"
fi

# ---- check: accepted with counts; refused with the source line --------------------------------
o=$("$KILN" check examples/xdp-count.lisp 2>&1); rc=$?
expect check-accepted test $rc -eq 0 -a -n "$(grep -E '^xdp_count +accepted +[0-9]+ insns, +[0-9]+ after the verifier, +[1-9][0-9]* processed' <<<"$o")"
o=$("$KILN" check tests/cli/rejected.lisp 2>&1); rc=$?
expect check-rejected test $rc -eq 1 -a -n "$(grep -E 'rejected.lisp:4:5: the verifier refused this: .*outside of the packet' <<<"$o")"
o=$("$KILN" check tests/cli/rejected.lisp --json 2>&1)
expect check-json grep -q '"verdict":"rejected"' <<<"$o"

# ---- load --attach: a pinned link keeps counting after kiln exits; unload detaches --------------
before=$(links)
if o=$("$KILN" load tests/cli/tp-only.lisp --pin "$pin" --attach 2>&1); then
	"$getppid" 5 >/dev/null
	n=$("$KILN" map get "$pin/maps/calls" 0 --json | grep -o '"value":[0-9]*' | cut -d: -f2)
	expect load-attach-counts test "${n:-0}" -ge 5
	expect load-attach-link test "$(links)" -eq $((before + 1)) -a -e "$pin/links/on_getppid"
	"$KILN" unload "$pin"
	expect unload-detaches test "$(links)" -eq "$before" -a ! -e "$pin"
else
	fail load-attach "$o"
fi

# ---- run: attached while running, all gone after --duration, SIGINT and SIGTERM -------------------
before=$(links); pins_before=$(pins)
o=$("$KILN" run tests/cli/tp-only.lisp --duration 1 --json 2>"$out/run.err" & sleep 0.5; "$getppid" 3 >/dev/null; wait)
expect run-duration-maps grep -qE '^\{"map":"calls","key":0,"value":[3-9]' <<<"$o"
expect run-duration-events grep -q '^{"map":"events","size":8,"data":"0x' <<<"$o"
expect run-duration-clean test "$(links)" -eq "$before" -a "$(pins)" -eq "$pins_before"
# perf buffer records decoded by their layout, as text: cpu, pid, address, comm; a ring buffer's
# by the struct of their size; then the counts
o=$("$KILN" run tests/cli/perf-probe.lisp --duration 1.5 2>"$out/run-perf.err" & sleep 0.7; "$getppid" 2 >/dev/null & echo $! >"$out/gp.pid"; wait)
gp=$(cat "$out/gp.pid")
expect run-perf-decoded test "$(grep -cE "^probe cpu=[0-9]+ pid=$gp addr=192\.168\.1\.1 comm=getppid$" <<<"$o")" -eq 2
expect run-ring-guessed test "$(grep -cE "^probe pid=$gp addr=192\.168\.1\.1 comm=getppid$" <<<"$o")" -eq 2
expect run-perf-counts grep -qE '^probes: records=[2-9][0-9]* lost=0 drops=0$' <<<"$o"
for sig in INT TERM; do
	"$KILN" run tests/cli/tp-only.lisp >"$out/run-$sig.out" 2>"$out/run-$sig.err" &
	kpid=$!
	for _ in $(seq 50); do grep -q running "$out/run-$sig.err" && break; sleep 0.1; done
	during=$(links)
	kill -$sig $kpid; wait $kpid; rc=$?
	expect run-sig$sig-attached test "$during" -eq $((before + 1))
	expect run-sig$sig-clean test $rc -eq 0 -a "$(links)" -eq "$before" -a "$(pins)" -eq "$pins_before"
	expect run-sig$sig-maps grep -q '^map calls' "$out/run-$sig.out"
done
# --pin: stays attached and pinned after exit, until unload
"$KILN" run tests/cli/tp-only.lisp --duration 0.2 --pin "$pin-run" >/dev/null 2>&1
expect run-pin-stays test "$(links)" -eq $((before + 1)) -a -e "$pin-run/links/on_getppid"
"$KILN" unload "$pin-run"
expect run-pin-unload test "$(links)" -eq "$before"

# ---- run with xdp and tc on a veth whose peer lives in a netns; a ping is counted --------------
ip netns add $ns && ip link add kc$$a type veth peer name kc$$b && ip link set kc$$b netns $ns &&
	ip addr add 10.201.$(($$ % 200)).1/24 dev kc$$a && ip link set kc$$a up &&
	ip -n $ns addr add 10.201.$(($$ % 200)).2/24 dev kc$$b && ip -n $ns link set kc$$b up && ip -n $ns link set lo up
o=$("$KILN" run tests/cli/counters.lisp --iface kc$$a --duration 2 --json 2>"$out/run-net.err" &
	sleep 0.7; ip netns exec $ns ping -c 3 -i 0.2 -W 1 10.201.$(($$ % 200)).1 >/dev/null 2>&1; wait)
x=$(grep -o '"map":"packets","key":0,"value":[0-9]*' <<<"$o" | cut -d: -f4)
t=$(grep -o '"map":"packets","key":1,"value":[0-9]*' <<<"$o" | cut -d: -f4)
expect run-xdp-counted test "${x:-0}" -ge 3
expect run-tc-counted test "${t:-0}" -ge 3
expect run-net-detached test -z "$(ip link show kc$$a | grep -o 'xdp')" -a "$(links)" -eq "$before"
o=$("$KILN" run tests/cli/counters.lisp --duration 0.1 2>&1); rc=$?
expect run-needs-iface test $rc -eq 1 -a -n "$(grep 'needs --iface IF' <<<"$o")" -a "$(links)" -eq "$before"

# ---- test-run --ctx: a struct __sk_buff in, its mark comes back as the program's return value ---
ctx="$(printf '00%.0s' $(seq 8))2a000000$(printf '00%.0s' $(seq 180))"
o=$("$KILN" test-run tests/cli/ctx-mark.lisp --ctx "$ctx" --json 2>&1)
expect test-run-ctx grep -q '^{"prog":"ret_mark","retval":42,' <<<"$o"
o=$("$KILN" test-run tests/cli/ctx-mark.lisp --ctx zz 2>&1); rc=$?
expect test-run-ctx-bad test $rc -eq 2 -a -n "$(grep 'not hex bytes' <<<"$o")"

#!/usr/bin/env bash
# cli.sh — the kiln command line against the real kernel: map dump/get/set/delete by pinned
# path, id and name (read back with bpftool), map and prog list, check (accepted and refused
# with the source line), load/unload with pins and links, and run: attached while it runs,
# nothing attached or pinned after the duration, after SIGINT, or after SIGTERM, and stopped
# by SIGINT within a bounded time while a program floods it with records. Only the links and
# programs this suite makes are counted (by id), so other BPF tools may run beside it.
set -u
. "$ROOT/tests/harness/run.sh"
out="$BUILD/tests/cli"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-cli-$$
ns=kcli$$
trap 'rm -rf "$pin" "$pin-run" "$pin-named"; ip netns del $ns 2>/dev/null; ip link del kc$$a 2>/dev/null' EXIT
getppid="$BUILD/tests/getppid"

pass() { echo "PASS cli/$1"; }
fail() { echo "FAIL cli/$1: $2"; }
expect() {   # name, condition-command...: PASS when it succeeds
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$(printf '%q ' "$@")"; fi
}
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
	# by name: a map of a name only this run uses (another tool may have a "pairs" of its own)
	printf '(defstruct pair (a u32) (b u64))\n(defmap kcli%s :type :hash :key u32 :value pair :max-entries 4)\n' $$ >"$out/named.lisp"
	if "$KILN" load "$out/named.lisp" --pin "$pin-named" >/dev/null 2>&1; then
		bpftool map update pinned "$pin-named/maps/kcli$$" key 3 0 0 0 value 5 0 0 0 0 0 0 0 9 0 0 0 0 0 0 0 >/dev/null 2>&1
		o=$("$KILN" map dump name:kcli$$ 2>&1)
		expect map-dump-name-text grep -q '^  3 => {a: 5, b: 9}$' <<<"$o"
		"$KILN" unload "$pin-named" >/dev/null 2>&1
	else
		fail map-dump-name-text "cannot load $out/named.lisp"
	fi
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
	expect map-key-range test $rc -eq 2 -a -n "$(grep 'is a u32: 99999999999 is out of range' <<<"$o")"
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
if o=$("$KILN" load tests/cli/tp-only.lisp --pin "$pin" --attach 2>&1); then
	"$getppid" 5 >/dev/null
	n=$("$KILN" map get "$pin/maps/calls" 0 --json | grep -o '"value":[0-9]*' | cut -d: -f2)
	expect load-attach-counts test "${n:-0}" -ge 5
	lid=$(pinned_id link "$pin/links/on_getppid"); pid=$(pinned_id prog "$pin/progs/on_getppid")
	expect load-attach-link test -n "$lid" -a -n "$pid"
	"$KILN" unload "$pin"
	expect unload-detaches eval 'gone link $lid && gone prog $pid && test ! -e "$pin"'
else
	fail load-attach "$o"
fi

# ---- run: attached while running, all gone after --duration, SIGINT and SIGTERM -------------------
pins_before=$(pins)
start_run "$out/run.out" "$out/run.err" tests/cli/tp-only.lisp --duration 1 --json
lids=$(fd_ids $k link); pids=$(fd_ids $k prog)
"$getppid" 3 >/dev/null; wait $k; o=$(cat "$out/run.out")
n=$(grep -oE '^\{"map":"calls","key":0,"value":[0-9]+' <<<"$o" | cut -d: -f4)
expect run-duration-maps test "${n:-0}" -ge 3
expect run-duration-events grep -q '^{"map":"events","size":8,"data":"0x' <<<"$o"
expect run-duration-attached test "$(count_words $lids)" -eq 1 -a "$(count_words $pids)" -eq 1
expect run-duration-clean eval 'gone link $lids && gone prog $pids && test "$(pins)" -eq "$pins_before"'
# perf buffer records decoded by their layout, as text: cpu, pid, address, comm; a ring buffer's
# by the struct of their size; then the counts
start_run "$out/run-perf.out" "$out/run-perf.err" tests/cli/perf-probe.lisp --duration 1.5
"$getppid" 2 >/dev/null & gp=$!; wait $gp; wait $k; o=$(cat "$out/run-perf.out")
expect run-perf-decoded test "$(grep -cE "^probe cpu=[0-9]+ pid=$gp addr=192\.168\.1\.1 comm=getppid$" <<<"$o")" -eq 2
expect run-ring-guessed test "$(grep -cE "^probe pid=$gp addr=192\.168\.1\.1 comm=getppid$" <<<"$o")" -eq 2
n=$(sed -n 's/^probes: records=\([0-9]*\) lost=0 drops=0$/\1/p' <<<"$o")
expect run-perf-counts test "${n:-0}" -ge 2
for sig in INT TERM; do
	start_run "$out/run-$sig.out" "$out/run-$sig.err" tests/cli/tp-only.lisp
	lids=$(fd_ids $k link); pids=$(fd_ids $k prog)
	kill -$sig $k; wait $k; rc=$?
	expect run-sig$sig-attached test "$(count_words $lids)" -eq 1 -a "$(count_words $pids)" -eq 1
	expect run-sig$sig-clean eval 'test $rc -eq 0 && gone link $lids && gone prog $pids && test "$(pins)" -eq "$pins_before"'
	expect run-sig$sig-maps grep -q '^map calls' "$out/run-$sig.out"
done
# a record on every system call, printed (each print a system call that makes another): SIGINT
# still stops kiln run in a bounded time, with everything detached
if start_run "$out/run-flood.out" "$out/run-flood.err" tests/lib/ev-flood.lisp; then
	lids=$(fd_ids $k link); pids=$(fd_ids $k prog)
	for _ in $(seq 100); do [ "$(stat -c %s "$out/run-flood.out")" -gt 100000 ] && break; sleep 0.05; done
	size=$(stat -c %s "$out/run-flood.out")
	t0=$EPOCHREALTIME; kill -INT $k
	for _ in $(seq 200); do kill -0 $k 2>/dev/null || break; sleep 0.01; done
	t1=$EPOCHREALTIME
	kill -0 $k 2>/dev/null && { kill -KILL $k; echo "    kiln run still running 2 s after SIGINT: killed"; }
	wait $k; rc=$?
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	if [ $rc -eq 0 ] && [ "$size" -gt 100000 ] && [ "$ms" -lt 1000 ]; then pass "run-flood-sigINT (stopped in $ms ms)"
	else fail run-flood-sigINT "exit $rc after $ms ms, $size bytes printed before the signal"; fi
	expect run-flood-clean eval 'gone link $lids && gone prog $pids'
	expect run-flood-counts grep -qE '^events: records=[1-9][0-9]* lost=0 drops=[0-9]+$' "$out/run-flood.out"
	rm -f "$out/run-flood.out"
else
	fail run-flood-start "$(cat "$out/run-flood.err")"
fi
# --pin: stays attached and pinned after exit, until unload
"$KILN" run tests/cli/tp-only.lisp --duration 0.2 --pin "$pin-run" >/dev/null 2>&1
lid=$(pinned_id link "$pin-run/links/on_getppid")
expect run-pin-stays test -n "$lid"
"$KILN" unload "$pin-run"
expect run-pin-unload eval 'test -n "$lid" && gone link $lid'

# ---- run with xdp and tc on a veth whose peer lives in a netns; a ping is counted --------------
ip netns add $ns && ip link add kc$$a type veth peer name kc$$b && ip link set kc$$b netns $ns &&
	ip addr add 10.201.$(($$ % 200)).1/24 dev kc$$a && ip link set kc$$a up &&
	ip -n $ns addr add 10.201.$(($$ % 200)).2/24 dev kc$$b && ip -n $ns link set kc$$b up && ip -n $ns link set lo up
start_run "$out/run-net.out" "$out/run-net.err" tests/cli/counters.lisp --iface kc$$a --duration 2 --json
lids=$(fd_ids $k link); pids=$(fd_ids $k prog)
ip netns exec $ns ping -c 3 -i 0.2 -W 1 10.201.$(($$ % 200)).1 >/dev/null 2>&1; wait $k
o=$(cat "$out/run-net.out")
x=$(grep -o '"map":"packets","key":0,"value":[0-9]*' <<<"$o" | cut -d: -f4)
t=$(grep -o '"map":"packets","key":1,"value":[0-9]*' <<<"$o" | cut -d: -f4)
expect run-xdp-counted test "${x:-0}" -ge 3
expect run-tc-counted test "${t:-0}" -ge 3
expect run-net-detached eval 'test -z "$(ip link show kc$$a | grep -o xdp)" && test -n "$pids" && gone link $lids && gone prog $pids'
o=$("$KILN" run tests/cli/counters.lisp --duration 0.1 2>&1); rc=$?
expect run-needs-iface test $rc -eq 1 -a -n "$(grep 'needs --iface IF' <<<"$o")"

# ---- test-run --ctx: a struct __sk_buff in, its mark comes back as the program's return value ---
ctx="$(printf '00%.0s' $(seq 8))2a000000$(printf '00%.0s' $(seq 180))"
o=$("$KILN" test-run tests/cli/ctx-mark.lisp --ctx "$ctx" --json 2>&1)
expect test-run-ctx grep -q '^{"prog":"ret_mark","retval":42,' <<<"$o"
o=$("$KILN" test-run tests/cli/ctx-mark.lisp --ctx zz 2>&1); rc=$?
expect test-run-ctx-bad test $rc -eq 2 -a -n "$(grep 'not hex bytes' <<<"$o")"

#!/usr/bin/env bash
# examples.sh — the examples as the tools they are, run live with `kiln run --json` while the
# test makes what they watch happen: execsnoop sees a process the test spawns (its pid, parent,
# comm and file, and the failing exec's -ENOENT), opensnoop an open of a path only this test uses,
# syscall-latency a 30 ms nanosleep with a symbolized stack, tcpconnect loopback connects
# over IPv4 and IPv6, runqlat the naps of a tool of the test's, xdp-count and tc-bytes the
# pings over a veth pair into a network namespace the test owns. Events are checked decoded, as
# `kiln run --json` prints them: {"event":NAME,"field":value,...}.
set -u
. "$ROOT/tests/harness/run.sh"
out="$BUILD/tests/examples"
mkdir -p "$out"
ns=kex$$
scratch=$(mktemp -d)   # (opensnoop's path: under 128 bytes wherever the clone is)
trap 'ip netns del $ns 2>/dev/null; ip link del kx$$a 2>/dev/null; rm -rf "$scratch"' EXIT
spawn="$BUILD/tests/spawn"
pass() { echo "PASS examples/$1"; }
fail() { echo "FAIL examples/$1: $2"; }

# live EXAMPLE SECONDS ARGS...: kiln run in the background (pid in $k), once it is running
live() {
	local ex=$1 secs=$2; shift 2
	start_run "$out/$ex.json" "$out/$ex.err" "examples/$ex.lisp" --duration "$secs" --json "$@" ||
		echo "    $ex: kiln run did not say it was running: $(tr '\n' ' ' <"$out/$ex.err")"
}

# ---- execsnoop: a spawned /bin/true with its pid, parent, comm and file; a missing program's ENOENT
# The parents are known exactly: this shell ($$) forks the background job that execs spawn ($!),
# and spawn forks the child that execs /bin/true, so spawn's exec has ppid $$ and true's has
# ppid $! (spawn waits for it, so the parent is alive and unchanged at the exec).
live execsnoop 3
"$spawn" /bin/true >"$out/execsnoop.pid" &
sp=$!
wait $sp
pid=$(cat "$out/execsnoop.pid")
"$spawn" /no/such/program-$$ >/dev/null 2>&1
wait $k
if grep -q "^{\"event\":\"exec_event\",\"pid\":$pid,\"ppid\":$sp,\"uid\":0,\"ret\":0,\"comm\":\"true\",\"filename\":\"/bin/true\"}$" "$out/execsnoop.json"; then
	pass execsnoop
else
	fail execsnoop "no exec of /bin/true as pid $pid, ppid $sp in $(grep -F '"/bin/true"' "$out/execsnoop.json" | head -c 300)"
fi
if grep -q "^{\"event\":\"exec_event\",\"pid\":$sp,\"ppid\":$$,\"uid\":0,\"ret\":0,\"comm\":\"spawn\"," "$out/execsnoop.json"; then
	pass execsnoop-ppid
else
	fail execsnoop-ppid "no exec of spawn as pid $sp with ppid $$ (this shell): $(grep "\"pid\":$sp," "$out/execsnoop.json" | head -c 300)"
fi
if grep -q "^{\"event\":\"exec_event\",\"pid\":[0-9]*,\"ppid\":[0-9]*,\"uid\":0,\"ret\":-2,.*\"filename\":\"/no/such/program-$$\"}$" "$out/execsnoop.json"; then
	pass execsnoop-enoent
else
	fail execsnoop-enoent "no failed exec (-2) of /no/such/program-$$"
fi
if grep -q '^{"map":"events","records":[1-9][0-9]*,"lost":0,"drops":0}$' "$out/execsnoop.json"; then
	pass execsnoop-stats
else
	fail execsnoop-stats "no record count for the ring buffer: $(tail -2 "$out/execsnoop.json")"
fi

# ---- opensnoop: the open of a path only this run uses, with its pid ---------------------------
live opensnoop 3
pid=$("$spawn" sh -c "exec 3>$scratch/kiln-opensnoop-$$")
wait $k
if grep -q "^{\"event\":\"open_event\",\"pid\":$pid,.*\"ret\":[0-9][0-9]*,.*\"path\":\"$scratch/kiln-opensnoop-$$\"}$" "$out/opensnoop.json"; then pass opensnoop
else fail opensnoop "no open of $scratch/kiln-opensnoop-$$ by $pid: $(grep -c . "$out/opensnoop.json") lines: $(tail -c 300 "$out/opensnoop.json"); stderr: $(tr '\n' ' ' <"$out/opensnoop.err")"; fi

# ---- syscall-latency: a 30 ms sleep is a slow call, with stack ids; the histogram fills ----------
live syscall-latency 3
pid=$("$spawn" sleep 0.03)
wait $k
# slow-call: the kernel stack symbolized, each frame a function kallsyms names
line=$(grep "^{\"event\":\"slow_call\",\"pid\":$pid,.*\"comm\":\"sleep\"}$" "$out/syscall-latency.json" | head -1)
frame=$(grep -o '"kstack":\["[A-Za-z0-9_.]*+0x[0-9a-f]* \[kernel\]"' <<<"$line" | sed 's/.*\["//; s/+0x.*//')
if [ -n "$frame" ] && grep -q " $frame\$" /proc/kallsyms; then
	pass syscall-latency-event
else
	fail syscall-latency-event "no slow call of sleep ($pid) with a symbolized kernel stack: ${line:0:300}"
fi
if grep -q '"map":"latency_log2_us","key":[0-9]*,"value":[1-9]' "$out/syscall-latency.json"; then pass syscall-latency-histogram
else fail syscall-latency-histogram "empty histogram"; fi

# ---- tcpconnect: loopback connects over IPv4 and IPv6 by a tool of the test's --------------------
# loopconnect prints its pid, its client socket's address and port (getsockname) and the address
# and port it listened on (127.0.0.2, so that the source, 127.0.0.1, differs from it); the event
# must carry those and its comm.
live tcpconnect 3
"$BUILD/tests/loopconnect" >"$out/loopconnect.out" 2>&1
wait $k
read -r _ cpid csaddr csport cdaddr cdport < <(grep '^inet ' "$out/loopconnect.out")
if [ -n "${cpid:-}" ] &&
	grep -q "^{\"event\":\"connect4\",\"pid\":$cpid,\"sport\":$csport,\"dport\":$cdport,\"saddr\":\"$csaddr\",\"daddr\":\"$cdaddr\",\"comm\":\"loopconnect\"}$" "$out/tcpconnect.json"; then
	pass tcpconnect
else
	fail tcpconnect "no connect4 of pid ${cpid:-?} from ${csaddr:-?}:${csport:-?} to ${cdaddr:-?}:${cdport:-?} ($(tr '\n' ' ' <"$out/loopconnect.out")) in $(grep -F '"connect4"' "$out/tcpconnect.json" | head -c 300)"
fi
if grep -q '^inet6 unavailable' "$out/loopconnect.out"; then
	echo "SKIP examples/tcpconnect-ipv6: this machine has no ::1: $(grep '^inet6' "$out/loopconnect.out")"
else
	read -r _ cpid csaddr csport cdaddr cdport < <(grep '^inet6 ' "$out/loopconnect.out")
	if [ -n "${cpid:-}" ] && grep -q "^{\"event\":\"connect6\",\"pid\":$cpid,\"sport\":$csport,\"dport\":$cdport,\"saddr\":\"$csaddr\",\"daddr\":\"$cdaddr\",\"comm\":\"loopconnect\"}$" "$out/tcpconnect.json"; then
		pass tcpconnect-ipv6
	else
		fail tcpconnect-ipv6 "no connect6 of pid ${cpid:-?} from [${csaddr:-?}]:${csport:-?} to [${cdaddr:-?}]:${cdport:-?} in $(grep -F '"connect6"' "$out/tcpconnect.json" | head -c 300)"
	fi
fi

# ---- runqlat: the machine's run-queue latencies, then one process's: a tool of the test's naps
# The whole machine's histogram (a first run) can only be checked for plausibility: counts, and
# none in a bucket of 2^22 us (4.2 s) or more, since no wait is longer than the run (3 s). The
# second run watches only naps, which naps (each wait ends a wakeup) and then spins two threads
# on one CPU (each wait ends a preemption, seen as a switched-out task whose CO-RE-read state is
# still TASK_RUNNING): every time naps was switched out then (getrusage's counts) it was
# switched back in, one count each; and, read while naps waits after its last getrusage, it
# cannot have more counts than switches in its life (one switch in follows each) plus its two
# threads' first runs and a few preemptions between that getrusage and its wait.
live runqlat 3
"$BUILD/tests/naps" 50 1000 >/dev/null
wait $k
hist=$(grep '^{"map":"runq_hist_us",' "$out/runqlat.json")
total=$(grep -o '"value":[0-9]*' <<<"$hist" | cut -d: -f2 | awk '{s+=$1} END {print s+0}')
maxkey=$(grep -o '"key":[0-9]*' <<<"$hist" | cut -d: -f2 | sort -n | tail -1)
if [ "$total" -ge 50 ] && [ -n "$maxkey" ] && [ "$maxkey" -le 21 ]; then
	pass runqlat
else
	fail runqlat "histogram total $total (expected >= 50, the naps'), highest bucket ${maxkey:-none} (expected <= 21): $(tr '\n' ' ' <<<"$hist" | head -c 400)"
fi

# map_of NAME: the id of the map NAME among those kiln run ($k) holds
map_of() {
	local id
	for id in $(fd_ids $k map); do
		bpftool map show id "$id" 2>/dev/null | grep -q " name $1 " && echo "$id" && return
	done
}
# le4 N: N as the 4 bytes of a little-endian u32, for bpftool
le4() { echo $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

live runqlat 60      # stopped with SIGTERM once naps is done
# naps' shell blocks opening the fifo until this shell opens it for writing. Before that: the
# filter is set to naps' pid; then the stamps the programs took of every task before it are
# deleted (those not consumed meanwhile) and the histogram zeroed, so from then on it counts
# only naps' waits. naps prints its counts, then (HOLD) blocks reading the fifo: the histogram
# is read then, while naps is switched out and before anything of its exit (preemptions while
# it tears down, which no count of its own can include) has happened.
fifo="$out/naps.fifo"
rm -f "$fifo"; mkfifo "$fifo"
"$BUILD/tests/naps" 200 1000 300 HOLD <"$fifo" >"$out/naps.out" &
np=$!
filter=$(map_of only_tgid) stamps=$(map_of start) histo=$(map_of runq_hist_us)
set_ok=0
if [ -n "$filter" ] && [ -n "$stamps" ] && [ -n "$histo" ] &&
	bpftool map update id "$filter" key 0 0 0 0 value $(le4 $np); then
	for key in $(bpftool -j map dump id "$stamps" | grep -o '"key":\["0x[0-9a-f]*","0x[0-9a-f]*","0x[0-9a-f]*","0x[0-9a-f]*"\]' | tr -d '"[]' | sed 's/key://; s/,/_/g'); do
		bpftool map delete id "$stamps" key ${key//_/ } 2>/dev/null   # gone already if consumed
	done
	set_ok=1
	for slot in $(seq 0 25); do
		bpftool map update id "$histo" key $(le4 $slot) value 0 0 0 0 0 0 0 0 || set_ok=0
	done
fi
exec 3>"$fifo"
hist=
if wait_text "$out/naps.out" "$np " "$np" && [ -n "$histo" ]; then
	hist=$("$KILN" map dump "id:$histo" --json 2>&1 | tr -d ' ' | grep -o '"key":[0-9]*,"value":[0-9]*')
fi
exec 3>&-
wait $np
kill -TERM $k 2>/dev/null
wait $k
read -r _ napsw spinsw lifesw <"$out/naps.out"
total=$(grep -o '"value":[0-9]*' <<<"$hist" | cut -d: -f2 | awk '{s+=$1} END {print s+0}')
maxkey=$(grep -o '"key":[0-9]*' <<<"$hist" | cut -d: -f2 | sort -n | tail -1)
if [ $set_ok -eq 1 ] && [ "${napsw:-0}" -ge 200 ] && [ "${spinsw:-0}" -ge 5 ] &&
	[ "$total" -ge $((napsw + spinsw)) ] && [ "$total" -le $((lifesw + 7)) ] &&
	[ -n "$maxkey" ] && [ "$maxkey" -le 21 ]; then
	pass runqlat-pid
else
	fail runqlat-pid "maps only_tgid ${filter:-?}, start ${stamps:-?}, runq_hist_us ${histo:-?}, filter set to $np and the rest cleared: $set_ok; naps switched out ${napsw:-?} times napping, ${spinsw:-?} spinning, ${lifesw:-?} in all; histogram total $total (expected between $((${napsw:-0} + ${spinsw:-0})) and $((${lifesw:-0} + 7))), highest bucket ${maxkey:-none}: $(tr '\n' ' ' <<<"$hist" | head -c 400)"
fi
rm -f "$fifo"

# ---- profile: a dd reading /dev/zero is among the top stacks, its kernel stack symbolized --------
live profile 2
dd if=/dev/zero of=/dev/null bs=1M 2>/dev/null &
dd_pid=$!
wait $k
kill $dd_pid 2>/dev/null
wait $dd_pid 2>/dev/null
top=$(grep '^{"map":"counts","count":' "$out/profile.json")
# dd's stacks among the top: the first with a kernel stack (a sample whose kernel stack the
# stack map could not take, a hash collision in a busy map, has none: those add up to one key)
dd_lines=$(grep "\"pid\":$dd_pid,.*\"comm\":\"dd\"" <<<"$top")
frame=$(grep -o '"kstack":\["[A-Za-z0-9_.]*+0x' <<<"$dd_lines" | head -1 | sed 's/.*\["//; s/+0x//')
counts=$(grep -o '"count":[0-9]*' <<<"$top" | cut -d: -f2)
if [ -n "$frame" ] && grep -q " $frame\$" /proc/kallsyms && [ "$counts" = "$(sort -rn <<<"$counts")" ] &&
   [ "$(wc -l <<<"$top")" -le 10 ]; then
	pass "profile (dd's top frame $frame, $(wc -l <<<"$top") stacks by count)"
else
	fail profile "no dd (pid $dd_pid) stack with a kallsyms frame in the top 10, or not sorted: $(head -c 600 <<<"$top"); stderr: $(tr '\n' ' ' <"$out/profile.err")"
fi

# ---- xdp-count and tc-bytes on a veth whose peer is in a netns --------------------------------
net=10.202.$(($$ % 200))
ip netns add $ns && ip link add kx$$a type veth peer name kx$$b && ip link set kx$$b netns $ns &&
	ip addr add $net.1/24 dev kx$$a && ip link set kx$$a up &&
	ip -n $ns addr add $net.2/24 dev kx$$b && ip -n $ns link set kx$$b up
live xdp-count 2.5 --iface kx$$a
ip netns exec $ns ping -c 4 -i 0.2 -W 1 $net.1 >/dev/null 2>&1
wait $k
# a per-CPU array: kiln run prints each count summed over the CPUs
icmp=$(grep -o '"map":"proto_count","key":1,"value":[0-9]*}' "$out/xdp-count.json" | grep -o '[0-9]*}$' | tr -d '}')
icmp=${icmp:-0}
if [ "$icmp" -ge 4 ]; then pass xdp-count; else fail xdp-count "ICMP count $icmp, expected >= 4"; fi
live tc-bytes 2.5 --iface kx$$a --egress
ip netns exec $ns ping -c 4 -i 0.2 -W 1 $net.1 >/dev/null 2>&1
wait $k
pk=$(grep -o '"map":"egress_bytes","key":1,"value":\[.*\]' "$out/tc-bytes.json" | grep -o '"packets":[0-9]*' | cut -d: -f2 | awk '{s+=$1} END {print s+0}')
if [ "$pk" -ge 4 ]; then pass tc-bytes; else fail tc-bytes "ICMP replies counted on egress: $pk, expected >= 4"; fi

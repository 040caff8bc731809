#!/usr/bin/env bash
# progtypes.sh — every program type kiln knows loads into the kernel with the section name
# libbpf expects, through libbpf (loadobj) and through `bpftool prog loadall`. A tracing
# program (fentry, fexit, fmod_ret, kprobe, lsm) that a kernel in lockdown refuses with EPERM is reported
# SKIP with the reason, never PASS. The sk_lookup program also runs with BPF_PROG_TEST_RUN.
# Then each type without a live test elsewhere runs at its hook, in namespaces, cgroups and pins
# of the test's own (pid-suffixed, removed on exit), each proved by what its hook does:
# sockmap/sockhash redirection (sk_skb, sk_msg), sk_reuseport, sk_lookup, writable raw
# tracepoints (tests/harness/ptlive.c, through libkiln), cgroup device/sysctl/sockopt,
# flow_dissector, sk_lookup and sk_msg through `kiln run`, lwt and seg6local routes through
# `ip route ... pinned` after `kiln load`, and sched_act by test run (its tc action needs act_bpf).
set -u
pin=/sys/fs/bpf/kiln-progtypes-$$
trap 'rm -rf "$pin"' EXIT
src="$ROOT/tests/progtypes/all-types.lisp"
obj="$BUILD/tests/progtypes/all-types.o"
mkdir -p "$(dirname "$obj")"
if ! err=$("$KILN" compile "$src" -o "$obj" 2>&1); then
	echo "FAIL progtypes/compile: $err"
	exit 0
fi
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
lockdown=$(cat /sys/kernel/security/lockdown 2>/dev/null | grep -o '\[[a-z]*\]')
declare -A want_sec=(
	[on_xdp]=xdp [on_tc]=tc [on_socket]=socket [on_tracepoint]=tracepoint/syscalls/sys_enter_getpid
	[on_raw_tp]=raw_tracepoint/sys_enter [on_fentry]=fentry/do_nanosleep [on_fexit]=fexit/do_nanosleep
	[on_fmod_ret]=fmod_ret/bpf_modify_return_test
	[on_uprobe]=uprobe [on_uretprobe]=uretprobe [on_cgroup_skb]=cgroup_skb/ingress
	[on_cgroup_egress]=cgroup_skb/egress [on_perf_event]=perf_event [on_kprobe]=kprobe/do_nanosleep
	[on_exec]=tracepoint/sched/sched_process_exec [on_lsm]=lsm/file_open [on_sk_lookup]=sk_lookup
	[on_cgroup_sock]=cgroup/sock [on_post_bind4]=cgroup/post_bind4 [on_connect4]=cgroup/connect4
	[on_sendmsg6]=cgroup/sendmsg6 [on_sock_ops]=sockops [on_whistler_sockops]=sockops
	[on_sk_parser]=sk_skb/stream_parser [on_sk_verdict]=sk_skb/stream_verdict [on_sk_msg]=sk_msg
	[on_action]=action [on_lwt_in]=lwt_in [on_lwt_out]=lwt_out [on_lwt_xmit]=lwt_xmit
	[on_lwt_seg6local]=lwt_seg6local [on_cgroup_dev]=cgroup/dev [on_cgroup_sysctl]=cgroup/sysctl
	[on_getsockopt]=cgroup/getsockopt [on_setsockopt]=cgroup/setsockopt
	[on_flow_dissector]=flow_dissector [on_raw_tp_w]=raw_tp.w/bpf_test_finish
)
refused=()
secs=$(llvm-readelf -S "$obj" 2>/dev/null || readelf -S "$obj")
for prog in "${!want_sec[@]}"; do
	sec=${want_sec[$prog]}
	if ! grep -q " $sec " <<<"$secs"; then
		echo "FAIL progtypes/$prog: no section '$sec' in the object"
		continue
	fi
	out=$("$BUILD/tests/loadobj" "$obj" --prog "$prog" 2>&1); rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS progtypes/$prog ($sec)"
	elif [ $rc -eq 3 ] && [[ $sec == fentry/* || $sec == fexit/* || $sec == fmod_ret/* || $sec == kprobe/* || $sec == lsm/* ]]; then
		echo "SKIP progtypes/$prog: the kernel refuses $sec programs with EPERM (lockdown ${lockdown:-unknown}); compiled and checked in the ELF only"
		refused+=("${prog//_/-}")
	else
		echo "FAIL progtypes/$prog: $(tail -2 <<<"$out" | tr '\n' ' ')"
	fi
done

# bpftool loads the whole object at once, so the programs this kernel refuses (above) are
# left out of the source first: each defprog runs to the next top-level form or comment.
loadable="$BUILD/tests/progtypes/loadable"
awk -v skip=" ${refused[*]} " '
	/^[(;]/ { drop = 0 }
	/^\(defprog / && index(skip, " " $2 " ") { drop = 1 }
	!drop' "$src" >"$loadable.lisp"
nprogs=$(grep -c '^(defprog ' "$loadable.lisp")
if ! err=$("$KILN" compile "$loadable.lisp" -o "$loadable.o" 2>&1); then
	echo "FAIL progtypes/bpftool-loadall: compile: $(head -1 <<<"$err")"
elif ! err=$(bpftool prog loadall "$loadable.o" "$pin" 2>&1); then
	echo "FAIL progtypes/bpftool-loadall: $(grep -v '^libbpf: -- ' <<<"$err" | tail -3 | tr '\n' ' ')"
elif [ "$(ls "$pin" | wc -l)" -ne "$nprogs" ]; then
	echo "FAIL progtypes/bpftool-loadall: $nprogs programs, $(ls "$pin" | wc -l) pinned"
else
	echo "PASS progtypes/bpftool-loadall ($nprogs programs${refused[*]:+; without ${refused[*]}})"
fi
rm -rf "$pin"

# sk_lookup reads its context: SK_DROP (0) only for TCP 10.0.0.1:12345 -> 10.0.0.2:8080
for run in "12345 10.0.0.2 8080 0" "12345 10.0.0.2 8081 1" "12346 10.0.0.2 8080 1" "12345 10.0.0.3 8080 1"; do
	read -r rport lip lport want <<<"$run"
	got=$("$BUILD/tests/sklookup" "$obj" on_sk_lookup 10.0.0.1 "$rport" "$lip" "$lport" 2>&1)
	if [ "$got" == "retval $want" ]; then
		echo "PASS progtypes/sk-lookup-run 10.0.0.1:$rport->$lip:$lport ($got)"
	else
		echo "FAIL progtypes/sk-lookup-run 10.0.0.1:$rport->$lip:$lport: expected retval $want, got '$(tr '\n' ' ' <<<"$got")'"
	fi
done

# ---- the socket program types live (tests/harness/ptlive.c): each attached the way kiln run
# attaches it (libkiln), proved by traffic on loopback ----
# ptlive_run NAME ARGS...: ptlive's "ok/fail CHECK: ..." lines as PASS/FAIL progtypes/CHECK
ptlive_run() {
	local name=$1 src="$ROOT/tests/progtypes/$1.lisp" o="$BUILD/tests/progtypes/$1.o" out line
	shift
	if ! out=$("$KILN" compile "$src" -o "$o" 2>&1); then
		echo "FAIL progtypes/$name-compile: $(head -1 <<<"$out")"
		return
	fi
	out=$(timeout 30 "$@" "$o" 2>&1)
	local rc=$? n=0
	while IFS= read -r line; do
		case $line in
		"ok "*) echo "PASS progtypes/${line#ok }"; n=$((n + 1)) ;;
		"fail "*) echo "FAIL progtypes/${line#fail }"; n=$((n + 1)) ;;
		esac
	done <<<"$out"
	[ $rc -eq 0 ] || [ $n -gt 0 ] || echo "FAIL progtypes/$name: ptlive exited $rc: $(tail -2 <<<"$out" | tr '\n' ' ')"
}
ptlive_run sockmap "$BUILD/tests/ptlive" sockmap
ptlive_run reuseport "$BUILD/tests/ptlive" reuseport
# the writable tracepoint reachable from any kernel with BPF_PROG_TEST_RUN: bpf_test_finish
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "'btf_trace_bpf_test_finish'"; then
	ptlive_run rawtpw "$BUILD/tests/ptlive" rawtpw
else
	echo "SKIP progtypes/raw-tracepoint-writable: the kernel's BTF has no writable tracepoint bpf_test_finish (btf_trace_bpf_test_finish)"
fi

# sk_lookup in a network namespace of the test's own, given to the attach as a file
ns=kiln-pt-$$
cleanup_ns() { ip netns del "$ns" 2>/dev/null; }
trap 'rm -rf "$pin"; cleanup_ns' EXIT
if ! ip netns add "$ns" 2>/dev/null || ! ip -n "$ns" link set lo up; then
	echo "SKIP progtypes/sk-lookup-steer: cannot make a network namespace (ip netns add)"
else
	ptlive_run sklookup ip netns exec "$ns" "$BUILD/tests/ptlive" sklookup "/run/netns/$ns"
fi

# ---- kiln run attaching the new types itself, each proved by what its hook does ----
# run_start NAME SRC ARGS...: `kiln run SRC ARGS` in the background until it says it runs
# (10 s at most); run_stop: SIGINT, and its maps and messages in $tmp/NAME.out/.err
tmp=$(mktemp -d)
fdns=kiln-pt-fd-$$ actns=kiln-pt-act-$$ lwns=kiln-pt-lwt-$$ slns=kiln-pt-sl-$$ lwpin=/sys/fs/bpf/kiln-pt-lwt-$$
s6a=kiln-pt-s6a-$$ s6b=kiln-pt-s6b-$$ s6pin=/sys/fs/bpf/kiln-pt-s6-$$ s6if=kps6$$ rdns=kiln-pt-rd-$$
cgroot=
. "$ROOT/tests/harness/cgroup2.sh"
cgroot=$(cgroup2_root)
mycgs=()
cleanup_all() {
	rm -rf "$pin"
	cleanup_ns
	for n in "$fdns" "$actns" "$lwns" "$slns" "$s6a" "$s6b" "$rdns"; do ip netns del "$n" 2>/dev/null; done
	for d in "$lwpin" "$s6pin"; do [ -d "$d" ] && "$KILN" unload "$d" >/dev/null 2>&1; done
	[ -n "${run_pid:-}" ] && kill "$run_pid" 2>/dev/null
	for c in "${mycgs[@]}"; do rmdir "$c" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup_all EXIT
run_start() {
	local name=$1 src=$2
	shift 2
	"$KILN" run "$src" --duration 30 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	run_pid=$!
	local i
	for ((i = 0; i < 200; i++)); do
		grep -q "kiln run: running" "$tmp/$name.err" && return 0
		kill -0 "$run_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "FAIL progtypes/$name: kiln run did not start: $(tail -2 "$tmp/$name.err" | tr '\n' ' ')"
	kill "$run_pid" 2>/dev/null
	wait "$run_pid" 2>/dev/null
	run_pid=
	return 1
}
run_stop() {
	kill -INT "$run_pid" 2>/dev/null
	wait "$run_pid"
	local rc=$?
	run_pid=
	return $rc
}
# in_cg CG CMD...: CMD as a process of the cgroup CG
in_cg() { bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$@"; }

# cg_case NAME EXPECT TRIGGER...: kiln run tests/progtypes/NAME.lisp on a cgroup of its own,
# TRIGGER run in it must print EXPECT (an extended regex), and after kiln exits nothing of
# it stays on the cgroup
cg_case() {
	local name=$1 want=$2
	shift 2
	local cg="$cgroot/kiln-pt-$$-$name"
	mkdir "$cg" && mycgs+=("$cg") || { echo "FAIL progtypes/$name: mkdir $cg"; return; }
	run_start "$name" "$ROOT/tests/progtypes/$name.lisp" --cgroup "$cg" || return
	local got
	got=$(in_cg "$cg" "$@" 2>&1)
	run_stop
	local left
	left=$(bpftool cgroup show "$cg" 2>/dev/null | tail -n +2 | wc -l)
	if ! grep -Eq "$want" <<<"$got"; then
		echo "FAIL progtypes/$name: expected /$want/, got '$(tr '\n' ' ' <<<"$got")' ($(tr '\n' ' ' <"$tmp/$name.err"))"
	elif [ "$left" -ne 0 ]; then
		echo "FAIL progtypes/$name: $left programs left on $cg after kiln run exited"
	else
		echo "PASS progtypes/$name: $(tr '\n' ' ' <<<"$got")($(grep -o 'attached.*' "$tmp/$name.err" | head -1); detached on exit)"
	fi
}
if [ -z "$cgroot" ]; then
	echo "SKIP progtypes/cgdev: no cgroup v2 hierarchy mounted"
	echo "SKIP progtypes/cgsysctl: no cgroup v2 hierarchy mounted"
	echo "SKIP progtypes/cgsockopt: no cgroup v2 hierarchy mounted"
else
	# making a /dev/null node (char 1:3) is denied, a /dev/zero node (1:5) allowed (this
	# kernel asks the device cgroup at mknod; opening a node is not checked everywhere)
	cg_case cgdev '^null-denied zero-made$' \
		bash -c 'mknod "$1/null" c 1 3 2>/dev/zero && echo -n "null-made " || echo -n "null-denied "; mknod "$1/zero" c 1 5 && echo zero-made' _ "$tmp"
	# kernel.ostype unreadable, kernel.osrelease readable
	cg_case cgsysctl 'ostype-denied osrelease=[0-9]' \
		bash -c 'read -r a </proc/sys/kernel/ostype 2>/dev/zero && echo -n "ostype=$a " || echo -n "ostype-denied "; read -r b </proc/sys/kernel/osrelease && echo "osrelease=$b"'
	# getsockopt(SO_MARK) answers "KILN" inside the cgroup (0 outside)
	cg_case cgsockopt '^mark=0x4b494c4e$' \
		python3 -c 'import socket; s = socket.socket(); print("mark=%#x" % s.getsockopt(socket.SOL_SOCKET, socket.SO_MARK))'
fi

# ---- flow_dissector: kiln run --netns on a namespace of the test's own; RPS on its loopback
# has the kernel dissect each packet received there (3 UDP datagrams and the 3 ICMP errors
# they draw) ----
nsen() { nsenter --net="/run/netns/$1" "${@:2}"; }
if ! ip netns add "$fdns" 2>/dev/null; then
	echo "SKIP progtypes/flow-dissector: cannot make a network namespace (ip netns add)"
else
	nsen "$fdns" ip link set lo up
	if ! ip netns exec "$fdns" sh -c 'echo 1 >/sys/class/net/lo/queues/rx-0/rps_cpus' 2>/dev/null; then
		echo "SKIP progtypes/flow-dissector: no RPS on this kernel to make it dissect loopback packets"
	elif run_start flow-dissector "$ROOT/tests/progtypes/flowdis.lisp" --netns "/run/netns/$fdns"; then
		sent=$(nsen "$fdns" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3): s.sendto(b"x", ("127.0.0.1", 9))
print(3)' 2>&1)
		run_stop
		ipv4=$(awk '$1 == "1" && $2 == "=>" { print $3 }' "$tmp/flow-dissector.out")
		left=$(nsen "$fdns" bpftool net show 2>/dev/null | sed -n '/^flow_dissector:/,$p' | grep -c '^id')
		if [ "$sent" != 3 ] || [ "${ipv4:-0}" -lt 3 ]; then
			echo "FAIL progtypes/flow-dissector: sent '$sent', the program saw ${ipv4:-no} IPv4 packets ($(tr '\n' ' ' <"$tmp/flow-dissector.err"))"
		elif [ "$left" -ne 0 ]; then
			echo "FAIL progtypes/flow-dissector: still attached to $fdns after kiln run exited"
		else
			echo "PASS progtypes/flow-dissector: $ipv4 IPv4 packets dissected in netns $fdns ($(grep -o 'attached.*' "$tmp/flow-dissector.err" | head -1); detached on exit)"
		fi
	fi
	ip netns del "$fdns"
fi

# ---- sched_act: a tc action. This kernel may lack act_bpf (CONFIG_NET_ACT_BPF), the only
# hook there is for one: then the program is proved by BPF_PROG_TEST_RUN alone ----
for run in "ipv4-udp 2" "ipv4-tcp-syn 0"; do
	read -r sample want <<<"$run"
	got=$("$KILN" test-run "$ROOT/tests/progtypes/action.lisp" --data-sample "$sample" 2>&1)
	if grep -q "retval $want " <<<"$got"; then
		echo "PASS progtypes/sched-act-run $sample (retval $want)"
	else
		echo "FAIL progtypes/sched-act-run $sample: expected retval $want, got '$(tr '\n' ' ' <<<"$got")'"
	fi
done
if ! out=$("$KILN" compile "$ROOT/tests/progtypes/action.lisp" -o "$BUILD/tests/progtypes/action.o" 2>&1); then
	echo "FAIL progtypes/sched-act-attach: compile: $(head -1 <<<"$out")"
elif ip netns add "$actns" 2>/dev/null; then
	nsen "$actns" tc qdisc add dev lo clsact 2>/dev/null
	out=$(nsen "$actns" tc filter add dev lo ingress protocol all prio 1 u32 match u32 0 0 \
		action bpf obj "$BUILD/tests/progtypes/action.o" sec action 2>&1)
	if grep -q "Failed to load TC action module\|Unknown action\|unknown action" <<<"$out"; then
		echo "SKIP progtypes/sched-act-attach: this kernel has no bpf tc action (act_bpf, CONFIG_NET_ACT_BPF): $(head -1 <<<"$out")"
	elif [ -n "$out" ]; then
		echo "FAIL progtypes/sched-act-attach: tc filter ... action bpf: $(tr '\n' ' ' <<<"$out")"
	else
		# the action drops IPv4 UDP arriving on lo: a datagram sent there never comes
		got=$(nsen "$actns" ip link set lo up && nsen "$actns" python3 -c '
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0)); r.settimeout(1)
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", r.getsockname())
try: r.recv(1); print("arrived")
except socket.timeout: print("dropped")' 2>&1)
		if [ "$got" == dropped ]; then
			echo "PASS progtypes/sched-act-attach: a UDP datagram on lo dropped by the bpf action"
		else
			echo "FAIL progtypes/sched-act-attach: expected the datagram dropped, got '$got'"
		fi
	fi
	ip netns del "$actns"
fi

# ---- lwt_in/out/xmit: `ip route ... encap bpf HOOK pinned PROG` in a netns of the test's own,
# the programs pinned by kiln load (and removed by kiln unload); ip runs with nsenter --net
# only, so that bpffs stays in view ----
if ! ip netns add "$lwns" 2>/dev/null; then
	echo "SKIP progtypes/lwt: cannot make a network namespace (ip netns add)"
elif ! out=$("$KILN" load "$ROOT/tests/progtypes/lwt.lisp" --pin "$lwpin" 2>&1); then
	echo "FAIL progtypes/lwt: kiln load: $(tr '\n' ' ' <<<"$out")"
	ip netns del "$lwns"
else
	nsen "$lwns" ip link set lo up
	nsen "$lwns" ip addr add 10.99.9.9/32 dev lo
	# lwt_in runs on the input route of a packet that is forwarded
	nsen "$lwns" sysctl -qw net.ipv4.conf.all.forwarding=1
	out=$(nsen "$lwns" ip route add 10.99.1.0/24 dev lo encap bpf out pinned "$lwpin/progs/count_out" 2>&1 &&
	      nsen "$lwns" ip route add 10.99.2.0/24 dev lo encap bpf xmit pinned "$lwpin/progs/drop_discard" 2>&1 &&
	      nsen "$lwns" ip route add 10.99.3.0/24 dev lo src 10.99.9.9 encap bpf in pinned "$lwpin/progs/count_in" 2>&1)
	if [ -n "$out" ]; then
		echo "FAIL progtypes/lwt: ip route ... encap bpf: $(tr '\n' ' ' <<<"$out")"
	else
		sent=$(nsen "$lwns" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for net in (1, 2, 3):
    r = []
    for i in range(3):
        try: s.sendto(b"x", ("10.99.%d.1" % net, 9)); r.append("sent")
        except OSError as e: r.append(e.strerror.replace(" ", "-"))
    print(" ".join(r))' 2>&1)
		dump=$("$KILN" map dump "$lwpin/maps/runs" 2>&1)
		count() { awk -v k="$1" '$1 == k && $2 == "=>" { print $3 }' <<<"$dump"; }
		check_lwt() {   # NAME LINE-OF-SENT WANT-SENT SLOT
			local line
			line=$(sed -n "$2p" <<<"$sent")
			if [ "$line" == "$3" ] && [ "$(count "$4")" == 3 ]; then
				echo "PASS progtypes/$1: 3 packets of its route counted; senders saw: $line"
			else
				echo "FAIL progtypes/$1: senders saw '$line' (expected '$3'), counted '$(count "$4")' of 3"
			fi
		}
		check_lwt lwt-out 1 "sent sent sent" 1
		check_lwt lwt-xmit 2 "Operation-not-permitted Operation-not-permitted Operation-not-permitted" 2
		check_lwt lwt-in 3 "sent sent sent" 0
	fi
	ip netns del "$lwns"
	"$KILN" unload "$lwpin" >/dev/null 2>&1 || echo "FAIL progtypes/lwt: kiln unload $lwpin"
fi

# ---- kiln run attaching sk_lookup (--netns) and the sockmap programs (--sockmap) itself ----

if ! ip netns add "$slns" 2>/dev/null; then
	echo "SKIP progtypes/run-sk-lookup: cannot make a network namespace (ip netns add)"
else
	nsen "$slns" ip link set lo up
	# a listener on port 7008 of the namespace, which the program refuses connections to
	# (dial.py: "connected" or the error, for each connection asked for on stdin)
	cat >"$tmp/dial.py" <<'PY'
import socket, sys
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 7008)); l.listen(8)
print("listening", flush=True)
for line in sys.stdin:
    try: socket.create_connection(("127.0.0.1", 7008), timeout=3); print("connected", flush=True)
    except OSError as e: print(e.strerror, flush=True)
PY
	coproc DIAL { nsen "$slns" python3 "$tmp/dial.py" 2>&1; }
	read -r -t 10 ready <&"${DIAL[0]}"
	dial() { echo >&"${DIAL[1]}"; read -r -t 10 ans <&"${DIAL[0]}"; echo "$ans"; }
	if [ "$ready" != listening ]; then
		echo "FAIL progtypes/run-sk-lookup: no listener in $slns: $ready"
	elif run_start run-sk-lookup "$ROOT/tests/progtypes/sklookup.lisp" --netns "/run/netns/$slns"; then
		during=$(dial)
		run_stop
		after=$(dial)
		if [ "$during" == "Connection refused" ] && [ "$after" == connected ]; then
			echo "PASS progtypes/run-sk-lookup: port 7008 refused while kiln run ran, connected after ($(grep -o 'attached.*' "$tmp/run-sk-lookup.err"))"
		else
			echo "FAIL progtypes/run-sk-lookup: while attached '$during' (expected Connection refused), after '$after'"
		fi
	fi
	exec {DIAL[1]}>&-
	wait "$DIAL_PID" 2>/dev/null
	ip netns del "$slns"
fi
# two maps: kiln run asks which; named, all three programs attach to it, and go at exit
got=$("$KILN" run "$ROOT/tests/progtypes/sockmap.lisp" --duration 0.1 2>&1)
if [ $? -ne 0 ] && grep -q "name the sockmap or sockhash to attach to (the object has 2)" <<<"$got"; then
	echo "PASS progtypes/run-sockmap-which: two sockmaps and no --sockmap refused"
else
	echo "FAIL progtypes/run-sockmap-which: '$(tr '\n' ' ' <<<"$got")'"
fi
got=$("$KILN" run "$ROOT/tests/progtypes/sockmap.lisp" --sockmap msgs --duration 0.1 2>&1)
if [ $? -eq 0 ] && [ "$(grep -c 'on map msgs$' <<<"$got")" -eq 3 ]; then
	echo "PASS progtypes/run-sockmap: kiln run attached 3 programs to the sockhash msgs and detached them"
else
	echo "FAIL progtypes/run-sockmap: '$(tr '\n' ' ' <<<"$got")'"
fi

# ---- lwt_seg6local: an End.BPF endpoint in netns B for segment fc00::100, reached over a veth
# pair from netns A by UDP datagrams carrying a segment routing header ----
if ! ip netns add "$s6a" 2>/dev/null || ! ip netns add "$s6b" 2>/dev/null; then
	echo "SKIP progtypes/lwt-seg6local: cannot make network namespaces (ip netns add)"
elif ! nsen "$s6a" ip link add "${s6if}a" type veth peer name "${s6if}b" netns "$s6b" 2>/dev/null; then
	echo "SKIP progtypes/lwt-seg6local: no veth devices in this kernel"
elif ! out=$("$KILN" load "$ROOT/tests/progtypes/seg6.lisp" --pin "$s6pin" 2>&1); then
	echo "FAIL progtypes/lwt-seg6local: kiln load: $(tr '\n' ' ' <<<"$out")"
else
	nsen "$s6a" ip link set "${s6if}a" up
	nsen "$s6b" ip link set "${s6if}b" up
	nsen "$s6a" ip -6 addr add fc00:a::1/64 dev "${s6if}a" nodad
	nsen "$s6b" ip -6 addr add fc00:a::2/64 dev "${s6if}b" nodad
	nsen "$s6a" ip -6 route add fc00::/16 via fc00:a::2
	nsen "$s6b" sysctl -qw net.ipv6.conf.all.forwarding=1
	nsen "$s6b" sysctl -qw net.ipv6.conf.all.seg6_enabled=1
	nsen "$s6b" sysctl -qw "net.ipv6.conf.${s6if}b.seg6_enabled=1"
	if ! out=$(nsen "$s6b" ip -6 route add fc00::100/128 encap seg6local action End.BPF \
		endpoint pinned "$s6pin/progs/count_segment" dev "${s6if}b" 2>&1); then
		echo "SKIP progtypes/lwt-seg6local: the kernel refuses an End.BPF route (CONFIG_IPV6_SEG6_BPF?): $(head -1 <<<"$out")"
	else
		# segments: fc00::100 (the endpoint, first), then fc00::200 (sendto's address, last)
		sent=$(nsen "$s6a" python3 -c '
import socket, struct
srh = struct.pack("BBBBBBH", 0, 4, 4, 1, 1, 0, 0) + bytes(16) + socket.inet_pton(socket.AF_INET6, "fc00::100")
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, 57, srh)   # IPV6_RTHDR
for i in range(3): s.sendto(b"x", ("fc00::200", 9))
print(3)' 2>&1)
		seen=0
		for ((i = 0; i < 100 && seen < 3; i++)); do
			seen=$("$KILN" map dump "$s6pin/maps/runs" 2>/dev/null | awk '$1 == "0" && $2 == "=>" { print $3 }')
			seen=${seen:-0}
			[ "$seen" -ge 3 ] || sleep 0.05
		done
		if [ "$sent" == 3 ] && [ "$seen" -eq 3 ]; then
			echo "PASS progtypes/lwt-seg6local: 3 datagrams through segment fc00::100 ran its End.BPF program"
		else
			echo "FAIL progtypes/lwt-seg6local: sent '$sent', the endpoint program counted $seen"
		fi
	fi
fi
ip netns del "$s6a" 2>/dev/null
ip netns del "$s6b" 2>/dev/null
[ -d "$s6pin" ] && "$KILN" unload "$s6pin" >/dev/null 2>&1

# ---- a skeleton's NAME__attach takes the programs whose section names their hook (the
# writable raw tracepoint), not those with no hook of kiln's (lwt routes) or needing a netns ----
skel_attached() { "$KILN" gen skeleton "$ROOT/tests/progtypes/$1.lisp" 2>&1 | grep -o "__[a-z_]*__attach(skel, NULL)" | tr '\n' ' '; }
got="lwt:[$(skel_attached lwt)] sklookup:[$(skel_attached sklookup)] rawtpw:[$(skel_attached rawtpw)]"
if [ "$got" == "lwt:[] sklookup:[] rawtpw:[__set_result__attach(skel, NULL) ]" ]; then
	echo "PASS progtypes/skeleton-attach: $got"
else
	echo "FAIL progtypes/skeleton-attach: $got"
fi

# ---- kiln run alone redirecting between two connections: a sock-ops program on a cgroup of
# the test's own fills the sockhash, an sk_msg program on it crosses the bytes over
# (redirect.lisp); the connections are made in a netns of the test's own (ports 7101/7102) ----
if [ -z "$cgroot" ]; then
	echo "SKIP progtypes/run-sk-msg-redirect: no cgroup v2 hierarchy mounted"
elif ! ip netns add "$rdns" 2>/dev/null; then
	echo "SKIP progtypes/run-sk-msg-redirect: cannot make a network namespace (ip netns add)"
else
	nsen "$rdns" ip link set lo up
	rdcg="$cgroot/kiln-pt-$$-redirect"
	if mkdir "$rdcg" && mycgs+=("$rdcg") &&
	   run_start run-sk-msg-redirect "$ROOT/tests/progtypes/redirect.lisp" --cgroup "$rdcg"; then
		got=$(in_cg "$rdcg" nsenter --net="/run/netns/$rdns" python3 "$ROOT/tests/harness/crossover.py" 2>&1)
		run_stop
		if [ "$got" == "port-7102-server:kiln_run_crossed port-7101-server:nothing" ]; then
			echo "PASS progtypes/run-sk-msg-redirect: written to port 7101, read from port 7102's connection ($(grep -o 'attached.*' "$tmp/run-sk-msg-redirect.err" | tr '\n' ' '))"
		else
			echo "FAIL progtypes/run-sk-msg-redirect: '$got' ($(tr '\n' ' ' <"$tmp/run-sk-msg-redirect.err"))"
		fi
	fi
	ip netns del "$rdns"
fi
# a sockmap attachment is no link: kiln load --attach says so and pins nothing
smpin=/sys/fs/bpf/kiln-pt-sm-$$
got=$("$KILN" load "$ROOT/tests/progtypes/sockmap.lisp" --pin "$smpin" --attach --sockmap socks 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "parse_whole (sk_skb/stream_parser on map socks) is no link, which cannot be pinned" <<<"$got" &&
   [ ! -e "$smpin" ]; then
	echo "PASS progtypes/load-sockmap-no-pin: refused, nothing pinned"
else
	echo "FAIL progtypes/load-sockmap-no-pin: status $rc, '$(tr '\n' ' ' <<<"$got")'$([ -e "$smpin" ] && echo ", $smpin left")"
	"$KILN" unload "$smpin" --force >/dev/null 2>&1
fi
# a program kiln has no hook for is loaded, and kiln run says what attaches it
got=$("$KILN" run "$ROOT/tests/progtypes/lwt.lisp" --duration 0.1 2>&1)
if grep -q "drop_discard (section lwt_xmit) has no hook to attach to; loaded only (a route's: ip route add ... encap bpf xmit pinned PATH)" <<<"$got"; then
	echo "PASS progtypes/run-no-hook-hint: lwt programs loaded, with how to attach them"
else
	echo "FAIL progtypes/run-no-hook-hint: '$(tr '\n' ' ' <<<"$got")'"
fi

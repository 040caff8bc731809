#!/usr/bin/env bash
# progtypes.sh — every program type of the compiler core loads into the kernel with the
# section name libbpf expects. A tracing program (fentry, fexit, kprobe) that a kernel in
# lockdown refuses with EPERM is reported SKIP with the reason, never PASS.
set -u
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
	[on_uprobe]=uprobe [on_uretprobe]=uretprobe [on_cgroup_skb]=cgroup_skb/ingress
	[on_cgroup_egress]=cgroup_skb/egress [on_perf_event]=perf_event [on_kprobe]=kprobe/do_nanosleep
	[on_exec]=tracepoint/sched/sched_process_exec
)
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
	elif [ $rc -eq 3 ] && [[ $sec == fentry/* || $sec == fexit/* || $sec == kprobe/* ]]; then
		echo "SKIP progtypes/$prog: the kernel refuses $sec programs with EPERM (lockdown ${lockdown:-unknown}); compiled and checked in the ELF only"
	else
		echo "FAIL progtypes/$prog: $(tail -2 <<<"$out" | tr '\n' ' ')"
	fi
done

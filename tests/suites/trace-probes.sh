#!/usr/bin/env bash
# trace-probes.sh — `kiln trace`'s probe kinds and command-line options (src/trace/probes.c,
# src/cli/trace_list.c, trace_info.c): a raw tracepoint counts the helper's own syscalls
# (exactly, against the tracepoint of the same syscall) in a trace that -p ends when the
# helper exits; software:page-faults of a command; hardware events attached or refused with
# the event and the errno text; kprobe and uprobe wildcards expanded to exactly what -l
# lists; uprobe offsets and addresses live on bash's echo builtin; USDT probes of libstdc++
# (a C++ program built here throws N times) and of python (a semaphore); kfunc/kretfunc compiled
# (typed args->NAME, retval) and refused at load by lockdown; the options bpftrace's runtime
# tests use (-p checks, --version, -h, a bad flag, --info, --include, -l of every kind).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
tmp=$(mktemp -d)
hp=
trap '[ -n "$hp" ] && kill $hp 2>/dev/null; rm -rf "$tmp"' EXIT
SUITE=trace-probes
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/trace/wait.sh"   # wait_for FILE PATTERN SECONDS
has() {   # name, pattern, text: passes when the text has the pattern (grep -E)
	if grep -qE -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "no /$2/ in: $(head -c 600 <<<"$3")"; fi
}

# ---- rawtracepoint: the helper's getppid calls, ended by -p when the helper exits ----------
# sys_enter's arguments are (struct pt_regs *regs, long id); 110 is getppid on x86-64.
N=9
if [ "$(uname -m)" = x86_64 ]; then
	python3 tests/trace/helper.py "$tmp/ready" $N 1 &
	hp=$!
	# (probes attach in the order written: "ready" comes once the others are attached; the
	# shell a python3 shim may run calls getppid too, hence comm)
	timeout 30 "$KILN" trace -p $hp -e '
rawtracepoint:sys_enter /pid == '$hp' && arg1 == 110 && comm == "python3"/ { @raw[probe, arg1] = count(); }
tracepoint:syscalls:sys_enter_getppid /pid == '$hp' && comm == "python3"/ { @tp = count(); }
tracepoint:syscalls:sys_enter_getpgid /pid == '$hp'/ { printf("ready\n"); }' >"$tmp/raw.out" 2>"$tmp/raw.err" &
	kp=$!
	if wait_for "$tmp/raw.out" '^ready' 15; then
		touch "$tmp/ready"
		wait $hp; hp=
		wait $kp; rc=$?   # no exit(): the helper's exit ends the trace (-p)
		out=$(cat "$tmp/raw.out")
		check raw-status 0 "$rc"
		check raw-count "@raw[rawtracepoint:sys_enter, 110]: $N" "$(grep '^@raw' <<<"$out")"
		check raw-same-as-tracepoint "@tp: $N" "$(grep '^@tp' <<<"$out")"
	else
		fail raw "the trace never reported ready: $(cat "$tmp/raw.out" "$tmp/raw.err")"
		kill $kp 2>/dev/null
	fi
else
	echo "SKIP $SUITE/raw: getppid's number (110) is x86-64's"
fi
err=$("$KILN" trace -e 'rawtracepoint:sys_enter { @ = arg5; }' 2>&1)
has raw-arg-count "arg5: raw tracepoint sys_enter has 2 arguments" "$err"

# ---- software and hardware events ----------------------------------------------------------
# dd fills its 8 MiB buffer: at least 2048 pages fault in, in the command itself
out=$(timeout 20 "$KILN" trace -e 'software:page-faults:1 /pid == cpid/ { @faults = count(); }
software:faults:100 /pid == cpid/ { @sampled = count(); }' -c 'dd if=/dev/zero of=/dev/null bs=8M count=1 status=none' 2>&1)
faults=$(sed -n 's/^@faults: //p' <<<"$out")
sampled=$(sed -n 's/^@sampled: //p' <<<"$out")
if [ -n "$faults" ] && [ "$faults" -ge 2048 ] && [ -n "$sampled" ] && [ "$sampled" -ge 20 ] &&
	[ "$sampled" -le $((faults / 100 + 1)) ]; then
	pass software-page-faults
else
	fail software-page-faults "want @faults >= 2048 and @sampled about @faults/100: $out"
fi
out=$(timeout 20 "$KILN" trace -e 'hardware:cache-misses:1000 { @ = count(); }' -c true 2>&1)
rc=$?
if [ -e /sys/bus/event_source/devices/cpu ]; then
	check hardware-attached 0 "$rc"
else
	check hardware-refused-status 1 "$rc"
	has hardware-refused-reason "attaching hardware:cache-misses:1000: .*perf_event_open \(cache-misses\) on CPU [0-9]+: No such file or directory" "$out"
fi
has software-unknown "no software event 'nope' \(there are: alignment-faults" "$("$KILN" trace -e 'software:nope {}' 2>&1)"

# ---- kprobe wildcards and offsets (this kernel attaches no kprobes: compiled only) ---------
n_list=$("$KILN" trace -l 'kprobe:vfs_*' | wc -l)
n_progs=$("$KILN" trace -d -e 'kprobe:vfs_* { @[func] = count(); }' | grep -c '(:type :kprobe :section "kprobe/vfs_')
if [ "$n_list" -ge 10 ] && [ "$n_list" = "$n_progs" ]; then pass kprobe-wildcard
else fail kprobe-wildcard "-l lists $n_list vfs_* functions, -d has $n_progs kprobes"; fi
has kprobe-offset 'section "kprobe/vfs_read\+4"' "$("$KILN" trace -d -e 'kprobe:vfs_read+4 { @ = count(); }')"
has kprobe-parts "kprobe probe type requires 1 argument" "$("$KILN" trace -e 'kprobe:syscalls:sys_exit_nanosleep {}' 2>&1)"
"$KILN" trace --dry-run -e 'kprobe:no_such_fn_* { @ = count(); }' >/dev/null 2>"$tmp/none.err"
has kprobe-wildcard-none "no probes to attach" "$(cat "$tmp/none.err")"

# ---- uprobes: wildcards, offsets, addresses --------------------------------------------------
n_list=$("$KILN" trace -l 'uprobe:libc:getaddr*' | wc -l)
n_progs=$("$KILN" trace -d -e 'uprobe:libc:getaddr* { @ = count(); }' | grep -c ':type :uprobe')
if [ "$n_list" -ge 2 ] && [ "$n_list" = "$n_progs" ]; then pass uprobe-wildcard
else fail uprobe-wildcard "-l lists $n_list getaddr* functions, -d has $n_progs uprobes"; fi
has uprobe-list-file "^uprobe:/[^ ]*bash:echo_builtin$" "$("$KILN" trace -l 'uprobe:/bin/bash:echo_b*')"
# echo_builtin at +0, by its address and plainly: three echos, three hits each
addr=$("$KILN" trace -d -e 'uprobe:/bin/bash:echo_builtin { }' >/dev/null &&
	readelf -Ws /bin/bash | awk '$8 == "echo_builtin" && $4 == "FUNC" { print "0x" $2; exit }')
if [ -n "$addr" ]; then
	out=$(timeout 20 "$KILN" trace -e "uprobe:/bin/bash:echo_builtin+0 /pid == cpid/ { @off = count(); }
uprobe:/bin/bash:$addr /pid == cpid/ { @addr[probe] = count(); }
uprobe:/bin/bash:echo_builtin /pid == cpid/ { @plain = count(); }" -c '/bin/bash -c "echo a; echo b; echo c"' 2>&1)
	check uprobe-offset "@off: 3" "$(grep '^@off' <<<"$out")"
	check uprobe-address "@addr[uprobe:/bin/bash:echo_builtin]: 3" "$(grep '^@addr' <<<"$out")"
	check uprobe-plain "@plain: 3" "$(grep '^@plain' <<<"$out")"
else
	echo "SKIP $SUITE/uprobe-live: no echo_builtin symbol in /bin/bash"
fi
has uprobe-outside "Offset outside the function bounds \('echo_builtin' size is [0-9]+\)" \
	"$("$KILN" trace -e 'uprobe:/bin/bash:echo_builtin+1000000 {}' 2>&1)"
has uprobe-no-address "Could not resolve address: /bin/bash:0xa" "$("$KILN" trace -e 'uprobe:/bin/bash:10 {}' 2>&1)"

# ---- usdt: libstdc++'s throw probe (no semaphore), python's function__entry (a semaphore) --
if command -v c++ >/dev/null; then
	cat >"$tmp/thr.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
int main(int argc, char **argv) {   // throws and catches argv[1] exceptions
	int n = atoi(argv[1]), caught = 0;
	for (int i = 0; i < n; i++) {
		try { throw i; } catch (int) { caught++; }
	}
	printf("caught %d\n", caught);
}
CC
	if c++ -O1 -o "$tmp/thr" "$tmp/thr.cc" 2>"$tmp/cc.err"; then
		out=$(timeout 20 "$KILN" trace -e 'usdt:libstdc++:libstdcxx:throw /pid == cpid/ { @[probe] = count(); @typed[arg1 != 0] = count(); }
usdt:libstdc++:thr*w /pid == cpid/ { @short = count(); }' -c "$tmp/thr 6" 2>&1)
		check usdt-count "@[usdt:$("$KILN" trace -l 'usdt:libstdc++:throw' | sed 's/^usdt://')]: 6" "$(grep '^@\[' <<<"$out")"
		check usdt-arg "@typed[1]: 6" "$(grep '^@typed' <<<"$out")"
		check usdt-name-only "@short: 6" "$(grep '^@short' <<<"$out")"
	else
		fail usdt-cc "$(cat "$tmp/cc.err")"
	fi
else
	echo "SKIP $SUITE/usdt-libstdcxx: no C++ compiler"
fi
py=$(readlink -f /usr/bin/python3 2>/dev/null || true)   # the ELF itself, not a shim script
if [ -n "$py" ] && "$KILN" trace -l "usdt:$py:python:function__entry" 2>/dev/null | grep -q entry; then
	# python runs its probe only while the semaphore is up: the kernel counts it (ref_ctr_offset)
	out=$(timeout 20 "$KILN" trace -e "usdt:$py:python:function__entry /pid == cpid/ { @calls = count(); }" \
		-c "$py -c pass" 2>&1)
	has usdt-semaphore "^@calls: [1-9]" "$out"
else
	echo "SKIP $SUITE/usdt-semaphore: /usr/bin/python3 has no USDT probes"
fi
has usdt-missing "has no USDT probe libstdcxx:nope" "$("$KILN" trace -e 'usdt:libstdc++:libstdcxx:nope {}' 2>&1)"

# ---- kfunc / kretfunc: typed by BTF, compiled; lockdown refuses the load -----------------
prog='kfunc:vfs_read { @[args->count] = count(); }
kretfunc:vfs_read { @r = hist(retval); }
kretfunc:fget { @flags[retval->f_flags, args->fd] = count(); }'
if "$KILN" trace --emit "$tmp/kf.o" -e "$prog" 2>"$tmp/kf.err"; then
	dis=$("$KILN" disasm "$tmp/kf.o")
	has kfunc-fentry "prog p0 \(section fentry/vfs_read" "$dis"
	has kretfunc-fexit "prog p2 \(section fexit/fget" "$dis"
else
	fail kfunc-compiles "$(cat "$tmp/kf.err")"
fi
has kfunc-no-arg "function vfs_read has no argument 'nope'" "$("$KILN" trace -e 'kfunc:vfs_read { @ = args->nope; }' 2>&1)"
if grep -q '\[none\]' /sys/kernel/security/lockdown 2>/dev/null; then
	echo "SKIP $SUITE/kfunc-refused: the kernel is not in lockdown"
else
	out=$(timeout 10 "$KILN" trace -e 'kfunc:vfs_read { exit(); }' 2>&1)
	rc=$?
	check kfunc-refused-status 1 "$rc"
	has kfunc-refused-reason "locked down.*Operation not permitted" "$out"
	has kfunc-refused-hint "fentry and fexit programs, which a kernel in lockdown" "$out"
fi

# ---- options ---------------------------------------------------------------------------------
for p in a1111 111a1 not_a_pid; do
	has "pid-$p" "^ERROR: pid '$p' is not a valid decimal number$" "$("$KILN" trace -p $p x.bt 2>&1)"
done
has pid-range "^ERROR: pid '5000000' out of valid pid range \[1,4194304\]$" "$("$KILN" trace -p 5000000 x.bt 2>&1)"
has pid-gone "^ERROR: pid 4194304: No such process$" "$("$KILN" trace -p 4194304 -e 'BEGIN {}' 2>&1)"
has version "^kiln trace .*bpftrace v0\.17\.0" "$("$KILN" trace --version)"
out=$("$KILN" trace -h); rc=$?
check help-status 0 "$rc"
has help-usage "^USAGE:" "$out"
out=$("$KILN" trace -idonotexist 2>&1); rc=$?
check bad-flag-status 2 "$rc"
has bad-flag-usage "^USAGE:" "$out"
has no-file "^ERROR: failed to open file 'no_such.bt': No such file or directory" "$("$KILN" trace no_such.bt 2>&1)"
has info "perf_event_array: yes" "$("$KILN" trace --info)"
check include "2" "$("$KILN" trace --include sys/socket.h -e 'BEGIN { printf("%d\n", AF_INET); exit(); }' | sed -n 2p)"
check list-software 11 "$("$KILN" trace -l 'software:*' | grep -c '^software:[a-z-]*:$')"
check list-ware 21 "$("$KILN" trace -l '*ware:*' | grep -c '^\(soft\|hard\)ware:')"
has list-kfunc-args "^    struct file \* file$" "$("$KILN" trace -lv 'kfunc:vfs_read')"
has list-invalid "^ERROR: invalid character" "$("$KILN" trace -l '\n' 2>&1)"
# positional parameters in attach points, substituted before the attach point is read
check positional-attach "BEGIN interval:ms:2" "$(timeout 10 "$KILN" trace -e 'BEG$2 { printf("%s ", probe); }
i:ms:$1 { printf("%s\n", probe); exit(); }' 2 IN | sed -n 2p)"
# (a missing one is "", as in bpftrace 0.17)
has positional-missing '^missing$' "$(timeout 10 "$KILN" trace -e 'BEGIN$3 { printf("missing\n"); exit(); }' 1 2>&1)"

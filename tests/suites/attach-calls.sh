#!/usr/bin/env bash
# attach-calls.sh — the attach points a kernel may lack (kprobe and kretprobe: kprobe events;
# fentry, fexit, fmod_ret and lsm: a kernel in lockdown refuses them at load) are tested here
# whatever the kernel has. For each program of tests/attach/:
#   NAME/run-kernel    `kiln run` against this kernel, watched by strace: either the attach
#                      calls (perf_event_open + BPF_LINK_CREATE of the loaded program, or
#                      BPF_LINK_CREATE with the trampoline's attach type), or the kernel's
#                      refusal with the load's exact arguments (the function's BTF id, the
#                      attach type), no attach call after it, and kiln's message: the errno
#                      text and the kernel feature missing.
#   NAME/load-kernel   `kiln load --attach --pin`: refused the same way, nothing pinned.
#   NAME/live          where the kernel attaches it: loaded, attached and pinned, a real
#                      trigger, the program's count read back, unloaded. Elsewhere a SKIP that
#                      says which kernel feature is missing.
#   NAME/calls         under tests/shim/callshim.c (LD_PRELOAD), which stands in for what the
#                      kernel lacks (a kprobe PMU of its own; a stand-in for the refused
#                      program) and answers the attach call with a made-up link: the exact
#                      calls and arguments kiln makes, in order, through to the detach at exit.
#   NAME/refused       the same, the attach call answered with the error a kernel without the
#                      feature gives (ENOENT from perf_event_open, EINVAL from BPF_LINK_CREATE,
#                      ENOTSUPP from a kernel without BPF trampolines): kiln's message, every
#                      fd of the attempt closed, and `kiln load --attach` pinning nothing. An
#                      lsm program where the bpf LSM is not active (the shim's list of active
#                      LSMs) is refused before any attach call: it would never run.
#   partial/detach     two programs, the second refused at attach: the first one's link is
#                      detached and closed before kiln exits with the error.
# After each step no program or map of the test's own is left in the kernel: every one kiln
# made here is recorded by id (tests/shim/callshim.c's CALLSHIM_IDS) and looked up by id.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=attach-calls
. tests/harness/report.sh

shim=$BUILD/tests/callshim.so
tag=a$$
work=$(mktemp -d)
pin=/sys/fs/bpf/kiln-attach-calls-$$
cleanup() {
	for d in "$pin"-*; do [ -e "$d" ] && { "$KILN" unload --force "$d" >/dev/null 2>&1; rm -rf "$d"; }; done
	rm -rf "$work"
}
trap cleanup EXIT
if [ ! -f "$shim" ]; then
	fail setup "no $shim (make test-bins builds it)"
	exit 0
fi
if ! command -v strace >/dev/null; then
	fail setup "no strace (Debian's strace, in the Makefile's DEB_PKGS: make deps)"
	exit 0
fi
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
lockdown=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null | tr -d '[]')
kprobe_pmu=/sys/bus/event_source/devices/kprobe/type
# The vmlinux BTF ids of the functions the trampolines attach to (the load's attach_btf_id).
bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep "^\[[0-9]*\] FUNC '" >"$work/funcs"
btf_id() { sed -n "s/^\[\([0-9]*\)\] FUNC '$1' .*/\1/p" "$work/funcs" | head -1; }
# Every program and map kiln makes in this test is recorded by id (the shim's CALLSHIM_IDS):
# what is left in the kernel is counted by those ids, never from the machine's lists.
ids=$work/ids
: >"$ids"
# a shim run: an ASan kiln must not insist on coming first in the preload list
# (shimmed [VAR=VALUE...] COMMAND...)
shimmed() { env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$shim" CALLSHIM_IDS="$ids" "$@"; }

# kiln run's refusal of an lsm program where the bpf LSM is not active: PROG LSM-LIST
lsm_inactive() {
	echo "kiln run: attach program '$1' of lsm.lisp: lsm file_open: the bpf LSM is not active, so an lsm program would never run (/sys/kernel/security/lsm: $2; \"bpf\" in the kernel's lsm= boot option makes it active): Operation not supported"
}
lsms=$(cat /sys/kernel/security/lsm 2>/dev/null)
bpf_lsm=yes
[ -n "$lsms" ] && [[ ,$lsms, != *,bpf,* ]] && bpf_lsm=no

# The programs and maps of this test (by the ids recorded) still in the kernel, once it has
# freed what was let go (it frees programs a moment after their last fd closes): none within
# 5 s, or "KIND ID" of each one left.
ours_left() {
	local left kind id
	for _ in $(seq 50); do
		left=
		while read -r kind id; do
			bpftool "$kind" show id "$id" >/dev/null 2>&1 && left+="$kind $id "
		done <"$ids"
		[ -z "$left" ] && break
		sleep 0.1
	done
	echo "$left"
}
check_none_left() {   # NAME
	local left
	left=$(ours_left)
	if [ -z "$left" ]; then pass "$1/none-left ($(wc -l <"$ids") programs and maps made so far, by id)"
	else fail "$1/none-left" "still in the kernel, of the test's own: $left"; fi
}

# the program NAME's count, read from its pin (empty if none)
hits() { "$KILN" map get "$1/maps/${tag}_hits" 0 2>/dev/null | awk '$2 == "=>" { print $3 }'; }

# ---- one attach point ----------------------------------------------------------------------
# NAME FILE SUFFIX KIND TARGET ATTACH-TYPE: KIND is kprobe or trampoline; TARGET the kernel
# function (or, for lsm, the BTF function of the hook); ATTACH-TYPE the load's expected one.
kernel_run() {
	local name=$1 src=$2 prog=$3 kind=$4 target=$5 atype=$6 out err rc tr
	tr=$work/$name.strace
	# (LeakSanitizer cannot run under ptrace; the shim records the ids, as shimmed does)
	strace -f -qq -e trace=bpf,perf_event_open,openat -e signal=none -o "$tr" \
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0" LD_PRELOAD="$shim" CALLSHIM_IDS="$ids" \
		"$KILN" run "$src" --duration 300ms >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	err=$(cat "$work/$name.err")
	if [ $rc -eq 0 ]; then
		# the kernel attached it: the attach call names the loaded program
		local pfd
		pfd=$(sed -n "s/.*bpf(BPF_PROG_LOAD, .*prog_name=\"$prog\".*) = \([0-9]*\)$/\1/p" "$tr" | tail -1)
		if [ "$kind" = kprobe ]; then
			local type efd
			type=$(cat "$kprobe_pmu")
			efd=$(grep -E "perf_event_open\(\{type=($type|$(printf '%#x' "$type"))[ ,]" "$tr" | sed -n 's/.* = \([0-9]*\)$/\1/p' | tail -1)
			if [ -n "$pfd" ] && [ -n "$efd" ] &&
			   grep -q "bpf(BPF_LINK_CREATE, {link_create={prog_fd=$pfd, target_fd=$efd, attach_type=BPF_PERF_EVENT" "$tr"; then
				pass "$name/run-kernel (attached: perf_event_open of the kprobe PMU, type $type, = $efd; BPF_LINK_CREATE prog_fd=$pfd target_fd=$efd BPF_PERF_EVENT)"
			else fail "$name/run-kernel" "attached, but not by the calls expected: $(grep -E 'perf_event_open|LINK_CREATE' "$tr" | head -3 | cut -c1-200 | tr '\n' ' ')"; fi
		elif [ -n "$pfd" ] && grep -Eq "bpf\(BPF_(LINK_CREATE, \{link_create=\{prog_fd=$pfd, target_fd=0, attach_type=$atype|RAW_TRACEPOINT_OPEN, \{raw_tracepoint=\{name=NULL, prog_fd=$pfd)" "$tr"; then
			pass "$name/run-kernel (attached: the program loaded with $atype, attach_btf_id $(btf_id "$target"), linked as prog_fd=$pfd)"
		else fail "$name/run-kernel" "attached, but not by the calls expected: $(grep -E 'LINK_CREATE|RAW_TRACEPOINT' "$tr" | head -2 | cut -c1-200 | tr '\n' ' ')"; fi
		check_none_left "$name/run-kernel"
		return 0
	fi
	# refused: by the kernel's answer, with the load's exact arguments and nothing after it
	local want after
	if [ "$kind" = kprobe ]; then
		want="kiln run: attach program '$prog' of $name.lisp: no kprobe PMU, $kprobe_pmu (this kernel has no kprobe events: CONFIG_KPROBE_EVENTS is off): No such file or directory"
		grep -q "bpf(BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_KPROBE, .*prog_name=\"$prog\".*) = [0-9]*$" "$tr" &&
			grep -q "openat(AT_FDCWD, \"$kprobe_pmu\", O_RDONLY|O_CLOEXEC) = -1 ENOENT" "$tr"
		after=$?
	else
		local ptype=BPF_PROG_TYPE_TRACING id
		[ "$atype" = BPF_LSM_MAC ] && ptype=BPF_PROG_TYPE_LSM
		id=$(btf_id "$target")
		want="kiln run: load program '$prog' of $name.lisp: bpf(BPF_PROG_LOAD) (the kernel is locked down: ${lockdown:-?}): Operation not permitted"
		local answer="-1 EPERM ("
		local linked=no
		if [ "$atype" = BPF_LSM_MAC ] && [ $bpf_lsm = no ] && [[ $err != *"locked down"* ]]; then
			want=$(lsm_inactive "$prog" "$lsms")   # loaded, and refused before the attach call
			answer="[0-9][0-9]*$"
		elif [[ $err == *"cannot attach BPF trampolines"* ]]; then
			# loaded, and the link refused by a kernel without trampolines (ENOTSUPP)
			want="kiln run: attach program '$prog' of $name.lisp: ${name/fmod-ret/fmod_ret} ${target#bpf_lsm_}: the kernel answers ENOTSUPP (524): it cannot attach BPF trampolines, which fentry, fexit, fmod_ret, tp_btf and lsm programs need (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS and the architecture's support)"
			answer="[0-9][0-9]*$"
			linked=yes
		fi
		[ -n "$id" ] && grep -q "bpf(BPF_PROG_LOAD, {prog_type=$ptype, .*prog_name=\"$prog\", .*expected_attach_type=$atype, .*attach_btf_id=$id, .*) = $answer" "$tr"
		after=$?
	fi
	if [ $rc -ne 1 ] || [ "$err" != "$want" ]; then
		fail "$name/run-kernel" "status $rc, message '$err', want '$want'"
	elif [ $after -ne 0 ]; then
		fail "$name/run-kernel" "the calls before the refusal are not as expected: $(grep -E "PROG_LOAD.*$prog|kprobe/type" "$tr" | head -2 | cut -c1-300 | tr '\n' ' ')"
	elif [ "${linked:-no}" = yes ] && ! grep -q "bpf(BPF_LINK_CREATE, {link_create={prog_fd=[0-9]*, target_fd=0, attach_type=$atype.* = -1 " "$tr"; then
		fail "$name/run-kernel" "ENOTSUPP, but not from the BPF_LINK_CREATE expected: $(grep -E 'BPF_LINK_CREATE' "$tr" | head -1 | cut -c1-200)"
	elif [ "${linked:-no}" = no ] && grep -Eq 'perf_event_open\(|BPF_LINK_CREATE|BPF_RAW_TRACEPOINT_OPEN' "$tr"; then
		fail "$name/run-kernel" "an attach call after the refusal: $(grep -E 'perf_event_open\(|BPF_LINK_CREATE|BPF_RAW_TRACEPOINT_OPEN' "$tr" | head -1 | cut -c1-200)"
	elif [ "$kind" = kprobe ]; then
		pass "$name/run-kernel (refused: the program loaded, $kprobe_pmu ENOENT, no perf_event_open; '$err')"
	else
		pass "$name/run-kernel (refused: BPF_PROG_LOAD $atype attach_btf_id=$id of $target = $( [ "$answer" = "-1 EPERM (" ] && echo EPERM || echo "a program fd"), $( [ "$linked" = yes ] && echo "BPF_LINK_CREATE ENOTSUPP" || echo "no attach call"); '$err')"
	fi
	check_none_left "$name/run-kernel"
	return 1
}

# `kiln load --attach --pin`: refused (nothing pinned), or, where the kernel attaches it, live.
kernel_load() {
	local name=$1 src=$2 prog=$3 kind=$4 trigger=$5 attached=$6 dir=$pin-$1 out rc
	out=$(shimmed "$KILN" load "$src" --pin "$dir" --attach 2>&1); rc=$?
	if [ "$attached" = no ]; then
		local why
		if [ "$kind" = kprobe ]; then why="this kernel has no kprobe events (no $kprobe_pmu: CONFIG_KPROBE_EVENTS is off)"
		elif [[ $out == *"bpf LSM is not active"* ]]; then why="the bpf LSM is not active (/sys/kernel/security/lsm: $lsms)"
		elif [[ $out == *"cannot attach BPF trampolines"* ]]; then why="the kernel cannot attach BPF trampolines (ENOTSUPP)"
		else why="the kernel refuses ${name} programs at load with EPERM (lockdown: ${lockdown:-unknown})"; fi
		if [ $rc -eq 1 ] && [ ! -e "$dir" ] && grep -q "^kiln load: .*'$prog' of $name.lisp: .*\(No such file or directory\|Operation not permitted\|Operation not supported\|(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS and the architecture's support)\)$" <<<"$out"; then
			pass "$name/load-kernel (refused, nothing pinned: $(tail -1 <<<"$out"))"
		else fail "$name/load-kernel" "status $rc, $dir $( [ -e "$dir" ] && echo exists || echo absent): $out"; fi
		check_none_left "$name/load-kernel"
		echo "SKIP $SUITE/$name/live: $why; its attach calls are checked through the shim ($name/calls, $name/refused)"
		return
	fi
	if [ $rc -ne 0 ]; then
		fail "$name/live" "kiln run attached it, kiln load --attach did not: $out"
		return
	fi
	local h=
	for _ in $(seq 100); do      # the trigger until the program has counted, 10 s at most
		(export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" LD_PRELOAD="$shim" CALLSHIM_IDS="$ids"
		 eval "$trigger") >/dev/null 2>&1   # (fmod-ret's trigger is a kiln test-run: its ids too)
		h=$(hits "$dir")
		[ "${h:-0}" -gt 0 ] && break
		sleep 0.1
	done
	"$KILN" unload "$dir" >/dev/null 2>&1
	if [ "${h:-0}" -gt 0 ] && [ ! -e "$dir" ]; then pass "$name/live ($h hits after the trigger: $trigger)"
	else fail "$name/live" "count ${h:-none} after 10 s of '$trigger', or $dir left"; fi
	check_none_left "$name/live"
}

# The log of a shim run, with the fds it names replaced by P (the program), E (the perf
# event), L (the link), so that it compares exactly.
norm_log() {
	local log=$1 p e l
	p=$(sed -n 's/^bpf BPF_PROG_LOAD .* = \([0-9]*\)\( (stand-in)\)\{0,1\}$/\1/p' "$log" | tail -1)
	e=$(sed -n 's/^perf_event_open .* = \([0-9]*\).*/\1/p' "$log" | tail -1)
	l=$(sed -n 's/^bpf BPF_\(LINK_CREATE\|RAW_TRACEPOINT_OPEN\) .* = \([0-9]*\).*/\2/p' "$log" | tail -1)
	sed -E -e "${p:+s/(=| = )$p\\b/\\1P/g}" -e "${e:+s/(=| = )$e\\b/\\1E/g}" -e "${l:+s/(=| = )$l\\b/\\1L/g}" "$log"
}

# The load's lines in a shim's log: the kernel's answer, or its refusal and the stand-in.
load_lines() {   # PROG-TYPE PROG ATTACH-TYPE BTF-ID ATTACHED
	if [ "$5" = yes ] || [ "$1" = BPF_PROG_TYPE_KPROBE ]; then
		echo "bpf BPF_PROG_LOAD prog_type=$1 prog_name=\"$2\" expected_attach_type=$3 attach_btf_id=$4 = P"
	else
		echo "bpf BPF_PROG_LOAD prog_type=$1 prog_name=\"$2\" expected_attach_type=$3 attach_btf_id=$4 = -1 EPERM"
		echo "bpf BPF_PROG_LOAD prog_type=$1 prog_name=\"$2\" expected_attach_type=$3 attach_btf_id=$4 = P (stand-in)"
	fi
}
prog_close() {   # PROG-TYPE ATTACHED
	if [ "$2" = yes ] || [ "$1" = BPF_PROG_TYPE_KPROBE ]; then echo "close fd=P (program)"
	else echo "close fd=P (stand-in program)"; fi
}
prog_type() {    # KIND ATTACH-TYPE
	case $1:$2 in kprobe:*) echo BPF_PROG_TYPE_KPROBE ;; *:BPF_LSM_MAC) echo BPF_PROG_TYPE_LSM ;;
	*) echo BPF_PROG_TYPE_TRACING ;; esac
}

# kiln run under the shim, the attach call answered with a made-up link: every call, in order.
shim_calls() {
	local name=$1 src=$2 prog=$3 kind=$4 target=$5 atype=$6 attached=$7 log=$work/$1.calls out rc want
	local ptype
	ptype=$(prog_type "$kind" "$atype")
	rm -f "$log"
	if [ "$kind" = kprobe ]; then
		local config=0
		[ "$name" = kretprobe ] && config=0x1
		out=$(shimmed CALLSHIM_LOG="$log" CALLSHIM_ROOT="$work/root" CALLSHIM_PERF=ok CALLSHIM_LINK=ok \
			"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		want="$(load_lines "$ptype" "$prog" 0 0 "$attached")
perf_event_open type=4242 config=$config config1=\"$target\" config2=0 pid=-1 cpu=0 group_fd=-1 flags=0x8 = E (made up)
bpf BPF_LINK_CREATE prog_fd=P target_fd=E attach_type=BPF_PERF_EVENT target_btf_id=0 flags=0 = L (made up)
close fd=E (made-up perf event)"
	else
		out=$(shimmed CALLSHIM_LOG="$log" CALLSHIM_STANDIN=1 CALLSHIM_LINK=ok \
			"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		want="$(load_lines "$ptype" "$prog" "$atype" "$(btf_id "$target")" "$attached")
bpf BPF_LINK_CREATE prog_fd=P target_fd=0 attach_type=$atype target_btf_id=0 flags=0 = L (made up)"
	fi
	want+="
bpf BPF_LINK_DETACH link_fd=L = 0 (made up)
close fd=L (made-up link)
$(prog_close "$ptype" "$attached")"
	if [ $rc -ne 0 ] || ! grep -q "^kiln run: attached $prog: " <<<"$out"; then
		fail "$name/calls" "status $rc: $(tr '\n' ' ' <<<"$out")"
	else
		check "$name/calls" "$want" "$(norm_log "$log")"
	fi
	check_none_left "$name/calls"
	[ "$name" = kprobe ] || return 0
	# FUNC+OFFSET: the function's name in config1, the offset in config2
	sed "s|\"kprobe/$target\"|\"kprobe/$target+0x4\"|" "$src" >"$work/kprobe-offset.lisp"
	rm -f "$log"
	out=$(shimmed CALLSHIM_LOG="$log" CALLSHIM_ROOT="$work/root" CALLSHIM_PERF=ok CALLSHIM_LINK=ok \
		"$KILN" run "$work/kprobe-offset.lisp" --duration 100ms 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 0 ] && grep -q "^kiln run: attached $prog: kprobe $target+0x4$" <<<"$out" &&
	   grep -q "^perf_event_open type=4242 config=0 config1=\"$target\" config2=0x4 pid=-1 cpu=0 group_fd=-1 flags=0x8 = [0-9]* (made up)$" "$log"; then
		pass "$name/calls-offset (kprobe/$target+0x4: config1=\"$target\" config2=0x4)"
	else fail "$name/calls-offset" "status $rc, '$(tr '\n' ' ' <<<"$out")'; log: $(grep perf_event_open "$log")"; fi
}

# The attach call answered with a kernel's refusal: the message, and every fd closed.
shim_refused() {
	local name=$1 src=$2 prog=$3 kind=$4 target=$5 atype=$6 attached=$7 log=$work/$1.refused out rc want wmsg
	rm -f "$log"
	local env=(CALLSHIM_LOG="$log")
	if [ "$kind" = kprobe ]; then
		# the kernel answers perf_event_open of PMU type 4242, which it has not: ENOENT
		out=$(shimmed "${env[@]}" CALLSHIM_ROOT="$work/root" "$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		wmsg="kiln run: attach program '$prog' of $name.lisp: perf_event_open for $name $target: No such file or directory"
		if [ $rc -eq 1 ] && [ "$out" = "$wmsg" ] && ! grep -q 'LINK_CREATE' "$log" &&
		   grep -q "^perf_event_open type=4242 .*config1=\"$target\" .* = -1 ENOENT$" "$log"; then
			pass "$name/refused-perf-event (the kernel's ENOENT for the PMU type: '$out')"
		else fail "$name/refused-perf-event" "status $rc, '$out' (want '$wmsg'); log: $(tr '\n' '|' <"$log")"; fi
		# a perf event made, BPF_LINK_CREATE refused (EINVAL): the event's fd closed
		rm -f "$log"
		out=$(shimmed "${env[@]}" CALLSHIM_ROOT="$work/root" CALLSHIM_PERF=ok CALLSHIM_LINK=EINVAL \
			"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		wmsg="kiln run: attach program '$prog' of $name.lisp: bpf(BPF_LINK_CREATE) for $name $target: Invalid argument"
		want="bpf BPF_LINK_CREATE prog_fd=P target_fd=E attach_type=BPF_PERF_EVENT target_btf_id=0 flags=0 = -1 EINVAL
close fd=E (made-up perf event)
close fd=P (program)"
		if [ $rc -eq 1 ] && [ "$out" = "$wmsg" ]; then
			check "$name/refused-link" "$want" "$(norm_log "$log" | grep -v '^bpf BPF_PROG_LOAD\|^perf_event_open')"
		else fail "$name/refused-link" "status $rc, '$out' (want '$wmsg')"; fi
		local lenv=(CALLSHIM_ROOT="$work/root")
	else
		# a kernel without BPF trampolines answers the link ENOTSUPP (524)
		out=$(shimmed "${env[@]}" CALLSHIM_STANDIN=1 CALLSHIM_LINK=ENOTSUPP \
			"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		local desc=${name/fmod-ret/fmod_ret} t=$target
		[ "$atype" = BPF_LSM_MAC ] && t=${target#bpf_lsm_}
		wmsg="kiln run: attach program '$prog' of $name.lisp: $desc $t: the kernel answers ENOTSUPP (524): it cannot attach BPF trampolines, which fentry, fexit, fmod_ret, tp_btf and lsm programs need (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS and the architecture's support)"
		want="bpf BPF_LINK_CREATE prog_fd=P target_fd=0 attach_type=$atype target_btf_id=0 flags=0 = -1 ENOTSUPP
$(prog_close "$(prog_type "$kind" "$atype")" "$attached")"
		if [ $rc -eq 1 ] && [ "$out" = "$wmsg" ]; then
			check "$name/refused" "$want" "$(norm_log "$log" | grep -v '^bpf BPF_PROG_LOAD')"
		else fail "$name/refused" "status $rc, '$out' (want '$wmsg')"; fi
		local lenv=(CALLSHIM_STANDIN=1 CALLSHIM_LINK=ENOTSUPP)
	fi
	check_none_left "$name/refused"
	if [ "$atype" = BPF_LSM_MAC ]; then
		# without the bpf LSM active the kernel links an lsm program that never runs: kiln
		# refuses before any attach call
		rm -f "$log"
		out=$(shimmed "${env[@]}" CALLSHIM_ROOT="$work/nolsm" CALLSHIM_STANDIN=1 CALLSHIM_LINK=ok \
			"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
		wmsg=$(lsm_inactive "$prog" lockdown,capability,landlock)
		if [ $rc -eq 1 ] && [ "$out" = "$wmsg" ] && ! grep -q 'LINK_CREATE\|RAW_TRACEPOINT_OPEN' "$log"; then
			pass "$name/bpf-lsm-inactive (no attach call; '$out')"
		else fail "$name/bpf-lsm-inactive" "status $rc, '$out' (want '$wmsg'); log: $(tr '\n' '|' <"$log")"; fi
	fi
	# kiln load --attach --pin with the same answer: refused, nothing pinned
	local dir=$pin-$name-shim
	out=$(shimmed CALLSHIM_LOG="$log.load" "${lenv[@]}" "$KILN" load "$src" --pin "$dir" --attach 2>&1); rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$dir" ] && grep -q "^kiln load: attach program '$prog' of $name.lisp: " <<<"$out"; then
		pass "$name/refused-load (kiln load --attach pins nothing: $(tail -1 <<<"$out" | cut -c1-80)...)"
	else fail "$name/refused-load" "status $rc, $dir $( [ -e "$dir" ] && echo exists || echo absent): $out"; fi
	check_none_left "$name/refused-load"
}

# A kprobe PMU of the test's own, as the kernel's looks: its type and the retprobe bit.
pmu=$work/root/sys/bus/event_source/devices/kprobe
mkdir -p "$pmu/format"
echo 4242 >"$pmu/type"
echo config:0 >"$pmu/format/retprobe"
# the active LSMs of a kernel booted without the bpf LSM
mkdir -p "$work/nolsm/sys/kernel/security"
echo lockdown,capability,landlock >"$work/nolsm/sys/kernel/security/lsm"
# a trigger for each: nanosleep(2) for do_nanosleep, BPF_PROG_TEST_RUN of an fmod_ret program
# for bpf_modify_return_test, an open(2) for file_open
for row in "kprobe kp kprobe do_nanosleep - sleep 0.01" \
	   "kretprobe krp kprobe do_nanosleep - sleep 0.01" \
	   "fentry fe trampoline do_nanosleep BPF_TRACE_FENTRY sleep 0.01" \
	   "fexit fx trampoline do_nanosleep BPF_TRACE_FEXIT sleep 0.01" \
	   "fmod-ret fmr trampoline bpf_modify_return_test BPF_MODIFY_RETURN \"\$KILN\" test-run \"\$src\" --prog \"\$prog\"" \
	   "lsm lsm trampoline bpf_lsm_file_open BPF_LSM_MAC cat /dev/null"; do
	read -r name suffix kind target atype trigger <<<"$row"
	src=$work/$name.lisp
	prog=${tag}_$suffix
	sed "s/attach-/$tag-/g" "tests/attach/$name.lisp" >"$src"
	if kernel_run "$name" "$src" "$prog" "$kind" "$target" "$atype"; then attached=yes; else attached=no; fi
	kernel_load "$name" "$src" "$prog" "$kind" "$trigger" "$attached"
	shim_calls "$name" "$src" "$prog" "$kind" "$target" "$atype" "$attached"
	shim_refused "$name" "$src" "$prog" "$kind" "$target" "$atype" "$attached"
done

# Two programs, the second refused at attach (perf_event_open answered ENOENT): the first
# one's link, attached already, is detached and closed before kiln exits with the error.
src=$work/partial.lisp
sed "s/attach-/$tag-/g" tests/attach/partial.lisp >"$src"
log=$work/partial.calls
out=$(shimmed CALLSHIM_LOG="$log" CALLSHIM_ROOT="$work/root" CALLSHIM_STANDIN=1 CALLSHIM_LINK=ok CALLSHIM_PERF=ENOENT \
	"$KILN" run "$src" --duration 300ms 2>&1 >/dev/null); rc=$?
link=$(sed -n 's/^bpf BPF_LINK_CREATE .*attach_type=BPF_TRACE_FENTRY .* = \([0-9]*\) (made up)$/\1/p' "$log")
got=$(grep -E "^(perf_event_open|bpf BPF_LINK_CREATE|bpf BPF_LINK_DETACH|close fd=${link:-x} )" "$log" | sed -E "/LINK_CREATE/s/= [0-9]+ \(made up\)$/= L (made up)/; s/fd=${link:-x}\b/fd=L/g" | sed -E 's/^(perf_event_open) .*( = .*)$/\1\2/')
want="bpf BPF_LINK_CREATE prog_fd=$(sed -n 's/^bpf BPF_PROG_LOAD .*prog_name="'"${tag}"'_pfe".* = \([0-9]*\) (stand-in)$/\1/p' "$log") target_fd=0 attach_type=BPF_TRACE_FENTRY target_btf_id=0 flags=0 = L (made up)
perf_event_open = -1 ENOENT
bpf BPF_LINK_DETACH link_fd=L = 0 (made up)
close fd=L (made-up link)"
if [ $rc -eq 1 ] && [ "$out" = "kiln run: attached ${tag}_pfe: fentry do_nanosleep
kiln run: attach program '${tag}_pkp' of partial.lisp: perf_event_open for kprobe do_nanosleep: No such file or directory" ]; then
	check partial/detach "$want" "$got"
else fail partial/detach "status $rc: $out"; fi
check_none_left partial

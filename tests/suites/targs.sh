#!/usr/bin/env bash
# targs.sh — typed arguments of tracing programs, beyond what test_targs.c runs live:
# arguments that are not read cost nothing and warn nothing; fentry, fexit and fmod_ret
# programs (refused at load by a kernel in lockdown) typed from the traced function, checked
# in the ELF and as far as libbpf's CO-RE relocation; a clang twin of a tp_btf program reading
# prev->pid and next->real_parent->tgid directly loads as kiln's does, instructions compared.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/targs"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-targs-$$
trap 'rm -rf "$pin"' EXIT
pass() { echo "PASS targs/$1"; }
fail() { echo "FAIL targs/$1: $2"; }

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "SKIP targs/all: this kernel has no /sys/kernel/btf/vmlinux"
	exit 0
fi
insns() { "$KILN" disasm "$1" | sed -n "s/^prog $2 (.*, \([0-9]*\) insns)$/\1/p"; }

# ---- arguments not read: no instruction, no warning ------------------------------------------
body='(incf (getmap hits 0)) 0'
for ty in "tp-btf tp_btf/sched_switch" "raw-tracepoint raw_tp/sched_switch" "tracepoint tracepoint/sched/sched_switch"; do
	read -r kw sec <<<"$ty"
	printf '(defmap hits :type :array :key u32 :value u64 :max-entries 1)\n(defprog p (:type :%s :section "%s")\n  %s)\n' \
		"$kw" "$sec" "$body" >"$out/unused-$kw.lisp"
	"$KILN" compile "$out/unused-$kw.lisp" -o "$out/unused-$kw.o" 2>"$out/unused-$kw.err" || fail "unused-$kw" "$(head -2 "$out/unused-$kw.err")"
done
n_btf=$(insns "$out/unused-tp-btf.o" p); n_raw=$(insns "$out/unused-raw-tracepoint.o" p); n_tp=$(insns "$out/unused-tracepoint.o" p)
if [ -n "$n_btf" ] && [ "$n_btf" == "$n_tp" ] && [ "$n_raw" == "$n_tp" ]; then
	pass "unused-args-cost-nothing (tp_btf $n_btf, raw_tp $n_raw, tracepoint $n_tp instructions)"
else
	fail unused-args-cost-nothing "tp_btf ${n_btf:-?}, raw_tp ${n_raw:-?}, tracepoint ${n_tp:-?} instructions"
fi
if [ ! -s "$out/unused-tp-btf.err" ] && [ ! -s "$out/unused-raw-tracepoint.err" ]; then
	pass unused-args-no-warning
else
	fail unused-args-no-warning "$(cat "$out"/unused-*.err | head -2)"
fi
# a raw tracepoint that reads no argument never opens the kernel's BTF
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace (make test-asan): no leak check in the traced run
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=open,openat -o "$out/trace" "$KILN" compile "$out/unused-raw-tracepoint.lisp" -o "$out/u2.o" 2>/dev/null
	if grep -q 'btf/vmlinux' "$out/trace"; then fail raw-tp-no-vmlinux "$(grep btf/vmlinux "$out/trace" | head -1)"
	else pass raw-tp-no-vmlinux; fi
fi
# one argument read: one load from the context, narrowed to the argument's size
printf '(defprog p (:type :tp-btf :section "tp_btf/sched_switch")\n  prev-state)\n' >"$out/one.lisp"
if "$KILN" compile "$out/one.lisp" -o "$out/one.o" 2>"$out/one.err" &&
   dis=$("$KILN" disasm "$out/one.o") && [ "$(grep -c '= \*(u64 \*)(r[0-9] + 24)' <<<"$dis")" == 1 ] &&
   [ "$(insns "$out/one.o" p)" -le 4 ]; then
	pass "one-arg-one-load (prev_state: one load of ctx[3], $(insns "$out/one.o" p) instructions with the u32 narrowing and exit)"
else
	fail one-arg-one-load "$(cat "$out/one.err") $(tr '\n' ' ' <<<"${dis:-}")"
fi

# an argument the kernel marks "or NULL" (sched_pi_setprio's pi_task) is read once tested:
# the test and the read are the same register, loaded at the entry
printf '(defmap out :type :array :key u32 :value u64 :max-entries 1)\n(defprog p (:type :tp-btf :section "tp_btf/sched_pi_setprio")\n  (when pi-task (setf (getmap out 0) (-> pi-task pid)))\n  0)\n' >"$out/null.lisp"
if ! err=$("$KILN" compile "$out/null.lisp" -o "$out/null.o" 2>&1); then
	fail maybe-null-arg "$(head -2 <<<"$err")"
elif log=$("$BUILD/tests/loadobj" "$out/null.o" --prog p 2>&1); then
	pass "maybe-null-arg (tested, then read: the verifier accepts it)"
else
	fail maybe-null-arg "$(grep -E 'invalid|R[0-9]' <<<"$log" | tail -2 | tr '\n' ' ')"
fi

# ---- fentry, fexit, fmod_ret: typed from the function's prototype ---------------------------
src=tests/lib/targs-fentry.lisp
obj="$out/fentry.o"
if ! "$KILN" compile "$src" -o "$obj" 2>"$out/fentry.err" || [ -s "$out/fentry.err" ]; then
	fail fentry-compile "$(head -3 "$out/fentry.err")"
else
	pass fentry-compile
	dis=$("$KILN" disasm "$obj")
	# (-> (arg 0) task pid): ctx[0], then hrtimer_sleeper.task, then task_struct.pid, all LDX
	entry=$(awk '/^prog sleep_entry/{p=1;next} /^prog /{p=0} p' <<<"$dis")
	if grep -q '= \*(u64 \*)(r[0-9] + [0-9]*) *; CO-RE byte_off hrtimer_sleeper.task$' <<<"$entry" &&
	   grep -q '= \*(u32 \*)(r[0-9] + [0-9]*) *; CO-RE byte_off task_struct.pid$' <<<"$entry"; then
		pass "fentry-direct-loads (t->task->pid: loads carrying CO-RE byte_off relocations, no probe read)"
	else
		fail fentry-direct-loads "$(awk '/^prog sleep_entry/{p=1;next} /^prog /{p=0} p' <<<"$dis" | head -8 | tr '\n' ' ')"
	fi
	if awk '/^prog sleep_entry/{p=1;next} /^prog /{p=0} p' <<<"$dis" | grep -q probe_read; then
		fail fentry-no-probe "a probe read in sleep_entry"
	else
		pass fentry-no-probe
	fi
	# fexit's (retval) and ret are ctx[2], after do_nanosleep's two arguments: one load
	if [ "$(awk '/^prog sleep_exit/{p=1;next} /^prog /{p=0} p' <<<"$dis" | grep -c '\*(u64 \*)(r[0-9] + 16)')" == 1 ]; then
		pass "fexit-retval (ctx[2], loaded once for (retval) and ret)"
	else
		fail fexit-retval "$(awk '/^prog sleep_exit/{p=1;next} /^prog /{p=0} p' <<<"$dis" | head -6 | tr '\n' ' ')"
	fi
	btf=$(bpftool btf dump file "$obj" 2>&1)
	if grep -q "STRUCT 'hrtimer_sleeper' size=[0-9]* vlen=2" <<<"$btf" && grep -q "'task' type_id" <<<"$btf"; then
		pass "fentry-btf (hrtimer_sleeper projected with task and timer)"
	else
		fail fentry-btf "$(grep -A3 hrtimer_sleeper <<<"$btf" | head -4 | tr '\n' ' ')"
	fi
	# libbpf opens the object and relocates every access; a kernel in lockdown then refuses
	# the load with EPERM (any other failure is kiln's)
	log=$(bpftool -d prog loadall "$obj" "$pin" 2>&1); rc=$?
	patched=$(grep -c "patched insn #[0-9]* (LDX/ST/STX)" <<<"$log")
	if [ $rc -eq 0 ]; then
		pass "fentry-load ($patched loads relocated; loaded)"
	elif grep -q "Operation not permitted" <<<"$log" && [ "$patched" -ge 3 ] &&
	     ! grep -qiE "relo #[0-9]*: .*(failed|err)" <<<"$log"; then
		pass "fentry-load (libbpf relocated $patched direct loads; the kernel refuses tracing programs: $(cat /sys/kernel/security/lockdown 2>/dev/null | grep -o '\[[a-z]*\]'))"
	else
		fail fentry-load "$(grep -v '^libbpf: -- ' <<<"$log" | grep -iE 'relo|error|fail' | tail -3 | tr '\n' ' ')"
	fi
	rm -rf "$pin"
fi

# ---- a clang twin: prev->pid, next->real_parent->tgid, prev_state ---------------------------
if ! command -v clang >/dev/null; then
	fail clang-twin "clang is not installed (make deps)"
	exit 0
fi
[ -s "$out/vmlinux.h" ] || bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$out/vmlinux.h"
cat >"$out/twin.bpf.c" <<'C'
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __type(key, __u32); __type(value, __u64); __uint(max_entries, 4); } out SEC(".maps");
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	__u32 k = 0;
	__u64 v = prev->pid;
	bpf_map_update_elem(&out, &k, &v, 0);
	k = 1;
	v = next->real_parent->tgid;
	bpf_map_update_elem(&out, &k, &v, 0);
	k = 2;
	v = prev_state;
	bpf_map_update_elem(&out, &k, &v, 0);
	return 0;
}
char LICENSE[] SEC("license") = "GPL";
C
cat >"$out/twin.lisp" <<'L'
(defmap out :type :array :key u32 :value u64 :max-entries 4)
(defprog on-switch (:type :tp-btf :section "tp_btf/sched_switch")
  (setf (getmap out 0) (-> prev pid))
  (setf (getmap out 1) (-> next real_parent tgid))
  (setf (getmap out 2) prev-state)
  0)
L
if ! err=$(clang -O2 -g -target bpf -I"$out" -c "$out/twin.bpf.c" -o "$out/twin-clang.o" 2>&1); then
	fail clang-twin "clang: $(head -2 <<<"$err")"
elif ! err=$("$KILN" compile "$out/twin.lisp" -o "$out/twin-kiln.o" 2>&1); then
	fail clang-twin "kiln: $(head -2 <<<"$err")"
else
	# instructions (a 64-bit immediate counts 2) after the last one's index
	count() { llvm-objdump -d "$1" | awk '/^ *[0-9]+:/ { n = $1 + 0; w = / ll$/ ? 2 : 1 } END { print n + w }'; }
	nk=$(count "$out/twin-kiln.o"); nc=$(count "$out/twin-clang.o")
	lk=$("$BUILD/tests/loadobj" "$out/twin-kiln.o" --prog on_switch 2>&1); rk=$?
	lc=$("$BUILD/tests/loadobj" "$out/twin-clang.o" --prog on_switch 2>&1); rcl=$?
	dk=$(llvm-objdump -d "$out/twin-kiln.o" | grep -c 'call 0x71\|call 113')
	if [ $rk -ne 0 ] || [ $rcl -ne 0 ]; then
		fail clang-twin "load: kiln $rk ($(tail -1 <<<"$lk")), clang $rcl ($(tail -1 <<<"$lc"))"
	elif [ "$dk" -ne 0 ]; then
		fail clang-twin "kiln's twin calls bpf_probe_read_kernel $dk times"
	elif [ "$nk" -gt "$nc" ]; then
		fail clang-twin "kiln $nk instructions, clang $nc"
	else
		pass "clang-twin (both load; direct loads, kiln $nk instructions, clang $nc)"
	fi
fi

#!/usr/bin/env bash
# struct-ops.sh — a TCP congestion control written in kiln Lisp (tests/lib/struct-ops-cc.lisp):
# the object has libbpf's shape (.struct_ops, its DATASEC, .rel.struct_ops against the
# programs); `kiln run` registers it, a loopback connection that selects it with
# setsockopt(TCP_CONGESTION) moves 4 MB through it and its programs count their calls, and it
# is unregistered when kiln run stops (Ctrl-C) or is killed; `kiln load --attach` keeps it
# registered through a pinned link until `kiln unload`; a skeleton registers it too; clang's
# twin has the same shape and registers the same way. Also the compile errors.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/struct-ops-$$"
mkdir -p "$out"
cc=kcc$$                  # the algorithm's name and the struct's variable: this run's own
ops=kcc_ops_$$
pin=/sys/fs/bpf/kiln-struct-ops-$$
avail=/proc/sys/net/ipv4/tcp_available_congestion_control
k=
cleanup() {
	[ -n "$k" ] && kill -KILL "$k" 2>/dev/null
	"$KILN" unload "$pin" >/dev/null 2>&1
	rm -rf "$pin" "$out"
	# a registration left by a failed run (its name is this run's): by the map's name
	registered && command -v bpftool >/dev/null && bpftool struct_ops unregister name "$ops" >/dev/null 2>&1
}
trap cleanup EXIT
pass() { echo "PASS struct-ops/$1"; }
fail() { echo "FAIL struct-ops/$1: $2"; }
skip() { echo "SKIP struct-ops/$1: $2"; }
registered() { grep -qw "$cc" "$avail" 2>/dev/null; }
# wait_for SECONDS COMMAND...: 0 once COMMAND succeeds, 1 after SECONDS
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}
gone() { ! registered; }
exited() { ! kill -0 "$k" 2>/dev/null; }

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip all "this kernel has no /sys/kernel/btf/vmlinux (struct_ops needs the kernel's BTF)"
	exit 0
fi
src="$out/cc.lisp"
sed -e "s/@CC@/$cc/; s/@OPS@/$ops/" tests/lib/struct-ops-cc.lisp >"$src"
obj="$out/cc.o"

# ---- the object: libbpf's shape, as clang writes SEC(".struct_ops") -------------------------
if ! "$KILN" compile "$src" -o "$obj" 2>"$out/err" || [ -s "$out/err" ]; then
	fail compile "$(head -3 "$out/err")"
	exit 0
fi
pass compile
secs=$(readelf -SW "$obj")
rels=$(readelf -rW "$obj" | sed -n "/'.rel.struct_ops'/,/^$/p")
if grep -Eq '\.struct_ops +PROGBITS .* WA ' <<<"$secs" && grep -q '\.rel\.struct_ops' <<<"$secs" &&
   for p in kcc_ssthresh kcc_cong_avoid kcc_undo_cwnd; do grep -q "struct_ops/$p " <<<"$secs" || exit 1; done; then
	pass "sections (.struct_ops WA, .rel.struct_ops, a struct_ops/NAME section per program)"
else
	fail sections "$(grep -E 'struct_ops' <<<"$secs")"
fi
# ssthresh at 0, cong_avoid at 8, undo_cwnd at 64: the kernel's offsets; type 2 (R_BPF_64_ABS64)
want=$'0000000000000000 kcc_ssthresh\n0000000000000008 kcc_cong_avoid\n0000000000000040 kcc_undo_cwnd'
got=$(awk '/^0/ { printf "%s %s\n", $1, $NF }' <<<"$rels")
types=$(awk '/^0/ { print substr($2, length($2) - 7) }' <<<"$rels" | sort -u)
if [ "$got" == "$want" ] && [ "$types" == 00000002 ]; then
	pass "relocations (3 function pointers, R_BPF_64_ABS64 against the programs' symbols)"
else
	fail relocations "$got / types $types"
fi
btf=$(bpftool btf dump file "$obj" 2>&1)
name_at=$(readelf -x .struct_ops "$obj" | grep -c "$cc")
if grep -q "DATASEC '.struct_ops' size=192 vlen=1" <<<"$btf" && grep -q "offset=0 size=192 (VAR '$ops')" <<<"$btf" &&
   grep -q "STRUCT 'tcp_congestion_ops' size=192 vlen=4" <<<"$btf" && [ "$name_at" -ge 1 ] &&
   readelf -sW "$obj" | grep -Eq " 192 OBJECT +GLOBAL .* $ops\$"; then
	pass "btf (DATASEC .struct_ops holding VAR $ops of tcp_congestion_ops, the name in its bytes, a symbol)"
else
	fail btf "$(grep -E "DATASEC|tcp_congestion_ops|VAR '$ops'" <<<"$btf" | tr '\n' ' ') name $name_at"
fi
dis=$("$KILN" disasm "$obj")
if grep -q '^ *[0-9]*: \*(u32 \*)(r[0-9] + [0-9]*) = r[0-9]*  ; CO-RE byte_off tcp_sock.snd_cwnd$' <<<"$dis" &&
   grep -q '(r1 + 16)' <<<"$dis"; then
	pass "typed args (sk a tcp_sock: snd_cwnd stored with a CO-RE offset; acked is ctx[2])"
else
	fail typed-args "$(grep -E 'snd_cwnd|r1 \+ 16' <<<"$dis" | head -4 | tr '\n' ' ')"
fi

# ---- errors ---------------------------------------------------------------------------------
err_case() {   # NAME EXPECTED-TEXT SOURCE
	printf '%s\n' "$3" >"$out/e-$1.lisp"
	if "$KILN" compile "$out/e-$1.lisp" -o "$out/e-$1.o" 2>"$out/e-$1.err"; then
		fail "error-$1" "compiled"
	elif grep -q -- "$2" "$out/e-$1.err"; then
		pass "error-$1"
	else
		fail "error-$1" "$(head -1 "$out/e-$1.err")"
	fi
}
prog='(defprog a (:type :struct-ops) 0)'
err_case member "has no member 'cong_avod'; did you mean cong_avoid" \
	"$prog (defstruct-ops o :type tcp_congestion_ops (cong_avod a))"
err_case type "no struct_ops type 'task_struct'" "$prog (defstruct-ops o :type task_struct (ssthresh a))"
err_case name-long "holds 16" "$prog (defstruct-ops o :type tcp_congestion_ops :name \"a-name-far-too-long\" (ssthresh a))"
err_case orphan "fills no member of a defstruct-ops" "$prog"
err_case not-struct-ops "takes a :struct-ops program" \
	'(defprog x (:type :xdp) 0) (defstruct-ops o :type tcp_congestion_ops (ssthresh x))'
err_case no-prog "'nope' is no program" "$prog (defstruct-ops o :type tcp_congestion_ops (ssthresh a) (undo_cwnd nope))"
err_case two-members "serves one member" "$prog (defstruct-ops o :type tcp_congestion_ops (ssthresh a) (undo_cwnd a))"
err_case value "give a string" "$prog (defstruct-ops o :type tcp_congestion_ops (ssthresh a) (name 3))"
err_case clash "defstruct-ops 'calls' and a map are both named calls" \
	"(defmap calls :type :array :key u32 :value u64 :max-entries 1) $prog (defstruct-ops calls :type tcp_congestion_ops (ssthresh a))"
err_case probe-store "writes through a pointer the verifier knows" \
	'(defprog p (:type :kprobe :section "kprobe/do_nanosleep") (setf (-> (current-task) pid) 1) 0)'

# ---- live: registered by kiln run, used by a loopback connection, unregistered at the end ----
if ! grep -q "bpf_struct_ops_tcp_congestion_ops" <(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null); then
	skip live "this kernel has no BPF TCP congestion control (no struct bpf_struct_ops_tcp_congestion_ops in its BTF)"
	exit 0
fi
if [ "$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)" == 0 ]; then
	skip live "the BPF JIT is off (net.core.bpf_jit_enable=0): struct_ops programs run through trampolines"
	exit 0
fi
# kiln check: each program loaded alone against its member (the writes to tcp_sock accepted)
if chk=$("$KILN" check "$obj" 2>&1) && [ "$(grep -c ' accepted ' <<<"$chk")" == 3 ]; then
	pass "check (the 3 programs accepted by the verifier)"
else
	fail check "$(tr '\n' ' ' <<<"$chk" | head -c 400)"
fi

"$KILN" run "$obj" >"$out/run.out" 2>"$out/run.err" &
k=$!
if ! wait_for 20 registered; then
	fail registered "$cc not in $avail after 20 s: $(head -3 "$out/run.err" | tr '\n' ' ')"
	exit 0
fi
pass "registered ($cc in $avail)"
if r=$("$BUILD/tests/tcpcc" "$cc" 4194304 2>&1) && [ "$r" == "cc=$cc sent=4194304 received=4194304" ]; then
	pass "connection ($r)"
else
	fail connection "$r"
fi
kill -INT "$k"
if wait_for 10 exited; then wait "$k"; k=; else fail stop "kiln run still running 10 s after SIGINT"; fi
calls=$(sed -n '/^map calls/,/^map /s/^  0 => \([0-9]*\)$/\1/p' "$out/run.out")
acked=$(grep -o 'acked_total: [0-9]*' "$out/run.out" | grep -o '[0-9]*$')
if [ -n "$calls" ] && [ "$calls" -gt 0 ] && [ -n "$acked" ] && [ "$acked" -ge "$calls" ]; then
	pass "ran (cong_avoid called $calls times, told of $acked segments acked: a defvar)"
else
	fail ran "no calls counted: $(head -5 "$out/run.out" | tr '\n' ' ')"
fi
if wait_for 5 gone; then pass "unregistered on Ctrl-C"; else fail unregistered "$cc still in $avail"; fi

# killed, kiln run ends the registration too: it is a link the kernel closes with the process
"$KILN" run "$obj" >/dev/null 2>"$out/run2.err" &
k=$!
if wait_for 20 registered; then
	kill -KILL "$k"
	wait "$k" 2>/dev/null
	k=
	if wait_for 5 gone; then pass "unregistered on SIGKILL (a link)"; else fail sigkill "$cc still in $avail"; fi
else
	fail sigkill "not registered: $(head -2 "$out/run2.err" | tr '\n' ' ')"
fi

# kiln load --attach: the link pinned keeps it registered after kiln exits; unload ends it
if "$KILN" load "$obj" --pin "$pin" --attach >/dev/null 2>"$out/load.err" && registered && [ -e "$pin/links/kcc_ssthresh" ]; then
	if "$KILN" unload "$pin" >/dev/null 2>&1 && wait_for 5 gone; then
		pass "load --attach (registered through the pinned link, unregistered by unload)"
	else
		fail load-unload "$cc still registered after kiln unload"
	fi
else
	fail load "$(head -2 "$out/load.err" | tr '\n' ' ') $(ls "$pin/links" 2>&1)"
fi

# kiln gen skeleton: NAME__attach registers the struct_ops map, NAME__destroy unregisters it
cat >"$out/skel_user.c" <<'EOC'
#include "cc.skel.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* 0 when the congestion control is listed in the available ones as want says */
static int listed(const char *name, int want)
{
	char buf[4096] = "", *tok, *save;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		return -1;
	fclose(f);
	int found = 0;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		found |= !strcmp(tok, name);
	return found == want ? 0 : -1;
}
int main(int argc, char **argv)
{
	struct cc *skel = cc__open_and_load();
	if (!skel || cc__attach(skel)) {
		fprintf(stderr, "open, load or attach failed: %s\n", kiln_errmsg());
		return 1;
	}
	int registered = listed(argv[1], 1);
	cc__destroy(skel);
	if (registered || listed(argv[1], 0)) {
		fprintf(stderr, "%s\n", registered ? "not registered after cc__attach" : "still registered after cc__destroy");
		return 1;
	}
	return argc != 2;
}
EOC
if ! "$KILN" gen skeleton "$obj" --name cc -o "$out/cc.skel.h" 2>"$out/skel.err" ||
   ! gcc -std=gnu11 -Wall -Wextra -Werror ${SANITIZE:-} -Iinclude -I"$out" "$out/skel_user.c" -o "$out/skel_user" \
	"$BUILD/libkiln.a" -lbpf -lelf -ldw -lz -lpthread 2>>"$out/skel.err"; then
	fail skeleton "$(head -3 "$out/skel.err")"
elif r=$("$out/skel_user" "$cc" 2>&1); then
	pass "skeleton (cc__attach registers $cc, cc__destroy unregisters it)"
else
	fail skeleton "$r"
fi

# ---- clang's twin: the same shape, and kiln run registers a clang object's struct_ops too ----
twin="$out/twin.o"
tcc=kct$$
if ! command -v clang >/dev/null || ! command -v bpftool >/dev/null; then
	skip twin "no clang or bpftool"
elif ! { bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$out/vmlinux.h" &&
	 clang -O2 -g -target bpf -I"$out" -DCC_NAME="\"$tcc\"" -DOPS="$ops" -c tests/lib/struct-ops-clang.bpf.c \
	       -o "$twin"; } 2>"$out/twin.err"; then
	fail twin "$(head -3 "$out/twin.err")"
else
	shape() {   # the struct_ops parts of an object: sections, relocations, the DATASEC
		readelf -SW "$1" | awk '/struct_ops/ { for (i = 1; i <= NF; i++) if ($i ~ /struct_ops/) print $i, $(i+1), $(i+6) }' | sort
		readelf -rW "$1" | sed -n "/'.rel.struct_ops'/,/^$/p" | awk '/^0/ { print $1, substr($2, length($2) - 7), $NF }'
		bpftool btf dump file "$1" | grep -A1 "DATASEC '.struct_ops'" | sed -E 's/size=[0-9]* vlen/vlen/; s/^\[[0-9]*\] //; s/type_id=[0-9]*//'
	}
	if diff <(shape "$obj") <(shape "$twin") >"$out/shape.diff"; then
		pass "twin-shape (sections, relocations and DATASEC as clang's)"
	else
		fail twin-shape "$(head -6 "$out/shape.diff" | tr '\n' ' ')"
	fi
	"$KILN" run "$twin" >"$out/twin.out" 2>"$out/twin-run.err" &
	k=$!
	treg() { grep -qw "$tcc" "$avail"; }
	tgone() { ! treg; }
	if wait_for 20 treg && r=$("$BUILD/tests/tcpcc" "$tcc" 1048576 2>&1) && kill -INT "$k" && wait_for 10 exited &&
	   wait "$k" && k= && wait_for 5 tgone; then
		pass "twin-run (clang's registered by kiln run, used: $r; unregistered)"
	else
		fail twin-run "${r:-} $(head -3 "$out/twin-run.err" | tr '\n' ' ')"
	fi
fi

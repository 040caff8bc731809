#!/usr/bin/env bash
# globals.sh — global data (defparameter: .rodata, defvar: .data/.bss), end to end:
# - tests/globals/globals.lisp and its clang twin (tests/lib/globals-twin.bpf.c) run under
#   BPF_PROG_TEST_RUN give the same return values and the same variables, by name, at the
#   same offsets (libbpf lays both out), with and without --set;
# - --set names the setting in its errors (no such variable, not a number, out of range);
# - a setting that turns a branch off lets the verifier skip it: fewer instructions processed;
# - kiln map get/set reads and writes a variable of a pinned object by name, and .rodata
#   refuses writes once loaded;
# - kiln's skeleton sets a setting before load and reads a variable after, live; bpftool's
#   skeleton of kiln's object does the same through libbpf; the skeletons' sizes are reported
#   beside bpftool's of the clang twin;
# - kiln gen python writes the data sections as structs of their size;
# - opensnoop --set target-pid=PID reports that process's opens and no other's.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=globals
. tests/harness/report.sh
. tests/harness/twin_obj.sh
. tests/harness/run.sh
out=$(mktemp -d)
pin=/sys/fs/bpf/kiln-globals-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$out"; [ -n "${k:-}" ] && kill $k 2>/dev/null' EXIT
src=tests/globals/globals.lisp
"$KILN" compile "$src" -o "$out/k.o" 2>"$out/k.err" || { fail compile "$(head -3 "$out/k.err")"; exit 0; }
have_clang=1
twin_obj tests/lib/globals-twin.bpf.c "$out/c.o" >"$out/c.err" || have_clang=0

# ---- kiln and clang: the same results and variables, by name (map names and times left out) --
norm() {   # test-run --json: retval and maps, each line without the object's name and the time
	sed -e 's/"map":"[^".]*\./"map":"./' -e 's/"duration_ns":[0-9]*,//' -e 's/,"data_out":"[^"]*"//' | sort
}
for set in "" "--set mode=1" "--set limit=10 --set offset=7"; do
	name=twin${set:+-$(tr -c 'a-z0-9\n' '-' <<<"${set#--set }" | tr -s '-')}
	# shellcheck disable=SC2086
	kout=$("$KILN" test-run "$out/k.o" --prog globals_xdp --repeat 3 --json $set 2>&1 | norm)
	if [ $have_clang = 0 ]; then
		echo "SKIP $SUITE/$name: no clang for the twin: $(head -1 "$out/c.err")"
		continue
	fi
	# shellcheck disable=SC2086
	cout=$("$KILN" test-run "$out/c.o" --prog globals_xdp --repeat 3 --json $set 2>&1 | norm)
	if [ -n "$kout" ] && grep -q '"counter":3,"tiny":-3,"seen":\[60,0,0,0\]' <<<"$kout"; then
		check "$name" "$cout" "$kout"
	else
		fail "$name" "kiln's run is not the expected one: $(tr '\n' ' ' <<<"$kout" | head -c 400)"
	fi
done
# at -O0 the defun that reads a setting stays a call (a BPF-to-BPF function reading .rodata)
if "$KILN" compile -O0 "$src" -o "$out/k0.o" 2>"$out/k0.err" && "$KILN" disasm "$out/k0.o" | grep -q 'call.*over_limit'; then
	k0=$("$KILN" test-run "$out/k0.o" --prog globals_xdp --repeat 3 --json --set limit=10 2>&1 | norm)
	k2=$("$KILN" test-run "$out/k.o" --prog globals_xdp --repeat 3 --json --set limit=10 2>&1 | norm)
	if grep -q '"retval":1,' <<<"$k0"; then check defun-reads-setting "$k2" "$k0"
	else fail defun-reads-setting "retval not 1 (60 bytes over a limit of 10): $(head -c 300 <<<"$k0")"; fi
else
	fail defun-reads-setting "no call of over_limit at -O0: $(head -3 "$out/k0.err")"
fi
ret=$("$KILN" test-run "$out/k.o" --prog globals_xdp --json --set mode=1 --set offset=-90 2>&1 | grep -o '"retval":[0-9]*')
check set-changes-result '"retval":10' "$ret"

# ---- --set's errors name the setting ---------------------------------------------------------
err=$("$KILN" test-run "$out/k.o" --set nosuch=1 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "setting 'nosuch'.*no such global variable (its globals: limit, mode, offset" <<<"$err"; then
	pass set-unknown
else fail set-unknown "status $rc: $err"; fi
err=$("$KILN" test-run "$out/k.o" --set limit=lots 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "setting 'limit' is a u32: 'lots' is not a number" <<<"$err"; then pass set-not-a-number
else fail set-not-a-number "status $rc: $err"; fi
err=$("$KILN" test-run "$out/k.o" --set mode=256 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "setting 'mode' is a u8: 256 is out of range (0..255)" <<<"$err"; then pass set-out-of-range
else fail set-out-of-range "status $rc: $err"; fi
err=$("$KILN" run "$src" --set limit 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q -- "--set 'limit' is not NAME=VALUE" <<<"$err"; then pass set-no-value
else fail set-no-value "status $rc: $err"; fi

# ---- the verifier prunes what a setting turns off ------------------------------------------
processed() {   # kiln check --json ARGS...: globals_prune's processed count
	"$KILN" check "$@" --json 2>/dev/null | grep '"prog":"globals_prune"' | grep -o '"processed":[0-9]*' | cut -d: -f2
}
off=$(processed "$src") on=$(processed "$src" --set mode=2)
if [ -n "$off" ] && [ -n "$on" ] && [ "$off" -lt "$on" ]; then
	pass "prune (globals_prune: $off instructions processed with mode 0, $on with mode 2)"
else
	fail prune "processed with mode 0 '${off:-?}', with mode 2 '${on:-?}': expected fewer with the branch off"
fi

# ---- kiln map on a pinned object's variables, by name --------------------------------------
if "$KILN" load "$src" --pin "$pin" --set limit=42 >"$out/load.out" 2>&1; then
	ro=$(ls "$pin/maps" | grep rodata) bss=$(ls "$pin/maps" | grep bss)
	check map-get-setting "limit => 42" "$("$KILN" map get "$pin/maps/$ro" limit 2>&1)"
	"$KILN" map set "$pin/maps/$bss" counter 41 2>&1
	check map-set-var '{"map":"k.bss","var":"counter","value":41}' \
		"$("$KILN" map get "$pin/maps/$bss" counter --json 2>&1 | sed 's/"map":"[^".]*\./"map":"k./')"
	check map-get-array "seen => [0, 0, 0, 0]" "$("$KILN" map get "$pin/maps/$bss" seen 2>&1)"
	err=$("$KILN" map set "$pin/maps/$ro" limit 5 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -q "read-only once loaded" <<<"$err"; then pass map-set-rodata-refused
	else fail map-set-rodata-refused "status $rc: $err"; fi
	err=$("$KILN" map get "$pin/maps/$bss" nosuch 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -q "has no variable 'nosuch'" <<<"$err"; then pass map-get-unknown
	else fail map-get-unknown "status $rc: $err"; fi
	"$KILN" unload "$pin" >/dev/null 2>&1
else
	fail map-load "$(head -3 "$out/load.out")"
fi

# ---- kiln's skeleton: a setting made before load, a variable read live after ----------------
cat >"$out/skel.c" <<'EOF'
#include <stdio.h>
#include "k.skel.h"
int main(void)
{
	struct k *skel = k__open();
	if (!skel)
		return 1;
	skel->rodata->mode = 1;
	skel->rodata->offset = 11;
	if (k__load(skel))
		return 2;
	struct kiln_test_run run = { .sz = sizeof(run), .repeat = 4 };
	char pkt[64] = { 0 };
	run.data_in = pkt;
	run.data_size_in = sizeof(pkt);
	if (kiln_prog_test_run(kiln_prog_fd(skel->progs.globals_xdp), &run))
		return 3;
	printf("retval %u counter %llu tiny %d last %u\n", run.retval, (unsigned long long)skel->bss->counter,
	       skel->bss->tiny, skel->data->last);
	k__destroy(skel);
	return 0;
}
EOF
if "$KILN" gen skeleton "$out/k.o" --name k -o "$out/k.skel.h" 2>"$out/gen.err" &&
	# shellcheck disable=SC2086  # SANITIZE: a sanitizer build's flags (make test-asan), as words
	cc ${SANITIZE:-} -I"$out" -Iinclude "$out/skel.c" -o "$out/skel" "$BUILD/libkiln.a" -lbpf -lelf -ldw -lz -lpthread \
		2>"$out/cc.err"; then
	check skeleton-kiln "retval 111 counter 4 tiny -4 last 64" "$("$out/skel" 2>&1)"
else
	fail skeleton-kiln "$(head -3 "$out/gen.err" "$out/cc.err" | tr '\n' ' ')"
fi

# ---- bpftool's skeleton of kiln's object, through libbpf ------------------------------------
cat >"$out/bskel.c" <<'EOF'
#include <stdio.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s16 s16;
typedef __s32 s32;
#include "bk.skel.h"
int main(void)
{
	struct bk *s = bk__open();
	if (!s)
		return 1;
	s->rodata->limit = 30;
	if (bk__load(s))
		return 2;
	char pkt[64] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = 2);
	if (bpf_prog_test_run_opts(bpf_program__fd(s->progs.globals_xdp), &o))
		return 3;
	printf("retval %u counter %llu last %u seen0 %u\n", o.retval, (unsigned long long)s->bss->counter, s->data->last,
	       s->bss->seen[0]);
	bk__destroy(s);
	return 0;
}
EOF
if ! command -v bpftool >/dev/null; then
	echo "SKIP $SUITE/skeleton-bpftool: no bpftool"
elif bpftool gen skeleton "$out/k.o" name bk >"$out/bk.skel.h" 2>"$out/bgen.err" &&
	cc -I"$out" "$out/bskel.c" -o "$out/bskel" -lbpf -lelf -lz 2>"$out/bcc.err"; then
	check skeleton-bpftool "retval 1 counter 2 last 64 seen0 64" "$("$out/bskel" 2>&1)"
	if [ $have_clang = 1 ] && bpftool gen skeleton "$out/c.o" name bc >"$out/bc.skel.h" 2>/dev/null; then
		pass "skeleton-sizes (kiln gen skeleton of kiln's object $(wc -c <"$out/k.skel.h") bytes; bpftool's of kiln's object $(wc -c <"$out/bk.skel.h"), of the clang twin $(wc -c <"$out/bc.skel.h"))"
	fi
else
	fail skeleton-bpftool "$(head -3 "$out/bgen.err" "$out/bcc.err" | tr '\n' ' ')"
fi

# ---- kiln gen python: each data section a struct of its size --------------------------------
if command -v python3 >/dev/null && "$KILN" gen python "$out/k.o" --name k -o "$out/k_types.py" 2>/dev/null; then
	got=$(cd "$out" && python3 -c 'import ctypes, k_types as t; print(ctypes.sizeof(t.k__rodata), ctypes.sizeof(t.k__data), ctypes.sizeof(t.k__bss), [f[0] for f in t.k__bss._fields_ if not f[0].startswith("_")])')
	check gen-python "12 4 28 ['counter', 'tiny', 'seen']" "$got"
else
	echo "SKIP $SUITE/gen-python: no python3"
fi

# ---- opensnoop with a pid filter set before load --------------------------------------------
fifo="$out/go"
mkfifo "$fifo"
sh -c "read x <'$fifo'; exec 3>'$out/mine-$$'; exec 4>'$out/mine2-$$'" &
target=$!
start_run "$out/os.json" "$out/os.err" examples/opensnoop.lisp --json --duration 20 --set target-pid=$target ||
	echo "    opensnoop: kiln run did not say it was running: $(tr '\n' ' ' <"$out/os.err")"
sh -c "exec 3>'$out/other-$$'"          # another process's open: not reported
echo go >"$fifo"
wait $target
wait_text "$out/os.json" "mine2-$$" >/dev/null
kill -INT $k 2>/dev/null
wait $k
k=
pids=$(grep -o '"pid":[0-9]*' "$out/os.json" | sort -u | tr '\n' ' ')
if grep -q "\"path\":\"$out/mine-$$\"" "$out/os.json" && grep -q "\"path\":\"$out/mine2-$$\"" "$out/os.json" &&
	! grep -q "other-$$" "$out/os.json" && [ "$pids" = "\"pid\":$target " ]; then
	pass "opensnoop-target-pid (only pid $target's opens)"
else
	fail opensnoop-target-pid "pids seen: $pids; lines: $(grep -c . "$out/os.json"); $(grep -o '"path":"[^"]*"' "$out/os.json" | tail -3 | tr '\n' ' ')"
fi

#!/usr/bin/env bash
# hostile.sh — untrusted input through the command line: an object with two bytes of .BTF
# changed (the type id of a map definition's first field made 4095: libbpf 1.1 read through
# NULL there) is refused by `kiln check`, `kiln load` and `kiln run` with exit status 1, a
# message naming the object, .BTF and the offset, and no crash; `kiln compile /dev/zero`, a
# pipe of zeros and a 65 MB source fail fast, in bounded memory, naming the file and the
# 64 MB cap; KILN_MAX_INPUT moves the cap; `kiln check` and `kiln disasm` of every input under
# tests/fuzz/regress/object/ end with status 0 or 1, never a signal. Names from an object
# stay data: a program or map named with "/../" pins nothing anywhere, and a tracepoint
# section, Lisp section or `kiln trace` probe with "..", "%2e%2e" or an extra '/' is refused
# by the one tracepoint-name check before any file outside tracefs is read.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-hostile.XXXXXX")
pin=/sys/fs/bpf/kiln-hostile-$$
trap 'rm -rf "$work"; rm -rf "$pin" 2>/dev/null' EXIT
pass() { echo "PASS hostile/$1"; }
fail() { echo "FAIL hostile/$1: $2"; }
ulimit -c 0   # a crash must show as a signal in the status, not leave a core behind

# rc, elapsed ms and peak RSS (KB) of a command, its stderr in $work/err
measure() {
	local t0 t1
	t0=$(date +%s%N)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$work/rss" timeout 60 "$@" >"$work/out" 2>"$work/err"; rc=$?
		rss=$(tail -1 "$work/rss")
		# /usr/bin/time reports a killed child in its own file, not in the status
		grep -q 'terminated by signal' "$work/rss" && rc=139
	else
		timeout 60 "$@" >"$work/out" 2>"$work/err"; rc=$?; rss=0
	fi
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
}

# ---- the reported case: two bytes of .BTF ------------------------------------------------
if ! "$KILN" compile tests/lib/obj-counters.lisp -o "$work/good.o" 2>"$work/err"; then
	fail build "kiln compile obj-counters.lisp: $(head -3 "$work/err")"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "SKIP hostile/corrupt-object: python3 is needed to find the bytes to change"
else
	# the first struct with members in .BTF: its first member's type id, low two bytes -> 0x0fff
	at=$(python3 - "$work/good.o" "$work/bad.o" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shnum, shstrndx = struct.unpack_from('<HH', d, 0x3c)
sh = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + 64 * i) for i in range(shnum)]
names = sh[shstrndx][4]
def name(s): return d[names + s[0]:d.index(0, names + s[0])].decode()
btf = next(s[4] for s in sh if name(s) == '.BTF')
hdr_len, type_off, type_len = struct.unpack_from('<III', d, btf + 4)
extra = {1: 4, 3: 12, 14: 4, 17: 4}            # INT, ARRAY, VAR, DECL_TAG
per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}  # STRUCT, UNION, ENUM, FUNC_PROTO, DATASEC, ENUM64
at = btf + hdr_len + type_off
while at < btf + hdr_len + type_off + type_len:
    info, = struct.unpack_from('<I', d, at + 4)
    kind, vlen = (info >> 24) & 0x1f, info & 0xffff
    if kind == 4 and vlen:
        d[at + 16] = 0xff; d[at + 17] = 0x0f     # member 0's type id: two bytes
        open(sys.argv[2], 'wb').write(d)
        print(at + 12 - btf)                     # the member's offset in .BTF
        break
    at += 12 + extra.get(kind, 0) + per.get(kind, 0) * vlen
EOF
)
	if [ -z "$at" ] || ! [ -s "$work/bad.o" ]; then
		fail corrupt-object "no struct with members found in .BTF"
	else
		want=$(printf "member 0 (at 0x%x) refers to type 4095, which does not exist" "$at")
		for cmd in check load run; do
			case $cmd in
			check) args=() ;;
			load) args=(--pin "$pin") ;;
			run) args=(--duration 1) ;;
			esac
			(cd "$work" && measure "$KILN" $cmd "$work/bad.o" "${args[@]}"; echo "$rc" >"$work/rc")
			rc=$(cat "$work/rc")
			if [ "$rc" = 1 ] && grep -q "object 'bad.o': .BTF: type" "$work/err" && grep -qF "$want" "$work/err" &&
				[ -z "$(ls "$work" | grep -i core)" ]; then
				pass "$cmd-corrupt-btf"
			else
				fail "$cmd-corrupt-btf" "status $rc (1 wanted), stderr: $(head -3 "$work/err" | tr '\n' ' ') (want: $want)"
			fi
		done
		if [ -e "$pin" ]; then fail load-corrupt-pins-nothing "$pin exists"; else pass load-corrupt-pins-nothing; fi
	fi
fi

# ---- names from an object that would lead out of a directory (issue 28) --------------------
# A clang object whose program or map name holds "/../" (an __asm__ label) is refused by
# `kiln load --pin` and `kiln run --pin` before anything is pinned: no stray pin where the name
# led, no DIR when kiln would have made it, a DIR the user made left as it was.
cc_names() {   # output, clang -D flags...
	local o=$1; shift
	clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) "$@" -c tests/lib/hostile-names.bpf.c -o "$o" \
		2>"$work/cc.err"
}
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ndir=/sys/fs/bpf/kiln-hostile-$$-names
stray=kiln-hostile-$$-stray                 # where "/../" would lead: /sys/fs/bpf/$stray
trap 'rm -rf "$work"; rm -rf "$pin" "$ndir" "/sys/fs/bpf/$stray" 2>/dev/null' EXIT
if ! command -v clang >/dev/null || ! cc_names "$work/plain.o"; then
	echo "SKIP hostile/pin-names: no clang to build tests/lib/hostile-names.bpf.c ($(head -1 "$work/cc.err" 2>/dev/null))"
else
	for what in PROG MAP; do
		lname=$(tr A-Z a-z <<<"$what")
		cc_names "$work/esc-$lname.o" "-D${what}_NAME=\"abcdefghijklmno/../../../$stray\""
		for cmd in load run; do
			args=(--pin "$ndir"); [ $cmd = run ] && args+=(--duration 1 -q)
			measure "$KILN" $cmd "$work/esc-$lname.o" "${args[@]}"
			if [ "$rc" = 1 ] && grep -qF "'abcdefghijklmno/../../../$stray' cannot name a pin: it holds a '/'" "$work/err" &&
				grep -q "nothing pinned" "$work/err" && ! [ -e "$ndir" ] && ! [ -e "/sys/fs/bpf/$stray" ]; then
				pass "$cmd-pin-$lname-name-escape"
			else
				fail "$cmd-pin-$lname-name-escape" "status $rc, $ndir $( [ -e "$ndir" ] && echo left || echo gone), stray $( [ -e "/sys/fs/bpf/$stray" ] && echo pinned || echo none), stderr: $(head -2 "$work/err" | tr '\n' ' ')"
			fi
		done
		# a DIR of the user's own stays, empty
		mkdir "$ndir"
		measure "$KILN" load "$work/esc-$lname.o" --pin "$ndir"
		if [ "$rc" = 1 ] && [ -d "$ndir" ] && [ -z "$(ls -A "$ndir")" ] && ! [ -e "/sys/fs/bpf/$stray" ]; then
			pass "load-pin-$lname-name-escape-keeps-user-dir"
		else
			fail "load-pin-$lname-name-escape-keeps-user-dir" "status $rc, $ndir holds '$(ls -A "$ndir" 2>&1 | tr '\n' ' ')'"
		fi
		rmdir "$ndir" 2>/dev/null
	done
	# the plain object pins, and unloads without --force
	measure "$KILN" load "$work/plain.o" --pin "$ndir"
	rc1=$rc
	measure "$KILN" unload "$ndir"
	if [ "$rc1" = 0 ] && [ "$rc" = 0 ] && ! [ -e "$ndir" ]; then pass load-pin-plain-names
	else fail load-pin-plain-names "load status $rc1, unload status $rc: $(head -2 "$work/err" | tr '\n' ' ')"; fi
fi

# ---- tracepoint names from an object, a script or a source: never out of tracefs -------------
# An id file planted outside tracefs, holding a real tracepoint's id (so that using it would
# attach): a section "tracepoint/../../../../../..$work/fake/x" is refused by libkiln's
# attach, in `kiln run` and `kiln load --attach`; so are %2e%2e and an extra '/'. The compiler
# and `kiln trace` refuse the same names through the same check (src/compiler/tracefs.h).
tfs=/sys/kernel/tracing; [ -r $tfs/events/syscalls/sys_enter_getppid/id ] || tfs=/sys/kernel/debug/tracing
if ! [ -r $tfs/events/syscalls/sys_enter_getppid/id ]; then
	echo "SKIP hostile/tracepoint-names: no tracefs with syscalls/sys_enter_getppid on this machine"
elif ! [ -s "$work/plain.o" ]; then
	echo "SKIP hostile/tracepoint-names: no clang (see pin-names)"
else
	mkdir -p "$work/fake/x"
	cp $tfs/events/syscalls/sys_enter_getppid/id "$work/fake/x/id"
	i=0
	for sec in "tracepoint/../../../../../..$work/fake/x" "tracepoint/%2e%2e/%2e%2e/x" \
		"tracepoint/syscalls/sys_enter_getppid/../sys_enter_getppid"; do
		i=$((i + 1))
		cc_names "$work/tp$i.o" "-DTP_SECTION=\"$sec\""
		measure "$KILN" run "$work/tp$i.o" --duration 1
		if [ "$rc" = 1 ] && grep -qF "is not a tracepoint name" "$work/err" && ! grep -q "perf_event_open\|running" "$work/err"; then
			pass "run-attach-tracepoint-section-$i"
		else
			fail "run-attach-tracepoint-section-$i" "$sec: status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"
		fi
		measure "$KILN" load "$work/tp$i.o" --attach --pin "$ndir"
		if [ "$rc" = 1 ] && grep -qF "is not a tracepoint name" "$work/err" && ! [ -e "$ndir" ]; then
			pass "load-attach-tracepoint-section-$i"
		else
			fail "load-attach-tracepoint-section-$i" "$sec: status $rc, $ndir $( [ -e "$ndir" ] && echo left), stderr: $(head -2 "$work/err" | tr '\n' ' ')"
		fi
	done
	for sec in "../../../../../..$work/fake/x" "%2e%2e/%2e%2e/x" "syscalls/sys_enter_getppid/../sys_enter_getppid"; do
		i=$((i + 1))
		printf '(defprog p (:type :tracepoint :section "tracepoint/%s")\n  0)\n' "$sec" >"$work/tp$i.lisp"
		measure "$KILN" compile "$work/tp$i.lisp" -o "$work/tp$i.o"
		if [ "$rc" = 1 ] && grep -qF "'$sec' is not a tracepoint name" "$work/err"; then pass "compile-tracepoint-section-$i"
		else fail "compile-tracepoint-section-$i" "$sec: status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"; fi
	done
	for probe in "..:x" "%2e%2e:x" "syscalls:.." "syscalls:%2e%2e"; do
		i=$((i + 1))
		measure "$KILN" trace -e "tracepoint:$probe { exit(); }"
		if [ "$rc" = 1 ] && grep -qF "is not a tracepoint name" "$work/err" && ! grep -q "Attaching" "$work/out"; then
			pass "trace-tracepoint-$i"
		else
			fail "trace-tracepoint-$i" "tracepoint:$probe: status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"
		fi
	done
	# the planted file next to it is still a real tracepoint's, and plain names still attach
	measure "$KILN" run "$work/plain.o" --duration 1 -q
	if [ "$rc" = 0 ]; then pass run-attach-tracepoint-plain
	else fail run-attach-tracepoint-plain "status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"; fi
fi

# ---- input caps ---------------------------------------------------------------------------
cap_case() {     # name, want-in-stderr, command...
	local name=$1 want=$2; shift 2
	measure "$@"
	if [ "$rc" = 1 ] && grep -qF "$want" "$work/err" && grep -q "larger than kiln's input limit of 64 MB" "$work/err" &&
		[ "$ms" -lt 5000 ] && [ "${rss:-0}" -lt 400000 ]; then
		pass "$name"
	else
		fail "$name" "status $rc, ${ms} ms, ${rss} KB, stderr: $(head -2 "$work/err" | tr '\n' ' ')"
	fi
}
cap_case compile-dev-zero "cannot read /dev/zero" "$KILN" compile /dev/zero -o "$work/z.o"
cap_case compile-pipe "cannot read /dev/stdin" bash -c "cat /dev/zero | '$KILN' compile /dev/stdin -o '$work/z.o'"
truncate -s 65M "$work/big.lisp"
cap_case compile-65mb-source "cannot read $work/big.lisp" "$KILN" compile "$work/big.lisp" -o "$work/z.o"
cp "$work/big.lisp" "$work/big.o" 2>/dev/null || truncate -s 65M "$work/big.o"
cap_case check-65mb-object "$work/big.o" "$KILN" check "$work/big.o"
cap_case disasm-dev-zero "cannot read /dev/zero" "$KILN" disasm /dev/zero
rm -f "$work/big.o"

# the cap moves: at 100 MB the 65 MB source is read (and refused by the reader, not the cap)
measure env KILN_MAX_INPUT=100 "$KILN" compile "$work/big.lisp" -o "$work/z.o"
if [ "$rc" = 1 ] && ! grep -q "input limit" "$work/err" && grep -q "big.lisp:1:1: error" "$work/err"; then
	pass max-input-raises
else
	fail max-input-raises "status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"
fi
printf '(defprog p (:type :xdp) XDP_PASS)\n' >"$work/small.lisp"
head -c 2000000 /dev/zero >>"$work/small.lisp"
measure env KILN_MAX_INPUT=1 "$KILN" compile "$work/small.lisp" -o "$work/z.o"
if [ "$rc" = 1 ] && grep -q "larger than kiln's input limit of 1 MB" "$work/err"; then
	pass max-input-lowers
else
	fail max-input-lowers "status $rc, stderr: $(head -2 "$work/err" | tr '\n' ' ')"
fi

# ---- every input that once crashed kiln or libbpf: refused or handled, never a signal -----------
for f in tests/fuzz/regress/object/*; do
	[ -f "$f" ] || continue
	for cmd in check disasm; do
		measure "$KILN" $cmd "$f"
		if [ "$rc" -le 1 ]; then pass "regress-$cmd-$(basename "$f")"
		else fail "regress-$cmd-$(basename "$f")" "status $rc: $(head -2 "$work/err" | tr '\n' ' ')"; fi
	done
done

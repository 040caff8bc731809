#!/usr/bin/env bash
# trace-v026-builtins.sh — the functions and builtins bpftrace 0.26 added that scripts use,
# run live in `kiln trace` (each program loaded and run; the values it prints checked
# against what the system says): delete(@m, key) with one key and with several,
# len(@m), has_key(@m, key), tuple map keys, ppid (the parent of kiln trace), ncpus (the
# possible CPUs), exit(code) as kiln trace's status, getopt("name", default) of the named
# options after `--` (and, with --dialect 0.17, those words being positional parameters), and
# the dialect's meanings: pid's type and what `-` of unsigned values gives. bpftrace 0.26 is
# not installed here: the expected values are the documentation's (docs/stdlib.md at v0.26.1).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-v026-builtins
. "${ROOT:-$PWD}/tests/harness/report.sh"
if ! "$KILN" trace --dry-run -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
	echo "SKIP $SUITE/suite: kiln trace cannot compile here: $("$KILN" trace --dry-run -e 'BEGIN { exit(); }' 2>&1 | head -1)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The program's lines, without the banner and blank lines, in order.
run() { timeout 60 "$KILN" trace "$@" 2>&1 | grep -v '^Attaching\|^$'; }
# name, BEGIN's body (exit() added), the lines wanted (| between them)
same() { check "$1" "$3" "$(run -e "BEGIN { $2; exit(); }" | tr '\n' '|' | sed 's/|$//')"; }

same delete-key '@m[1] = 10; @m[2] = 20; @m[3] = 30; delete(@m, 2)' '@m[1]: 10|@m[3]: 30'
same delete-old-form '@m[1] = 10; @m[2] = 20; delete(@m[1])' '@m[2]: 20'
same delete-tuple-key '@t[1, "a"] = 5; @t[2, "b"] = 6; delete(@t, (1, "a"))' '@t[2, b]: 6'
same delete-var-key '@m[7] = 1; @m[8] = 2; $k = 7; delete(@m, $k)' '@m[8]: 2'
same delete-value '@a[1] = 1; @a[3] = 3; if (delete(@a, 1)) { printf("deleted\n"); } $d = delete(@a, 2); printf("%d %d\n", $d, delete(@a[3]))' 'deleted|0 1'
same tuple-keys '@t[1, "a"] = 5; @t[1, "b"] = 6; @t[2, "a"] = 7' '@t[1, a]: 5|@t[1, b]: 6|@t[2, a]: 7'
same len '@m[1] = 1; @m[2] = 2; @m[3] = 3; printf("%d\n", len(@m)); delete(@m, 1); printf("%d\n", len(@m)); clear(@m)' '3|2'
same len-empty '@m[1] = 1; delete(@m, 1); printf("%d\n", len(@m))' '0'
same has-key '@m[1] = 1; printf("%d %d\n", has_key(@m, 1), has_key(@m, 2)); clear(@m)' '1 0'
same has-key-tuple '@t[1, "a"] = 1; printf("%d %d\n", has_key(@t, (1, "a")), has_key(@t, (1, "b"))); clear(@t)' '1 0'
same has-key-if '@m[5] = 1; if (has_key(@m, 5)) { printf("yes\n"); } if (!has_key(@m, 6)) { printf("no\n"); } clear(@m)' 'yes|no'

# ppid: BEGIN runs in kiln trace's own process, so its parent is the shell that started it.
got=$(bash -c '"$0" trace -e "BEGIN { printf(\"%d %d\n\", ppid, ppid()); exit(); }" 2>&1 | grep -v "^Attaching\|^$"; echo "$$"' "$KILN" | tr '\n' ' ')
read -r a b sh <<<"$got"
check ppid "$sh $sh" "$a $b"
# ncpus: the possible CPUs (the kernel's cpu/possible list, ranges counted)
want=0
IFS=, read -ra parts </sys/devices/system/cpu/possible
for p in "${parts[@]}"; do
	if [[ $p == *-* ]]; then want=$((want + ${p#*-} - ${p%-*} + 1)); else want=$((want + 1)); fi
done
same ncpus 'printf("%d %d\n", ncpus, ncpus())' "$want $want"

# the task aliases: leader_tid (BEGIN runs in kiln trace: its own pid), pcomm (the shell's
# name), leader_comm
got=$(bash -c '"$0" trace -e "BEGIN { printf(\"%d %d %s %s %s\n\", leader_tid - pid, leader_tid(curtask) - pid, pcomm, pcomm(), leader_comm); exit(); }" 2>&1 | grep -v "^Attaching\|^$"' "$KILN")
check task-aliases "0 0 bash bash kiln" "$got"
same literal-builtins 'printf("%d %d %s %d\n", has_cpid, default_str_length, probetype, has_cpid())' '0 64 special 0'
check has-cpid '1' "$(run -e 'BEGIN { printf("%d\n", has_cpid); exit(); }' -c /bin/true)"
same jiffies 'printf("%d %d\n", jiffies > 0, jiffies() > 0)' '1 1'
same pid-modes 'printf("%d %d %d\n", pid(init) == pid, tid(curr_ns) == tid, pid() == pid)' '1 1 1'
same nsecs-modes 'printf("%d %d %d %d\n", nsecs(monotonic) > 0, nsecs(boot) > 0, nsecs(tai) > nsecs(boot), nsecs(sw_tai) - nsecs(tai) > -1000000000 && nsecs(sw_tai) - nsecs(tai) < 1000000000)' '1 1 1 1'
same is-predicates 'printf("%d%d %d%d %d%d %d%d %d%d\n", is_literal(1), is_literal(pid), is_integer(pid), is_integer(comm), is_unsigned_integer(pid), is_unsigned_integer(-1), is_str(comm), is_str(1), is_ptr(curtask), is_ptr(pid))' '10 10 10 10 10'
same strstr '$s = "hello world"; printf("%d %d %d %d %d %d\n", strstr($s, "world"), strstr($s, "hello"), strstr($s, "xyz"), strstr($s, ""), strstr(comm, "ln"), strstr($s, "d"))' '6 0 -1 0 2 10'
same memcmp '$a = "hello"; $b = "help!"; printf("%d %d %d %d %d %d %d\n", memcmp($a, $b, 3), memcmp($a, $b, 4) < 0, memcmp($b, $a, 4) > 0, memcmp($a, "hello", 6), memcmp(comm, "kiln", 4), memcmp(curtask->comm, curtask->group_leader->comm, 16), memcmp(curtask, curtask->group_leader, 64))' '0 1 1 0 0 0 0'
same strlen '$s = "hello"; printf("%d %d %d %d\n", strlen("abc"), strlen($s), strlen(comm), strlen(""))' '3 5 4 0'
# strlen of a string read from a probe's argument: a file name this test opens
f=$(mktemp -d)/kiln-strlen-probe-file
P="tracepoint:syscalls:sys_enter_openat /str(args->filename) == \"$f\"/ { printf(\"%d %d %d\\n\", strlen(str(args->filename)), strstr(str(args->filename), \"kiln-strlen\"), strstr(str(args->filename), \"nowhere\")); exit(); }"
"$KILN" trace -e "$P" >"$f.out" 2>&1 &
kp=$!
deadline=$((SECONDS + 30))
while kill -0 "$kp" 2>/dev/null && [ $SECONDS -lt $deadline ]; do : >"$f" 2>/dev/null; sleep 0.05; done
kill "$kp" 2>/dev/null; wait "$kp"
d=$(dirname "$f")
check strlen-strstr-probe "${#f} $((${#d} + 1)) -1" "$(grep -v '^Attaching\|^$' "$f.out")"
rm -rf "$(dirname "$f")"

# syscall_name (the system's <asm/unistd_64.h>) and signal_name (strsignal(3)'s text)
same names 'printf("%s|%s|%s|%s|%s\n", syscall_name(0), syscall_name(59), syscall_name(9999), signal_name(2), signal_name(200)); $s = signal_name(9); @[syscall_name(1)] = 1; printf("%s\n", $s)' 'read|execve|Unknown syscall|Interrupt|N/A|Killed|@[write]: 1'
check signal-name-define 'Interrupt' "$(run -e '#include <signal.h>
BEGIN { printf("%s\n", signal_name(SIGINT)); exit(); }')"
# traced_until_exit PROGRAM OUT COMM PYTHON: `kiln trace -e PROGRAM` (output to OUT) while a
# process named COMM runs the python statements (os imported), again and again, until kiln
# trace exits (30 s at most, then it is killed); kiln trace's exit status
traced_until_exit() {
	"$KILN" trace -e "$1" >"$2" 2>&1 &
	local kp=$! deadline=$((SECONDS + 30))
	while kill -0 "$kp" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
		python3 -c "import ctypes,os; ctypes.CDLL(None).prctl(15, b\"$3\"); $4" 2>/dev/null
		sleep 0.05
	done
	kill "$kp" 2>/dev/null
	wait "$kp"
}
# syscall_name of the syscalls a process this test names makes, as raw_syscalls sees them
P='tracepoint:raw_syscalls:sys_enter /comm == "kiln-v026-sys"/ { @[syscall_name(args->id)] = count(); if (args->id == 39) { exit(); } }'
traced_until_exit "$P" "$tmp/sys.out" kiln-v026-sys 'os.getppid(); os.getpid()'
if grep -q '^@\[getppid\]: [0-9]' "$tmp/sys.out" && grep -q '^@\[getpid\]: 1$' "$tmp/sys.out"; then pass syscall-name-probe
else fail syscall-name-probe "$(tr '\n' '|' <"$tmp/sys.out" | head -c 300)"; fi

# static_assert, fail: errors where they are, when compiling
same static-assert 'static_assert(1 == 1 && sizeof(int32) == 4, "ok"); printf("sa\n")' 'sa'
check static-assert-fails 'stdin:1:9: error: static_assert failed: two is small' \
	"$("$KILN" trace --dry-run -e 'BEGIN { static_assert(2 < 1, "two is small"); }' 2>&1 | head -1)"
check fail 'stdin:1:9: error: bad 5 and x, 100%' "$("$KILN" trace --dry-run -e 'BEGIN { fail("bad %d and %s, 100%%", 5, "x"); }' 2>&1 | head -1)"
# usermode on profile samples of a busy shell loop: user and kernel samples both seen
out=$(timeout 30 "$KILN" trace -e 'profile:hz:199 { @[usermode] = count(); @u[usermode()] = count(); if (@[1] > 5) { exit(); } }' 2>&1 &
	timeout 10 sh -c 'while :; do :; done'; wait)
if grep -q '^@\[1\]: [0-9]' <<<"$out" && grep -q '^@u\[1\]: [0-9]' <<<"$out"; then pass usermode; else fail usermode "$(tr '\n' '|' <<<"$out")"; fi

# exit(code): kiln trace's exit status; END still runs and the maps print
out=$("$KILN" trace -e 'BEGIN { @a = 1; exit(3); } END { printf("end\n"); }' 2>&1); rc=$?
check exit-code "3|end|@a: 1" "$rc|$(grep -v '^Attaching\|^$' <<<"$out" | tr '\n' '|' | sed 's/|$//')"
"$KILN" trace -e 'BEGIN { $c = 2; exit($c + 5); }' >/dev/null 2>&1; rc=$?
check exit-code-expr 7 "$rc"
"$KILN" trace -e 'BEGIN { exit(); }' >/dev/null 2>&1; rc=$?
check exit-no-code 0 "$rc"
# exit(code) in a probe that fires: getpid() of a process this test names
P='tracepoint:syscalls:sys_enter_getpid /comm == "kiln-v026-exit"/ { exit(42); }'
traced_until_exit "$P" "$tmp/exit.out" kiln-v026-exit '[os.getpid() for _ in range(100)]'; rc=$?
check exit-code-tracepoint 42 "$rc"

# getopt: the named options after --, typed by the default's type; without a default, a boolean
P='BEGIN { printf("%d %s %d %d %d\n", getopt("aa", 10), getopt("bb", "hello"), getopt("cc"), getopt("dd", false), getopt("ee", true)); exit(); }'
check getopt-defaults '10 hello 0 0 1' "$(run -e "$P")"
check getopt-given '20 bye 1 1 0' "$(run -e "$P" -- --aa=20 --bb=bye --cc --dd=true --ee=0)"
check getopt-with-params 'p1 p2 20 1' "$(run -e 'BEGIN { printf("%s %s %d %d\n", str($1), str($2), getopt("aa", 1), getopt("bb")); exit(); }' p1 -- --aa=20 --bb p2)"
check getopt-description '5' "$(run -e 'BEGIN { printf("%d\n", getopt("n", 1, "how many")); exit(); }' -- --n=5)"
got=$(run -e "$P" -- --aa=x)
if grep -q "takes an integer" <<<"$got"; then pass getopt-bad-int; else fail getopt-bad-int "got: $got"; fi
check getopt-dialect-017 '--aa=20 10' "$(run --dialect 0.17 -e 'BEGIN { printf("%s %d\n", str($1), getopt("aa", 10)); exit(); }' -- --aa=20)"

# ---- the dialects (docs/trace.md's table) -------------------------------------------------
# `-` of unsigned values: 0.26 gives a signed result, 0.17 an unsigned one
same minus-signed '@ = (uint64)1 - (uint64)2' '@: -1'
check minus-unsigned-017 '@: 18446744073709551615' "$(run --dialect 0.17 -e 'BEGIN { @ = (uint64)1 - (uint64)2; exit(); }')"
# integer promotion: 0.26 computes in the wider operand's type (a literal takes the other
# side's when it fits), operands of different signs in a signed type holding both (else int64);
# 0.17 in 64 bits
P='@a = (uint8)255 + 1; @b = (uint8)200 + (uint8)100; @c = (int16)-3 * 20000; @d = (uint8)255 + 1000; @e = sizeof((uint32)5 + (uint8)3); @f = (uint32)4000000000 + (int32)1; @g = (int32)7 + (uint16)65535; @h = sizeof((int32)7 + (uint16)1)'
same promotion "$P" '@a: 0|@b: 44|@c: 5536|@d: 1255|@e: 4|@f: 4000000001|@g: 65542|@h: 4'
check promotion-017 '@a: 256|@b: 300|@c: -60000|@d: 1255|@e: 8|@f: 4000000001|@g: 65542|@h: 8' \
	"$(run --dialect 0.17 -e "BEGIN { $P; exit(); }" | tr '\n' '|' | sed 's/|$//')"
# a positional parameter whose text is no number: a string in 0.26, refused in 0.17
check posparam-string 'p1 20 p1|@[p1]: 1' "$(run -e 'BEGIN { printf("%s %d %s\n", $1, $2, str($1)); @[$1] = 1; exit(); }' p1 -- 20 | tr '\n' '|' | sed 's/|$//')"
out=$("$KILN" trace --dialect 0.17 --dry-run -e 'BEGIN { printf("%s\n", $1); }' p1 2>&1)
if grep -q 'used numerically but given "p1". Try using str(\$1)' <<<"$out"; then pass posparam-string-017; else fail posparam-string-017 "$out"; fi
# pid, tid, cpu and rand are uint32 in 0.26, 64 bits in 0.17 (bpftrace 0.17's sizeof says 8)
same pid-type 'printf("%d %d %d %d\n", sizeof(pid), sizeof(tid), sizeof(cpu), sizeof(rand))' '4 4 4 4'
check pid-type-017 '8 8 8 8' "$(run --dialect 0.17 -e 'BEGIN { printf("%d %d %d %d\n", sizeof(pid), sizeof(tid), sizeof(cpu), sizeof(rand)); exit(); }')"
got=$(bash -c '"$0" trace -e "BEGIN { @[pid] = 1; \$p = pid; printf(\"%d\n\", \$p); exit(); }" 2>&1 | grep -v "^Attaching\|^$"; echo "$$"' "$KILN" | tr '\n' ' ')
read -r p m sh <<<"$got"
if [ "$p" -gt 0 ] 2>/dev/null && [ "$m" = "@[$p]:" ]; then pass pid-value; else fail pid-value "got: $got"; fi

# ---- bpftrace 0.26's options ----------------------------------------------------------------
check version-V "$("$KILN" trace --version)" "$("$KILN" trace -V)"
# --probe-filter: only the probes it matches attach (BEGIN kept); one that matches none is an error
P='BEGIN { printf("begin\n"); } tracepoint:syscalls:sys_enter_getppid { printf("getppid\n"); exit(); }
tracepoint:syscalls:sys_enter_getpid { printf("getpid\n"); exit(); }'
"$KILN" trace --probe-filter 'enter_getppid$' -e "$P" >"$tmp/pf.out" 2>&1 &
kp=$!
deadline=$((SECONDS + 30))
while kill -0 "$kp" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
	python3 -c 'import os; os.getpid(); os.getppid()'; sleep 0.05
done
kill "$kp" 2>/dev/null; wait "$kp"
check probe-filter "Attaching 2 probes...|begin|getppid" "$(grep -v '^$' "$tmp/pf.out" | tr '\n' '|' | sed 's/|$//')"
out=$("$KILN" trace --probe-filter nomatch -e "$P" 2>&1); rc=$?
check probe-filter-none "1 ERROR: No probes matched --probe-filter 'nomatch'" "$rc $out"
out=$("$KILN" trace --probe-filter '(' -e "$P" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "Invalid --probe-filter regex" <<<"$out"; then pass probe-filter-bad; else fail probe-filter-bad "$rc $out"; fi
# -I DIR: #include finds the header there first
mkdir -p "$tmp/inc"
echo '#define KILN_V026_X 42' >"$tmp/inc/kiln_v026.h"
check include-dir 42 "$(run -I "$tmp/inc" -e '#include <kiln_v026.h>
BEGIN { printf("%d\n", KILN_V026_X); exit(); }')"
# -B: none, line, full each give the output whole (to a file: full buffering flushed at the end)
for m in none line full; do
	"$KILN" trace -B $m -o "$tmp/b.out" -e 'BEGIN { printf("a\n"); printf("b\n"); exit(); }' 2>/dev/null
	check "buffer-$m" "a|b" "$(grep -v '^Attaching\|^$' "$tmp/b.out" | tr '\n' '|' | sed 's/|$//')"
done
out=$("$KILN" trace -B sometimes -e 'BEGIN { exit(); }' 2>&1); rc=$?
check buffer-bad "2 kiln trace: -B takes none, line or full" "$rc $out"
check no-warnings "x" "$(run --no-warnings -e 'BEGIN { printf("x\n"); exit(); }')"

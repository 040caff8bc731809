#!/usr/bin/env bash
# names.sh — names from an object are data on the terminal: a clang object whose program
# symbol holds an OSC escape sequence (set the terminal's title) and a BEL, and whose map's
# name holds a colour escape, is refused by `kiln check`, `kiln test-run` and `kiln load` with
# the name escaped (\x1b), and `kiln disasm` (which reads any object) prints it escaped: no
# output of kiln holds a byte that would drive the terminal. A BTF type name patched to hold
# one is refused by `kiln check`, `kiln gen` and `kiln btf dump` the same way. `kiln trace` escapes a comm on a
# terminal.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-names.XXXXXX")
pin=/sys/fs/bpf/kiln-names-$$
trap 'rm -rf "$work"; "$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null' EXIT
pass() { echo "PASS names/$1"; }
fail() { echo "FAIL names/$1: $2"; }

cat >"$work/h.c" <<'C'
#include <linux/bpf.h>
#define SEC(x) __attribute__((section(x), used))
struct { int (*type)[BPF_MAP_TYPE_ARRAY]; int (*key_size)[4]; int (*value_size)[8]; int (*max_entries)[1]; }
	m_esc __asm__("map\x1b[31mRED") SEC(".maps");
SEC("xdp") int prog(void *ctx) __asm__("pr\x1b]0;title\x07og");
int prog(void *ctx) { return 2; }
char _license[] SEC("license") = "GPL";
C
if ! o=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "$work/h.c" -o "$work/h.o" 2>&1); then
	fail build "$o"
	exit 0
fi
raw() { LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$1"; }   # a control byte other than \t and \n

for cmd in check test-run "load --pin $pin"; do
	name=${cmd%% *}
	# shellcheck disable=SC2086  # the command's words
	"$KILN" $cmd "$work/h.o" >"$work/out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && ! raw "$work/out" && grep -q 'pr\\x1b\]0;title\\x07og' "$work/out"; then
		pass "$name-refuses-escaped"
	else
		fail "$name-refuses-escaped" "status $rc: $(cat -v "$work/out" | head -3)"
	fi
done
if [ ! -e "$pin" ]; then pass load-leaves-nothing; else fail load-leaves-nothing "$pin exists"; fi

"$KILN" disasm "$work/h.o" >"$work/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! raw "$work/out" && grep -q '^prog pr\\x1b\]0;title\\x07og (section xdp' "$work/out"; then
	pass disasm-escapes
else
	fail disasm-escapes "status $rc: $(cat -v "$work/out" | head -3)"
fi
"$KILN" disasm --json "$work/h.o" >"$work/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && ! raw "$work/out" && grep -q '"prog":"pr\\u001b\]0;title\\u0007og"' "$work/out"; then
	pass disasm-json-escapes
else
	fail disasm-json-escapes "status $rc: $(cat -v "$work/out" | head -3)"
fi

# A BTF type name patched to hold an escape sequence (no compiler writes one): refused before
# libbpf, by name, escaped; event decoding and the generators never see it.
cat >"$work/b.c" <<'C'
#include <linux/bpf.h>
#define SEC(x) __attribute__((section(x), used))
struct evQQQQ { int a; };
struct { int (*type)[BPF_MAP_TYPE_ARRAY]; int *key; struct evQQQQ *value; int (*max_entries)[1]; } vals SEC(".maps");
SEC("xdp") int prog(void *ctx) { return 2; }
char _license[] SEC("license") = "GPL";
C
if ! o=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "$work/b.c" -o "$work/b.o" 2>&1); then
	fail build-btf "$o"
	exit 0
fi
python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
assert d.count(b"evQQQQ\0") >= 1, "a string to patch (.BTF, and DWARF)"
open(sys.argv[2], "wb").write(d.replace(b"evQQQQ\0", b"ev\x1b[2J\0"))' "$work/b.o" "$work/bad.o"
for cmd in check "gen c"; do
	# shellcheck disable=SC2086  # the command's words
	"$KILN" $cmd "$work/bad.o" >"$work/out" 2>&1; rc=$?
	if [ $rc -ne 0 ] && ! raw "$work/out" && grep -q "'ev\\\\x1b\[2J' holds a control byte" "$work/out"; then
		pass "btf-name-${cmd// /-}-refused"
	else
		fail "btf-name-${cmd// /-}-refused" "status $rc: $(cat -v "$work/out" | head -3)"
	fi
done

# kiln btf dump checks a file's BTF before libbpf reads it: refused the same way, escaped
for fmt in raw c; do
	"$KILN" btf dump "$work/bad.o" --format $fmt >"$work/out" 2>&1; rc=$?
	if [ $rc -eq 1 ] && ! raw "$work/out" && grep -q "'ev\\\\x1b\[2J' holds a control byte" "$work/out"; then
		pass "btf-dump-$fmt-refused"
	else
		fail "btf-dump-$fmt-refused" "status $rc: $(cat -v "$work/out" | head -3)"
	fi
done

# kiln trace: a comm is the system's bytes. On a terminal (script(1) gives it one) the escape
# sequence is written as \x1b, in printf's %s and in a map's key; into a pipe the bytes go as
# bpftrace writes them.
prog='tracepoint:syscalls:sys_enter_getresgid /comm == "k\x1b[31mred"/ { printf("<%s>\n", comm); @[comm] = count(); }'
if command -v script >/dev/null; then
	script -qec "timeout 20 '$KILN' trace -c 'python3 $PWD/tests/names/esccomm.py' -e '$prog'" /dev/null \
		>"$work/tty" 2>&1 </dev/null
	if [ "$(grep -c '^<k\\x1b\[31mred>' "$work/tty")" = 3 ] && grep -q '^@\[k\\x1b\[31mred\]: 3' "$work/tty" &&
	   ! LC_ALL=C grep -q $'\x1b' "$work/tty"; then
		pass trace-terminal-escapes
	else
		fail trace-terminal-escapes "$(cat -v "$work/tty" | head -5)"
	fi
else
	echo "SKIP names/trace-terminal-escapes: no script(1) to give kiln trace a terminal"
fi
timeout 20 "$KILN" trace -c "python3 $PWD/tests/names/esccomm.py" -e "$prog" >"$work/pipe" 2>&1 </dev/null
if [ "$(grep -c $'^<k\x1b\\[31mred>$' "$work/pipe")" = 3 ]; then
	pass trace-pipe-raw
else
	fail trace-pipe-raw "$(cat -v "$work/pipe" | head -5)"
fi

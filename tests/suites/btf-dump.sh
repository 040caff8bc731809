#!/usr/bin/env bash
# btf-dump.sh — `kiln btf dump` beside bpftool's `btf dump` on the same BTF: the raw format
# line for line on a kiln object, a clang object and the kernel's vmlinux; the C format on the
# objects, and on vmlinux up to what the two libbpf versions write differently ("(void)" for
# "()" in an empty parameter list, an enum's mode(byte)); the vmlinux.h kiln writes compiles
# into a CO-RE program; a BTF object the test itself loads, by id; and the errors. SKIP
# without bpftool.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=btf-dump
. "${ROOT:-$PWD}/tests/harness/report.sh"
if ! type -P bpftool >/dev/null; then echo "SKIP $SUITE/suite: bpftool is not installed"; exit 0; fi
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
tmp=$(mktemp -d)
pin=/sys/fs/bpf/kiln-btfdump-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" "$tmp"' EXIT

"$KILN" compile tests/globals/globals.lisp -o "$tmp/k.o" >/dev/null 2>&1 || { fail compile "kiln compile failed"; exit 0; }
objs=(k.o)
cat >"$tmp/c.c" <<'C'
#include <linux/bpf.h>
#define SEC(x) __attribute__((section(x), used))
enum small : unsigned char { S0, S1 = 200 };
enum big { B0 = -1, B1 = 0x7fffffff };
union u { int i; char c[3]; };
struct bits { unsigned a:3, b:5; int c; union u u; enum small s; enum big e; const volatile int *p; };
struct { int (*type)[BPF_MAP_TYPE_ARRAY]; int *key; struct bits *value; int (*max_entries)[1]; } vals SEC(".maps");
int counter SEC(".bss");
static __attribute__((noinline)) int helper(int x, struct bits *b) { return x + b->c; }
SEC("xdp") int prog(struct xdp_md *ctx) { struct bits b = { .c = ctx->ingress_ifindex }; return helper(2, &b) & 3; }
char _license[] SEC("license") = "GPL";
C
if "$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "$tmp/c.c" -o "$tmp/c.o" 2>"$tmp/cc.err"; then
	objs+=(c.o)
else
	echo "SKIP $SUITE/clang-object: clang cannot build it: $(head -c 200 "$tmp/cc.err")"
fi
# the C of the two libbpf versions (Debian's 1.1, bpftool's own) differs in two spellings only
norm() { sed -e 's/(void)/()/g' -e 's/ __attribute__((mode(byte)));$/;/'; }
for o in "${objs[@]}"; do
	check "raw/$o" "$(bpftool btf dump file "$tmp/$o")" "$("$KILN" btf dump "$tmp/$o")"
	check "c/$o" "$(bpftool btf dump file "$tmp/$o" format c | norm)" "$("$KILN" btf dump "$tmp/$o" --format c | norm)"
done

vml=/sys/kernel/btf/vmlinux
if [ -r $vml ]; then
	bpftool btf dump file $vml >"$tmp/b.raw"
	"$KILN" btf dump $vml >"$tmp/k.raw"
	if cmp -s "$tmp/b.raw" "$tmp/k.raw" && [ -s "$tmp/k.raw" ]; then pass "raw/vmlinux ($(wc -l <"$tmp/k.raw") lines)"
	else fail raw/vmlinux "$(diff "$tmp/b.raw" "$tmp/k.raw" | head -5)"; fi
	bpftool btf dump file $vml format c | norm >"$tmp/b.h"
	"$KILN" btf dump $vml --format c >"$tmp/vmlinux.h"
	norm <"$tmp/vmlinux.h" >"$tmp/k.h"
	if cmp -s "$tmp/b.h" "$tmp/k.h"; then pass c/vmlinux
	else fail c/vmlinux "$(diff "$tmp/b.h" "$tmp/k.h" | head -5)"; fi
	# kiln's vmlinux.h is one a CO-RE program builds on
	printf '%s\n' '#include "vmlinux.h"' '#define SEC(x) __attribute__((section(x), used))' \
		'SEC("tp_btf/sched_switch") int on_switch(unsigned long long *ctx) { struct task_struct *t = (void *)ctx[1]; return t->pid & 1; }' \
		'char _license[] SEC("license") = "GPL";' >"$tmp/core.c"
	if o=$("$CLANG" -O2 -g -target bpf -I"$tmp" -c "$tmp/core.c" -o "$tmp/core.o" 2>&1); then pass c/vmlinux-h-compiles
	else fail c/vmlinux-h-compiles "$(head -3 <<<"$o")"; fi
else
	echo "SKIP $SUITE/vmlinux: no $vml"
fi

# a BTF object in the kernel, by id: the one the test's own loaded program carries
if "$KILN" load "$tmp/k.o" --pin "$pin" >"$tmp/load.out" 2>&1; then
	pid_btf=$(bpftool -j prog show pinned "$(ls -d "$pin"/progs/* | head -1)" 2>/dev/null | grep -o '"btf_id":[0-9]*' | cut -d: -f2)
	if [ -n "$pid_btf" ]; then
		check "raw/id" "$(bpftool btf dump id "$pid_btf")" "$("$KILN" btf dump "id:$pid_btf")"
		check "c/id" "$(bpftool btf dump id "$pid_btf" format c | norm)" "$("$KILN" btf dump "id:$pid_btf" --format c | norm)"
	else
		fail id "no btf_id for the test's program: $(ls -R "$pin" | head -5)"
	fi
else
	fail load "$(head -3 "$tmp/load.out")"
fi

# errors: a word that is no id, an id nothing has, a file that is not there, an unknown format
"$KILN" btf dump id:abc >/dev/null 2>"$tmp/e1"; rc=$?
check error/bad-id "1 kiln btf dump: id:abc: Invalid argument (id:N takes a BTF object's id, a number)" "$rc $(cat "$tmp/e1")"
"$KILN" btf dump id:4294967295 >/dev/null 2>"$tmp/e2"; rc=$?
check error/no-such-id "1 kiln btf dump: id:4294967295: No such file or directory" "$rc $(cat "$tmp/e2")"
"$KILN" btf dump "$tmp/none.o" >/dev/null 2>"$tmp/e3"; rc=$?
check error/no-file "1 kiln btf dump: $tmp/none.o: No such file or directory" "$rc $(cat "$tmp/e3")"
"$KILN" btf dump "$tmp/k.o" --format h >/dev/null 2>"$tmp/e4"; rc=$?
check error/format "2 kiln btf: --format takes raw or c, not 'h'" "$rc $(cat "$tmp/e4")"
# untrusted bytes are checked before libbpf reads them: a cut object, a raw blob whose type
# section is out of line
head -c 100 "$tmp/k.o" >"$tmp/cut.o"
"$KILN" btf dump "$tmp/cut.o" >/dev/null 2>"$tmp/e5"; rc=$?
check error/cut-object "1 kiln btf dump: object '$tmp/cut.o': ELF header: section header table (offset $(printf '0x%x' "$(od -An -tu8 -j40 -N8 "$tmp/k.o" | tr -d ' ')"), $(od -An -tu2 -j60 -N2 "$tmp/k.o" | tr -d ' ') entries of 64 bytes) runs past the end of the file (100 bytes)" "$rc $(cat "$tmp/e5")"
printf '\x9f\xeb\x01\x00\x18\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$tmp/bad.btf"
"$KILN" btf dump "$tmp/bad.btf" >/dev/null 2>"$tmp/e6"; rc=$?
check error/bad-raw "1 kiln btf dump: object '$tmp/bad.btf': .BTF: type section (offset 0, length 255) is not 4-byte aligned" "$rc $(cat "$tmp/e6")"

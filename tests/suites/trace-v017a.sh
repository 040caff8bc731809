#!/usr/bin/env bash
# trace-v017a.sh — causes of bpftrace v0.17's runtime suite that kiln trace failed, each
# checked against bpftrace 0.17 on the same program in the same run (and against the values
# the program is known to print): structs the script defines in C (sizeof, pointer
# arithmetic, members of members, arrays of structs, char arrays, a pointer to a pointer, a
# kernel struct's name shadowed; whole structs as values, keys and tuple elements, printed as
# bpftrace prints them); a string $variable assigned a longer string; numaid, ctx,
# strerror() and uptr(); str(p, n) with n computed at run time (a real write()); fields read
# from user memory through a cast (ntop() of a sockaddr_in's address, a sockaddr_in6's
# arrays, on real connect()s). Our program tests/trace/cstructs.c makes the calls, built
# with cc. SKIP without bpftrace or cc.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-v017a
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/bpftrace_bin.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The lines a program prints (bpftrace's banner, its RLIMIT note and blank lines dropped),
# in order: each case prints them from one probe.
run() { timeout 60 "$@" 2>&1 | grep -v '^Attaching\|RLIMIT_MEMLOCK\|^$'; }

# name, the lines bpftrace 0.17 prints here, then the program (and kiln trace's arguments
# after it): bpftrace's output must be WANT (else the case proves nothing: a FAIL of the
# reference) and kiln's the same as bpftrace's.
same() {
	local name=$1 want=$2 prog=$3
	shift 3
	local bt kt
	bt=$(run "$BPFTRACE" "$@" -e "$prog")
	# bpftrace (the reference, not kiln) printing nothing is asked once more, then a SKIP
	[ -z "$bt" ] && bt=$(run "$BPFTRACE" "$@" -e "$prog")
	if [ -z "$bt" ]; then echo "SKIP $SUITE/$name: bpftrace 0.17 printed nothing twice"; return; fi
	kt=$(run "$KILN" trace "$@" -e "$prog")
	check "$name-bpftrace" "$want" "$bt"
	check "$name" "$bt" "$kt"
}

# ---- structs the script defines, in BEGIN --------------------------------------------------
same struct-ptr-math '1024 - 5 x 36 = 844' \
	'struct A {int32_t a; int32_t b; char c[28] }; BEGIN { $a=(struct A*) 1024; printf("%lu - 5 x %lu = %lu\n", $a, sizeof(struct A), $a-5); exit(); }'
same struct-sizeof '8 4 1 8 8' \
	'struct Foo { int x; char c; } BEGIN { $x = 1; printf("%d %d %d %d %d\n", sizeof(struct Foo), sizeof((*(struct Foo*)0).x), sizeof((*(struct Foo*)0).c), sizeof(1 == 1), sizeof($x)); exit(); }'
same struct-layout '12 16 176 24 2 16' \
	'struct T { uint32_t a; uint32_t b[2]; }; struct W { uint32_t a; struct T t; };
	 struct C { uint32_t a; void * b; struct W w[10]; };
	 struct N { struct { int m[1] } y; struct { long n } a; union { char x; short q; } u; };
	 union U { char x; short q; }; struct P { char c; struct N *n; };
	 BEGIN { printf("%d %d %d %d %d %d\n", sizeof(struct T), sizeof(struct W), sizeof(struct C), sizeof(struct N), sizeof(union U), sizeof(struct P)); exit(); }'
same curtask-shadowed 'SUCCESS' \
	'struct task_struct {int x; int y;} i:ms:1 { printf("SUCCESS%s\n", curtask->y >= 0 || curtask->y < 0 ? "" : "?"); exit(); }'

# ---- string $variables ------------------------------------------------------------------------
same str-var-longer $'a=hello\na much longer one|a much longer one' \
	'BEGIN { $a = ""; if (10 < 2) { $a = "hi" } else { $a = "hello" } printf("a=%s\n", $a);
	 $s = "x"; $i = 0; while ($i < 2) { $t = $s; $s = "a much longer one"; $i++; } printf("%s|%s\n", $t, $s); exit(); }'
same str-var-shorter $'longer string\nb|' \
	'BEGIN { $s = "longer string"; printf("%s\n", $s); $s = "b"; printf("%s|\n", $s); exit(); }'

# ---- @a += x on a map nothing assigned: an unsigned integer map from 0 --------------------------
same compound-new-map $'@a: -1\n@b: 18446744073709551614\n@c: 5\n@d: -2' \
	'BEGIN { @a--; @b -= 2; @c += 3; @c += 2; @d = 0; @d -= 2; exit(); }'

# ---- a ternary of calls as a statement; unroll's bounds in bpftrace's words ------------------------
same ternary-calls $'no x\nafter\nA' \
	'BEGIN { $x = 0; $x ? printf("yes %d\n", 1) : printf("no %s\n", "x"); printf("after\n"); $x == 0 ? printf("A\n") : exit(); exit(); }'
for b in 101:maximum:100 0:minimum:1; do
	err=$("$KILN" trace -e "BEGIN { unroll (${b%%:*}) { printf(\"a\"); } exit(); }" 2>&1)
	want="unroll $(cut -d: -f2 <<<"$b") value is ${b##*:}"
	if grep -q "error: $want\$" <<<"$err"; then pass "unroll-${b%%:*}"; else fail "unroll-${b%%:*}" "$(head -1 <<<"$err")"; fi
done

# ---- numaid, ctx, strerror ----------------------------------------------------------------------
same numaid 'SUCCESS 0' 'i:ms:1 { printf("SUCCESS %d\n", numaid); exit(); }'
same ctx 'SUCCESS 1' 'struct x {unsigned long x}; i:ms:1 { printf("SUCCESS %d\n", ctx != 0 && ((struct x*)ctx)->x == ((struct x*)ctx)->x); exit(); }'
same strerror $'Operation not permitted\nNo such file or directory|Permission denied' \
	'BEGIN { print(strerror(EPERM)); printf("%s|%s\n", strerror(2), strerror(nsecs * 0 + 13)); exit(); }' --include errno.h

# ---- a program of our own: uprobes, write(), connect() ------------------------------------------
if ! cc -O1 -o "$tmp/cstructs" tests/trace/cstructs.c 2>"$tmp/cc.err"; then
	echo "SKIP $SUITE/cstructs: cc could not build tests/trace/cstructs.c: $(head -1 "$tmp/cc.err")"
	exit 0
fi
C="$tmp/cstructs"
same uprobe-structs $'7 100 3 92\n123 hello -5 0\n11 -22 200\n456 0123456789\n123 hello\n48 176' \
	"struct T { uint32_t a; uint32_t b[2]; };
	 struct W { uint32_t a; struct T t; };
	 struct C { uint32_t a; void * b; struct W w[10]; };
	 struct Foo { int a; char b[10]; short s; long l; struct { int m[2]; unsigned char u; } in; struct Foo *next; };
	 uprobe:$C:cs_walk {
	   \$c = (struct C *)arg0; \$f = (struct Foo *)arg1; \$pp = (struct Foo **)arg2;
	   printf(\"%d %d %d %d\n\", \$c->a, \$c->w[0].a, \$c->w[3].t.a, \$c->w[4].t.b[1]);
	   printf(\"%d %s %d %d\n\", \$f->a, \$f->b, \$f->s, \$f->l);
	   printf(\"%d %d %d\n\", \$f->in.m[0], \$f->in.m[1], \$f->in.u);
	   printf(\"%d %s\n\", \$f->next->a, \$f->next->b);
	   printf(\"%d %s\n\", (*\$pp)->a, (*\$pp)->b);
	   printf(\"%d %d\n\", sizeof(struct Foo), sizeof(struct C));
	   exit(); }" -c "$C"
same struct-walk 'a: 1045 t: 45' \
	"struct T { uint32_t a; uint32_t b[2]; }; struct W { uint32_t a; struct T t; };
	 uprobe:$C:cs_walk { \$w = (struct W *)arg3; \$i = 10;
	   while (\$i-- > 0) { @a += \$w->a; @t += (\$w++)->t.a; }
	   printf(\"a: %d t: %d\n\", @a, @t); clear(@a); clear(@t); exit(); }" -c "$C"
same struct-values $'123 hello -5\n@k[{.a=123,.b=hello,.s=-5}, 1]: 1\n@u: (0, { .a = 0, .b = [100,100] })\n@v: { .a = 123, .b = hello, .s = -5 }\n@x: { .a = 0, .b = [100,100] }' \
	"struct P { int a; char b[10]; short s; }; struct W { uint32_t a; struct { uint32_t a; uint32_t b[2]; } t; };
	 uprobe:$C:cs_walk { @v = *(struct P *)arg1; @k[*(struct P *)arg1, 1] = 1; \$t = *(struct P *)arg1;
	   printf(\"%d %s %d\n\", \$t.a, \$t.b, \$t.s); @u = (0, (*(struct W *)arg3).t); @x = ((struct W *)arg3)->t; exit(); }" -c "$C"
same cast-of-sum $'100 98 123' \
	"struct T { uint32_t a; uint32_t b[2]; }; struct W { uint32_t a; struct T t; };
	 uprobe:$C:cs_walk { \$w = (struct W *)(arg0 + 16);
	   printf(\"%d %d %d\n\", \$w->a, ((struct W *)(arg3 + 16))->t.b[1], *(int32 *)(arg1 + 0)); exit(); }" -c "$C"
same str-runtime-len $'<hello>\n<world, a longer line>' \
	'tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("<%s>\n", str(args->buf, args->count)); }' -c "$C"
same str-len-clamped 'hel|hello|' \
	"uprobe:$C:cs_walk { \$n = 3; printf(\"%s|%s|%s\n\", str(arg1 + 4, \$n), str(arg1 + 4, \$n * 100), str(arg1 + 4, \$n - 4)); exit(); }" -c "$C"
same user-ntop-v4 $'127.0.0.1 2 2304 16' \
	'tracepoint:syscalls:sys_enter_connect /pid == cpid && ((struct sockaddr *)args->uservaddr)->sa_family == AF_INET/ {
	   $sa = (struct sockaddr_in *)args->uservaddr;
	   printf("%s %d %d %d\n", ntop(((struct sockaddr_in *)args->uservaddr)->sin_addr.s_addr), $sa->sin_family, $sa->sin_port, sizeof(*$sa)); }' \
	--include sys/socket.h -c "$C"
same user-arrays-v6 $'fe80::1:2:3 2304 7 3000200 768' \
	'tracepoint:syscalls:sys_enter_connect /pid == cpid && ((struct sockaddr *)args->uservaddr)->sa_family == AF_INET6/ {
	   $sa = (struct sockaddr_in6 *)args->uservaddr;
	   printf("%s %d %d %x %d\n", ntop($sa->sin6_addr.in6_u.u6_addr8), $sa->sin6_port, $sa->sin6_scope_id,
	          $sa->sin6_addr.in6_u.u6_addr32[3], $sa->sin6_addr.in6_u.u6_addr16[7]); }' \
	--include sys/socket.h -c "$C"
same uptr '7' "uprobe:$C:cs_walk { printf(\"%d\n\", *(int32 *)uptr(arg0)); exit(); }" -c "$C"

# ---- what the C reader refuses, at the definition ---------------------------------------------
err=$("$KILN" trace -e 'struct A { struct B b; } BEGIN { exit(); }' 2>&1)
if grep -q '^stdin:1:21: error: struct B is used before the script defines it' <<<"$err"; then pass undefined-member
else fail undefined-member "$(head -1 <<<"$err")"; fi
err=$("$KILN" trace -e 'struct A { float f; } BEGIN { exit(); }' 2>&1)
if grep -q "^stdin:1:12: error: the type 'float' in a struct definition is not known" <<<"$err"; then pass unknown-type
else fail unknown-type "$(head -1 <<<"$err")"; fi

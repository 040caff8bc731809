#!/usr/bin/env bash
# trace-pointers.sh — pointer arithmetic in `kiln trace`, checked against bpftrace 0.17 on
# the same programs in the same run: p + i, i + p, p - i, p += i, p -= i, p++ and p-- move
# i elements of the pointee's size (int16 * by 2, a kernel struct pointer by its BTF size),
# on $variables and maps alike; p - p is refused with bpftrace's words. Then a program of our
# own (tests/trace/ptrs.c, built with cc) hands a uprobe real pointers: an int32 ** walked
# with ** and ++, int64 * and int16 * read through scaled pointers, one kept in a map. SKIP
# without bpftrace or cc.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-pointers
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/bpftrace_bin.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The lines a program prints that are its maps' or printf's, sorted (bpftrace's banner and
# its RLIMIT note are not the program's).
run() { timeout 60 "$@" 2>&1 | grep -v '^Attaching\|RLIMIT_MEMLOCK\|^$' | sort; }

# name, then the body of a BEGIN probe (exit() is added)
same() {
	local want got
	want=$(run "$BPFTRACE" -e "BEGIN { $2; exit(); }")
	# bpftrace (the reference, not kiln) printing nothing is asked once more, then a SKIP
	[ -z "$want" ] && want=$(run "$BPFTRACE" -e "BEGIN { $2; exit(); }")
	got=$(run "$KILN" trace --dialect 0.17 -e "BEGIN { $2; exit(); }")
	if [ -z "$want" ]; then echo "SKIP $SUITE/$1: bpftrace 0.17 printed nothing twice for: $2"; return; fi
	check "$1" "$want" "$got"
}
same map-addeq '@=(int16*)32; @+=1'
same map-subeq '@=(int32*)32; @-=6'
same map-subeq-map '@dec = 4; @=(int32*)32; @-=@dec'
same map-post-inc '@=(int16*)32; $x=@++; printf("%d\n", $x)'
same map-pre-inc '@=(int64*)32; $x=++@; printf("%d\n", $x)'
same map-dec '@=(int32*)32; @--'
same keyed-map '$p=(int16*)32; @[1]=$p; @[1]+=1'
same var-inc '$p=(int32*)32; $p++; $x=$p--; printf("%d %d\n", $x, $p)'
same var-addeq '$p=(int64*)32; $p+=2; $p-=1; @=$p'
same int8 '@=(int8*)32 + 3'
same int-plus-ptr '@=1 + (int16*)32'
same ptr-minus '@=(int16*)32 - 1'
same struct-ptr '@=(struct task_struct*)32 + 1; @b=(struct task_struct*)8192 - 2'
same plain-int '@=32; @+=1; @++'
# two pointers: refused by both (the message is bpftrace's)
msg='The - operator can not be used on expressions of types int32 \*, int32 \*'
bt=$("$BPFTRACE" -e 'BEGIN { $a=(int32*)32; $b=(int32*)40; @=$b-$a; exit(); }' 2>&1)
kt=$("$KILN" trace --dialect 0.17 -e 'BEGIN { $a=(int32*)32; $b=(int32*)40; @=$b-$a; exit(); }' 2>&1)
if grep -q "$msg" <<<"$bt" && grep -q "$msg" <<<"$kt"; then pass ptr-minus-ptr
else fail ptr-minus-ptr "bpftrace: $(grep -v RLIMIT <<<"$bt" | head -1); kiln: $(head -1 <<<"$kt")"; fi

# ---- real pointers, a uprobe's arguments -----------------------------------------------------
if ! cc -O1 -o "$tmp/ptrs" tests/trace/ptrs.c 2>"$tmp/cc.err"; then
	echo "SKIP $SUITE/uprobe: cc could not build tests/trace/ptrs.c: $(head -1 "$tmp/cc.err")"
	exit 0
fi
P="uprobe:$tmp/ptrs:ptr_walk { \$p = (int32 **)arg0; @x = **(\$p + 1); \$q = (int32 **)arg0; \$q++;
@y = **\$q; \$q += 1; @z = **\$q; \$l = (int64 *)arg1; @l = *(\$l + 3); @l2 = *(2 + \$l);
@h = (int16 *)arg2; @h += 2; @hv = *@h; @h--; @hv2 = *@h; delete(@h); exit(); }"
want=$(run "$BPFTRACE" -e "$P" -c "$tmp/ptrs")
got=$(run "$KILN" trace --dialect 0.17 -e "$P" -c "$tmp/ptrs")
check uprobe-bpftrace "@hv2: -2|@hv: -3|@l2: 300|@l: 400|@x: 22|@y: 22|@z: 33" "$(tr '\n' '|' <<<"$want" | sed 's/|$//')"
check uprobe "$want" "$got"

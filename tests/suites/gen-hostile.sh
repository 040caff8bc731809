#!/usr/bin/env bash
# gen-hostile.sh — `kiln gen` (issue 28 item 1) on an object whose every name is hostile:
# tests/gen/hostile.c compiled by clang, its placeholders overwritten by tests/gen/hostile.py
# (program and map symbols with quotes, backslashes, newlines, */ and `"))) {} system(...)`;
# section names with */ and newlines; BTF struct, field, typedef, enum and enumerator names
# that are keywords or built-in names of C, Python, Rust and Go, u8, ctypes, a$b beside a_b,
# names with */, newlines and bytes that are not UTF-8, and names carrying C, Python and Rust
# code that runs if written raw), read from a path that holds */, a newline and C code. Each
# payload would touch a pwned-* file in the directory the generated code runs in. libkiln
# refuses names with control bytes or bytes that are not UTF-8 (raw-refused-*: the object
# with every byte, refused by each generator); the generators meet the same names with such
# bytes made ' ' and '?' (tests/gen/hostile.py without --raw).
#  - c: the header compiles (-Werror, after stdint.h, errno.h, stdlib.h) beside static asserts
#    of the renamed members' offsets, enumerators and sizes, and the program runs; an
#    anonymous member whose field would clash with its struct's own x is named anon1;
#  - skeleton: a program built on it (-Werror, linked with libkiln) opens the object, which
#    proves every map and program was found by its exact bytes through the escaped literals;
#  - python: the module imports; the renamed fields sit at their BTF offsets and read their
#    own bytes; class_ and ctypes_ are classes, ctypes still the module; MAPS has each map
#    under its exact name; the clashing anonymous member is not promoted (_anonymous_);
#  - rust: rustc builds and runs offset_of/size_of checks of the renamed fields and types;
#  - go: go vet and a test of unsafe.Offsetof; --name func gives package func_ (SKIP without go);
#  - lisp: a session loads it; the renamed fields read their bytes; each map's name is exact;
#    promo's clashing anonymous member keeps its fields, the other's read as promo's own;
#  - kernel-types: maps of vmlinux's task_struct and sk_buff (tests/gen/ktypes.c), whose
#    names (bool, sigset_t, __call_single_node...) every language must take;
#  - payload-*: each language's payloads alone in an object (the rest plain names), whose
#    generated code compiles and runs as it would for the payloads had they got through;
#  - no pwned-* file exists afterwards, and the renames were warned about on stderr.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
CLANG=${CLANG:-clang}
unset MAKEFLAGS MFLAGS   # rustc and go would take make's jobserver
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
SUITE=gen-hostile
. tests/harness/report.sh
for tool in "$CLANG" gcc python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP gen-hostile: no $tool"
		exit 0
	fi
done
tmp=$(mktemp -d /tmp/kiln-gen-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run=$tmp/run   # where generated code runs: a payload would touch pwned-* here
mkdir -p "$run"
# a directory whose path ends one C comment and declares a constructor
dir="$tmp/p*/"$'\n''int system(const char *); __attribute__((constructor)) static void pwp(void){system("touch pwned-path");} /*'
mkdir -p "$dir"
obj=$dir/hostile.o
if ! out=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c tests/gen/hostile.c -o "$tmp/plain.o" 2>&1) ||
   ! out=$(python3 tests/gen/hostile.py "$tmp/plain.o" "$obj" 2>&1) ||
   ! out=$(python3 tests/gen/hostile.py "$tmp/plain.o" "$dir/raw.o" --raw 2>&1); then
	fail object "$out"; exit 0
fi
# the names with control bytes and bytes that are not UTF-8: the object is refused before any
# generator reads it, by a message that names the first such name escaped, and nothing is written
for lang in c skeleton python rust go lisp; do
	(cd "$run" && "$KILN" gen "$lang" "$dir/raw.o" -o "$tmp/raw.$lang" 2>"$tmp/raw.err"); rc=$?
	if [ $rc -ne 0 ] && [ ! -e "$tmp/raw.$lang" ] && grep -q 'holds a control byte or invalid UTF-8' "$tmp/raw.err" &&
	   ! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$tmp/raw.err"; then
		pass "raw-refused-$lang"
	else
		fail "raw-refused-$lang" "status $rc: $(cat -v "$tmp/raw.err" | head -2)"
	fi
done
gen() {   # LANG OUT [ARGS]: kiln gen in $run, its warnings kept in $tmp/LANG.err
	local lang=$1 o=$2
	shift 2
	(cd "$run" && "$KILN" gen "$lang" "$obj" -o "$o" "$@" 2>"$tmp/$lang.err")
}

# C: the renamed members at their offsets, next to the headers whose names they would hide
if ! gen c "$tmp/hostile_types.h"; then
	fail c "$(cat "$tmp/c.err")"
else
	cat >"$tmp/c_check.c" <<'C'
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "hostile_types.h"
#define AT(m, off) _Static_assert(offsetof(struct coll, m) == off, #m);
AT(a_b_, 0) AT(a_b, 4) AT(self, 8) AT(class, 10) AT(in, 12) AT(func, 16) AT(_pad0, 20)
AT(_fields_, 24) AT(x__y, 32) AT(n_l, 40) AT(__, 44) AT(int_, 48) AT(errno_, 52) AT(EINVAL_, 56)
AT(type, 60) AT(struct_, 64)
_Static_assert(sizeof(struct coll) == 72 && sizeof(struct u8) == 2 && sizeof(struct a_b_) == 8 &&
	       sizeof(struct a_b) == 16 && sizeof(struct int_) == 4 && sizeof(uint32_t_) == 4 &&
	       sizeof(struct holder) == 80, "sizes");
/* promo's first anonymous struct would hide promo's x: it is a member of its own */
_Static_assert(offsetof(struct promo, x) == 0 && offsetof(struct promo, anon1.x) == 4 &&
	       offsetof(struct promo, anon1.y) == 8 && offsetof(struct promo, z) == 12, "promo");
_Static_assert(EINVAL_ == 1 && x___y == 2 && sizeof(enum union_) == 4, "the enum");
int main(void) { struct coll c = { .a_b = 7 }; return c.a_b_ + (int)c.a_b - 7 + (errno = 0); }
C
	n=$(grep -o 'AT([a-zA-Z_0-9]*, [0-9]*)' "$tmp/c_check.c" | wc -l)
	if out=$(gcc -std=gnu11 -Wall -Wextra -Werror -I"$tmp" "$tmp/c_check.c" -o "$tmp/c_check" 2>&1) &&
	   out=$(cd "$run" && "$tmp/c_check" 2>&1); then
		pass "c ($n offsets, 7 sizes, the enum, an anonymous member named)"
	else
		fail c "$out"
	fi
fi

# the skeleton: the object opens, every map and program found by its exact name
if ! gen skeleton "$tmp/hostile.skel.h"; then
	fail skeleton "$(cat "$tmp/skeleton.err")"
else
	cat >"$tmp/skel_check.c" <<'C'
#include "hostile.skel.h"
#include <stdio.h>
int main(void)
{
	struct hostile *s = hostile__open();
	if (!s) {
		printf("open: %s\n", kiln_errmsg());
		return 1;
	}
	/* the member of map a$b is a_b_, of a_b a_b; program p3?? is p3__, int int_ */
	printf("%s|%s|%d|%d\n", kiln_map_name(s->maps.a_b_), kiln_map_name(s->maps.a_b),
	       kiln_prog_name(s->progs.p3__)[2] == '?', !!s->progs.int_);
	hostile__destroy(s);
	return 0;
}
C
	# shellcheck disable=SC2086  # SANITIZE: a sanitizer build's flags, as words
	if out=$(gcc -std=gnu11 -Wall -Wextra -Werror ${SANITIZE:-} -Iinclude -I"$tmp" "$tmp/skel_check.c" \
			-o "$tmp/skel_check" "$BUILD/libkiln.a" -lbpf -lelf -ldw -lz -lpthread 2>&1); then
		# shellcheck disable=SC2016  # a$b: the map's name, not an expansion
		check skeleton 'a$b|a_b|1|1' "$(cd "$run" && "$tmp/skel_check" 2>&1)"
	else
		fail skeleton "$out"
	fi
fi

# Python: import, offsets, the bytes each renamed field reads, the names the module keeps
if ! gen python "$tmp/hostile_py.py"; then
	fail python "$(cat "$tmp/python.err")"
else
	out=$(cd "$run" && PYTHONPATH=$tmp python3 - 2>&1 <<'PY'
import struct
import hostile_py as x
want = {"a_b_": 0, "a_b": 4, "self": 8, "class_": 10, "in_": 12, "func": 16, "_pad0_": 20,
        "_fields__": 24, "x__y": 32, "n_l": 40, "__": 44, "int": 48, "errno": 52, "EINVAL": 56,
        "type": 60, "struct": 64}
got = {f: getattr(x.coll, f).offset for f in want}
assert got == want, got
c = x.coll.from_buffer_copy(struct.pack("<II", 11, 22) + bytes(64))
assert (c.a_b_, c.a_b) == (11, 22), (c.a_b_, c.a_b)
assert x.ctypes.__name__ == "ctypes" and x.ctypes_.__name__ == "ctypes_" and x.class_.__name__ == "class_"
assert [x.ctypes.sizeof(t) for t in (x.coll, x.u8, x.a_b_, x.a_b, x.holder)] == [72, 2, 8, 16, 80]
# promo's first anonymous struct is not promoted (its x would hide promo's), its second is
p = x.promo.from_buffer_copy(struct.pack("<IIII", 1, 2, 3, 4))
assert (p.x, p.anon1.x, p.anon1.y, p.z, hasattr(p, "y")) == (1, 2, 3, 4, False), (p.x, p.anon1.x, p.z)
maps = {'m1"))) {} system("touch pwned-map"); if (!(1 || ("': x.coll,
        'x": None, **(__import__("os").system("touch pwned-pymap") or {}), "y': x.holder,
        "a$b": None, "a_b": None, "plain": None}
assert sorted(x.MAPS) == sorted(maps), sorted(x.MAPS)
assert all(v is None or x.MAPS[k][1] is v for k, v in maps.items())
assert x.MAPS["a$b"][1] is not x.MAPS["a_b"][1]
print("ok", len(want))
PY
)
	check python "ok 16" "$out"
fi

# Rust: the renamed fields' offsets and types' sizes, in a program that runs
if ! command -v rustc >/dev/null; then
	echo "SKIP gen-hostile/rust: no rustc installed (Debian's rustc is a test dependency)"
elif ! gen rust "$tmp/hostile_rs.rs"; then
	fail rust "$(cat "$tmp/rust.err")"
else
	cat >"$tmp/rs_check.rs" <<'RS'
mod hostile_rs;
use hostile_rs as x;
use std::mem::{offset_of, size_of};
fn main() {
    let got = [offset_of!(x::coll, a_b_), offset_of!(x::coll, a_b), offset_of!(x::coll, self_),
               offset_of!(x::coll, class), offset_of!(x::coll, in_), offset_of!(x::coll, func),
               offset_of!(x::coll, _pad0_), offset_of!(x::coll, _fields_), offset_of!(x::coll, x__y),
               offset_of!(x::coll, n_l), offset_of!(x::coll, __), offset_of!(x::coll, int),
               offset_of!(x::coll, errno), offset_of!(x::coll, EINVAL), offset_of!(x::coll, type_),
               offset_of!(x::coll, struct_)];
    assert_eq!(got, [0, 4, 8, 10, 12, 16, 20, 24, 32, 40, 44, 48, 52, 56, 60, 64]);
    assert_eq!([size_of::<x::coll>(), size_of::<x::u8_>(), size_of::<x::impl_>(), size_of::<x::Self_>(),
                size_of::<x::a_b_>(), size_of::<x::a_b>(), size_of::<u8>()], [72, 2, 4, 4, 8, 16, 1]);
    assert_eq!([offset_of!(x::promo, x), offset_of!(x::promo, anon1), offset_of!(x::promo, anon2)], [0, 4, 12]);
    println!("ok {}", got.len());
}
RS
	if out=$(rustc --edition 2021 -o "$tmp/rs_check" "$tmp/rs_check.rs" 2>&1); then
		check rust "ok 16" "$(cd "$run" && "$tmp/rs_check" 2>&1)"
	else
		fail rust "$out"
	fi
fi

# Go: vet, and the offsets in a test; the package name func becomes func_
if ! command -v go >/dev/null; then
	echo "SKIP gen-hostile/go: no go toolchain installed (Debian's golang-go, in the Makefile's DEB_PKGS)"
elif ! mkdir -p "$tmp/go" "$tmp/gofunc" || ! gen go "$tmp/go/hostile.go"; then
	fail go "$(cat "$tmp/go.err")"
else
	cat >"$tmp/go/hostile_test.go" <<'GO'
package hostile

import (
	"testing"
	"unsafe"
)

func TestLayout(t *testing.T) {
	var c Coll
	got := []uintptr{unsafe.Offsetof(c.AB_), unsafe.Offsetof(c.AB), unsafe.Offsetof(c.Self),
		unsafe.Offsetof(c.Class), unsafe.Offsetof(c.In), unsafe.Offsetof(c.Func), unsafe.Offsetof(c._Pad0),
		unsafe.Offsetof(c._Fields_), unsafe.Offsetof(c.XY), unsafe.Offsetof(c.NL), unsafe.Offsetof(c.__),
		unsafe.Offsetof(c.Int), unsafe.Offsetof(c.Errno), unsafe.Offsetof(c.EINVAL), unsafe.Offsetof(c.Type),
		unsafe.Offsetof(c.Struct), unsafe.Sizeof(c), unsafe.Sizeof(AB_{}), unsafe.Sizeof(AB{}), unsafe.Sizeof(U8{}),
		unsafe.Offsetof(Promo{}.X), unsafe.Offsetof(Promo{}.Anon1), unsafe.Offsetof(Promo{}.Anon2)}
	want := []uintptr{0, 4, 8, 10, 12, 16, 20, 24, 32, 40, 44, 48, 52, 56, 60, 64, 72, 8, 16, 2, 0, 4, 12}
	for i := range want {
		if got[i] != want[i] || CollSize != 72 || AB_Size != 8 {
			t.Fatalf("layout %v, want %v", got, want)
		}
	}
}
GO
	export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath GOFLAGS=-mod=mod GO111MODULE=on
	printf 'module hostile\n' >"$tmp/go/go.mod"
	printf 'module func_\n' >"$tmp/gofunc/go.mod"
	if ! out=$(cd "$tmp/go" && go vet . 2>&1 && go test . 2>&1); then
		fail go "$out"
	elif ! gen go "$tmp/gofunc/x.go" --name func || ! out=$(cd "$tmp/gofunc" && go vet . 2>&1); then
		fail go-package-name "$out $(cat "$tmp/go.err")"
	else
		pass "go (23 offsets and sizes)"
		check go-package-name "package func_|kiln gen: warning: package name 'func' written as func_" \
			"$(grep '^package' "$tmp/gofunc/x.go")|$(grep 'package name' "$tmp/go.err")"
	fi
fi

# Lisp: the file loads in a session; the renamed fields read their own bytes; each map's
# name comes back exact from its string (quotes, parentheses and backslashes escaped)
if ! gen lisp "$tmp/hostile.lisp"; then
	fail lisp "$(cat "$tmp/lisp.err")"
else
	cat "$tmp/hostile.lisp" - >"$tmp/lisp_check.lisp" <<'EOF'
(let* ((b (make-array 72 :initial-element 0))
       (c (progn (setf (aref b 0) 11 (aref b 4) 22) (decode-coll b))))
  (format t "~a ~a ~a~%" (coll-record-a-b_ c) (coll-record-a-b c) (length c))
  (format t "~a ~a ~a~%" +a-b_-size+ +a-b-size+ +class-size+)
  (dolist (m *hostile-maps*) (format t "~a~%" (car m))))
(let ((p (decode-promo (vector 1 0 0 0 2 0 0 0 3 0 0 0 4 0 0 0))))
  (format t "~a ~a ~a ~a~%" (promo-record-x p) (third (promo-record-anon1 p)) (promo-record-z p)
          (handler-case (promo-record-y p) (error () "no promo-record-y"))))
EOF
	check lisp '11 22 33
8 16 4
m1"))) {} system("touch pwned-map"); if (!(1 || ("
x": None, **(__import__("os").system("touch pwned-pymap") or {}), "y
a$b
a_b
plain
1 2 4 no promo-record-y' "$(cd "$run" && "$KILN" run "$tmp/lisp_check.lisp" 2>&1)"
fi

# each language's payloads alone (tests/gen/hostile.py --payloads), so that nothing but the
# escaping stands between them and a compiler that takes the file and a program that runs it
declare -A GEN=([c]=c [skel]=skeleton [py]=python [rs]=rust)
payload() {   # LANG DIR: the object with LANG's payloads, in DIR
	python3 tests/gen/hostile.py "$tmp/plain.o" "$2/$1.o" --payloads "$1" &&
		(cd "$run" && "$KILN" gen "${GEN[$1]}" "$2/$1.o" -o "$tmp/pay_$1.out" 2>/dev/null)
}
mkdir -p "$tmp/plain"
if out=$(payload c "$dir" 2>&1) && cp "$tmp/pay_c.out" "$tmp/pay_c.h" &&
   out=$(printf '#include "pay_c.h"\nint main(void) { return 0; }\n' >"$tmp/pay_c.c" &&
	 gcc -std=gnu11 -Wall -I"$tmp" "$tmp/pay_c.c" -o "$tmp/pay_c" 2>&1 && cd "$run" && "$tmp/pay_c" 2>&1); then
	pass payload-c
else
	fail payload-c "$out"
fi
if out=$(payload skel "$dir" 2>&1) && cp "$tmp/pay_skel.out" "$tmp/skel.skel.h" &&
   out=$(printf '#include "skel.skel.h"\n#include <stdio.h>\nint main(void) { struct skel *s = skel__open(); printf("%%s", s ? "opened" : kiln_errmsg()); skel__destroy(s); return 0; }\n' >"$tmp/pay_skel.c" &&
	 # shellcheck disable=SC2086  # SANITIZE: a sanitizer build's flags, as words
	 gcc -std=gnu11 -Wall ${SANITIZE:-} -Iinclude -I"$tmp" "$tmp/pay_skel.c" -o "$tmp/pay_skel" "$BUILD/libkiln.a" \
		-lbpf -lelf -ldw -lz -lpthread 2>&1 && cd "$run" && "$tmp/pay_skel" 2>&1); then
	check payload-skeleton opened "$out"
else
	fail payload-skeleton "$out"
fi
if out=$(payload py "$tmp/plain" 2>&1) && cp "$tmp/pay_py.out" "$tmp/pay_py.py" &&
   out=$(cd "$run" && PYTHONPATH=$tmp python3 -c 'import pay_py; print(len(pay_py.MAPS))' 2>&1); then
	check payload-python 5 "$out"
else
	fail payload-python "$out"
fi
if ! command -v rustc >/dev/null; then
	echo "SKIP gen-hostile/payload-rust: no rustc installed (Debian's rustc is a test dependency)"
elif out=$(payload rs "$tmp/plain" 2>&1) && cp "$tmp/pay_rs.out" "$tmp/pay_rs.rs" &&
     out=$(printf 'mod pay_rs;\nfn main() { println!("{}", std::mem::size_of::<pay_rs::coll>()); }\n' >"$tmp/pay_rs_main.rs" &&
	   rustc --edition 2021 -o "$tmp/pay_rs" "$tmp/pay_rs_main.rs" 2>&1 && cd "$run" && "$tmp/pay_rs" 2>&1); then
	check payload-rust 72 "$out"
else
	fail payload-rust "$out"
fi

# kernel types (tests/gen/ktypes.c): C after libc's headers, the skeleton, Python (sizes as
# bpftool reads them), Rust and Go all take what the rename rule makes of vmlinux's names
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "SKIP gen-hostile/kernel-types: no /sys/kernel/btf/vmlinux"
elif ! out=$(bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$tmp/vmlinux.h" 2>&1 &&
	     "$CLANG" -O2 -g -target bpf -I"$tmp" -c tests/gen/ktypes.c -o "$tmp/ktypes.o" 2>&1); then
	fail kernel-types "$out"
else
	k=$tmp/ktypes.o
	sizes=$(bpftool -j btf dump file "$k" | python3 -c 'import json, sys
t = {x["name"]: x["size"] for x in json.load(sys.stdin)["types"] if x["kind"] == "STRUCT"}
print(t["task_struct"], t["sk_buff"])')
	bad=
	"$KILN" gen c "$k" -o "$tmp/kt.h" 2>/dev/null && printf '#include <stdbool.h>\n#include <stdlib.h>\n#include "kt.h"\n_Static_assert(sizeof(struct task_struct) == %s && sizeof(struct sk_buff) == %s, "sizes");\n' "${sizes% *}" "${sizes#* }" >"$tmp/kt.c" &&
		gcc -std=gnu11 -Wall -Werror -fsyntax-only -I"$tmp" "$tmp/kt.c" 2>>"$tmp/kt.err" || bad="c"
	"$KILN" gen skeleton "$k" -o "$tmp/kt.skel.h" 2>/dev/null && printf '#include "kt.skel.h"\n' >"$tmp/kts.c" &&
		gcc -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -I"$tmp" "$tmp/kts.c" 2>>"$tmp/kt.err" || bad="$bad skeleton"
	"$KILN" gen python "$k" -o "$tmp/kt_py.py" 2>/dev/null && got=$(cd "$tmp" && python3 -c 'import kt_py as x; print(x.ctypes.sizeof(x.task_struct), x.ctypes.sizeof(x.sk_buff))' 2>>"$tmp/kt.err") &&
		[ "$got" = "$sizes" ] || bad="$bad python($got)"
	if command -v rustc >/dev/null; then
		"$KILN" gen rust "$k" -o "$tmp/kt_rs.rs" 2>/dev/null &&
			rustc --edition 2021 --crate-type lib -o "$tmp/libkt.rlib" "$tmp/kt_rs.rs" 2>>"$tmp/kt.err" || bad="$bad rust"
	fi
	"$KILN" gen lisp "$k" -o "$tmp/kt.lisp" 2>/dev/null &&
		printf '(format t "~a ~a" +task-struct-size+ +sk-buff-size+)\n' | cat "$tmp/kt.lisp" - >"$tmp/kt_run.lisp" &&
		got=$("$KILN" run "$tmp/kt_run.lisp" 2>>"$tmp/kt.err") && [ "$got" = "$sizes" ] || bad="$bad lisp($got)"
	if command -v go >/dev/null; then
		mkdir -p "$tmp/ktgo" && printf 'module ktypes\n' >"$tmp/ktgo/go.mod" &&
			"$KILN" gen go "$k" -o "$tmp/ktgo/kt.go" 2>/dev/null &&
			(cd "$tmp/ktgo" && GOCACHE=$tmp/gocache go vet . 2>>"$tmp/kt.err") || bad="$bad go"
	fi
	if [ -z "$bad" ]; then pass "kernel-types (task_struct, sk_buff: $sizes bytes)"
	else fail kernel-types "$bad: $(head -c 600 "$tmp/kt.err")"; fi
fi

# the renames were said, each with the name as the object holds it
check warnings "kiln gen: warning: member of coll 'n l' written as n_l
kiln gen: warning: member of coll 'a\$b' written as a_b_
kiln gen: warning: type 'class' written as class_
kiln gen: warning: program 'p3??' written as p3__" \
	"$(grep -h "'n l'" "$tmp/python.err"; grep -h "'a\\\$b' written as a_b_\$" "$tmp/python.err" | grep member
	   grep -h "'class' written as class_" "$tmp/python.err" | grep type; grep -h "program 'p3" "$tmp/skeleton.err")"

# no payload ran: not at generation, compilation, import or run
pwned=$(find "$run" -name 'pwned-*' -printf '%f\n' | sort | tr '\n' ' ')
check no-code-ran "" "$pwned"
exit 0

#!/usr/bin/env bash
# gen.sh — `kiln gen` (issue 17 item 3) for tests/gen/shapes.lisp (nested structs, arrays of
# ints and of structs, signed fields, an :ipv4 field, an event, maps keyed and valued by
# structs), its clang twin tests/gen/shapes.c, and tests/gen/odd.c (what only clang objects
# carry: a union, bitfields, an enum, anonymous struct and union members, a packed struct in
# an aligned one, a 2-D array, a pointer, a float), each checked against the object's BTF as
# bpftool reads it (tests/gen/layout.py writes the checks):
#  - `kiln gen c`: the header compiles with gcc -Werror beside static asserts of every
#    struct's sizeof, every member's offsetof and every integer member's signedness;
#  - `kiln gen python`: python3 imports it; ctypes.sizeof, each field's offset and each
#    integer field's sign (read from all-ones bytes) match, MAPS and EVENTS name the types,
#    odd's anonymous members' fields read as its own at the offsets gcc gives them;
#    and a pinned kiln object's map entry, looked up by bpftool with a key the module packed,
#    decodes through the module to the getpid() calls Python made (>= 1000, delta -calls);
#  - `kiln gen rust`: rustc builds a test of size_of and offset_of, which runs (SKIP without
#    rustc); `kiln gen go`: `go vet` and a test of unsafe.Sizeof/Offsetof (SKIP without go);
#  - `kiln gen skeleton`: tests/gen/skel_test.c compiles against the header and links with
#    build/libkiln.a; it opens, loads, attaches, makes three getpid() calls, reads its entry
#    through the typed accessor (calls=3, delta=-3), deletes it and destroys; for both objects
#    (odd's skeleton is compiled only, under --name, as its default name is one of its types).
#  - every example's C header and skeleton compile, its Python module imports, its Rust builds.
#    The skeleton's size and line count are printed beside `bpftool gen skeleton`'s of the
#    clang twin (issue 17 asks for the measurement).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
CLANG=${CLANG:-clang}
# run under make (make test), rustc would take make's jobserver from MAKEFLAGS and warn that
# its fds are closed
unset MAKEFLAGS MFLAGS
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
SUITE=gen
. tests/harness/report.sh
tmp=$(mktemp -d /tmp/kiln-gen.XXXXXX)
pin=/sys/fs/bpf/kiln-gen-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$tmp" "$pin" 2>/dev/null' EXIT
for tool in bpftool "$CLANG" gcc python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP gen: no $tool"
		exit 0
	fi
done
LIBS=(-lbpf -lelf -ldw -lz -lpthread)

if ! out=$("$KILN" compile tests/gen/shapes.lisp -o "$tmp/kiln.o" 2>&1); then
	fail compile "$out"; exit 0
fi
for c in shapes:clang odd:odd; do
	if ! out=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "tests/gen/${c%%:*}.c" -o "$tmp/${c#*:}.o" 2>&1); then
		fail "clang-${c%%:*}" "$out"; exit 0
	fi
done

"$KILN" gen cobol "$tmp/kiln.o" >/dev/null 2>&1
check unknown-language 2 $?

# the Python side of the checks layout.py writes
cat >"$tmp/check.py" <<'PY'
import ctypes
def check(cls, field, off, signed):
    if field is None:
        assert ctypes.sizeof(cls) == off, f"sizeof {cls.__name__} {ctypes.sizeof(cls)}, BTF {off}"
        return
    got = getattr(cls, field).offset
    assert got == off, f"{cls.__name__}.{field} at {got}, BTF {off}"
    if signed is not None:
        v = getattr(cls.from_buffer_copy(b"\xff" * ctypes.sizeof(cls)), field)
        assert (v < 0) == signed, f"{cls.__name__}.{field} reads {v} from all-ones bytes"
PY

for which in kiln clang odd; do
	obj=$tmp/$which.o
	bpftool -j btf dump file "$obj" >"$tmp/$which.json"
	# C: the header beside static asserts from bpftool's BTF
	if ! out=$("$KILN" gen c "$obj" -o "$tmp/${which}_types.h" 2>&1); then
		fail "c-$which" "$out"
	else
		{ echo "#include <stddef.h>"; echo "#include \"${which}_types.h\""
		  python3 tests/gen/layout.py c x <"$tmp/$which.json"; } >"$tmp/c_$which.c"
		n=$(grep -c '_Static_assert' "$tmp/c_$which.c")
		if out=$(gcc -std=gnu11 -Wall -Wextra -Werror -Wno-type-limits -c "$tmp/c_$which.c" -o "$tmp/c_$which.o" 2>&1); then
			check "c-$which (${n} static asserts)" "4 structs" "$(grep -o '[0-9]* structs' "$tmp/c_$which.c")"
		else
			fail "c-$which" "$out"
		fi
	fi
	# Python: sizes, offsets and signs, and the maps' and events' types
	if ! out=$("$KILN" gen python "$obj" -o "$tmp/shapes_$which.py" 2>&1); then
		fail "python-$which" "$out"
	else
		{ echo "import sys; sys.path.insert(0, '$tmp')"; echo "from check import check"
		  echo "import shapes_$which as x"
		  python3 tests/gen/layout.py python x <"$tmp/$which.json"
		if [ $which = odd ]; then
			echo 'assert x.MAPS["odds"] == (x.ctypes.c_uint32, x.odd), x.MAPS'
			# the anonymous struct's and union's fields as the struct's own, where gcc puts them
			echo 'print(x.odd.x.offset, x.odd.y.offset, x.odd.word.offset, x.odd.halves.offset, end=" ")'
		else
			echo 'assert x.MAPS["by_pid"] == (x.pid_key, x.stats) and x.EVENTS["hits"] is x.hit, (x.MAPS, x.EVENTS)'
		fi
		  echo 'print("ok")'; } >"$tmp/py_$which.py"
		out=$(cd "$tmp" && python3 "py_$which.py" 2>&1)
		want=ok
		if [ $which = odd ]; then
			printf '#include <stdio.h>\n#include <stddef.h>\n#include "odd_types.h"\nint main(void) { printf("%%zu %%zu %%zu %%zu ", offsetof(struct odd, x), offsetof(struct odd, y), offsetof(struct odd, word), offsetof(struct odd, halves)); return 0; }\n' >"$tmp/anon.c"
			want="$(gcc -o "$tmp/anon" "$tmp/anon.c" 2>&1 && "$tmp/anon")ok"
		fi
		check "python-$which ($(grep -c '^check' "$tmp/py_$which.py") checks)" "$want" "$out"
	fi
	# Rust: size_of and offset_of
	if ! command -v rustc >/dev/null; then
		echo "SKIP gen/rust-$which: no rustc installed (Debian's rustc is a test dependency)"
	elif ! out=$("$KILN" gen rust "$obj" -o "$tmp/shapes_$which.rs" 2>&1); then
		fail "rust-$which" "$out"
	else
		{ echo "mod shapes_$which;"; echo "fn main() {"
		  python3 tests/gen/layout.py rust "shapes_$which" <"$tmp/$which.json"
		  echo 'println!("ok");'; echo "}"; } >"$tmp/rs_$which.rs"
		if out=$(rustc --edition 2021 -o "$tmp/rs_$which" "$tmp/rs_$which.rs" 2>&1); then
			check "rust-$which ($(grep -c '^assert' "$tmp/rs_$which.rs") checks)" ok "$("$tmp/rs_$which" 2>&1)"
		else
			fail "rust-$which" "$out"
		fi
	fi
	# Go
	if ! command -v go >/dev/null; then
		echo "SKIP gen/go-$which: no go toolchain installed (Debian's golang-go runs it; kiln does not install it for the tests)"
	elif ! out=$("$KILN" gen go "$obj" --name shapes -o "$tmp/go_$which/shapes.go" 2>&1) &&
	     ! { mkdir -p "$tmp/go_$which" && out=$("$KILN" gen go "$obj" --name shapes -o "$tmp/go_$which/shapes.go" 2>&1); }; then
		fail "go-$which" "$out"
	else
		# odd's: its structs' sizes (a union and a packed struct become bytes in Go)
		layout='unsafe.Sizeof(Stats{}) != 48 || unsafe.Offsetof(Stats{}.In) != 12 || unsafe.Offsetof(Stats{}.Pair) != 36 ||
		unsafe.Sizeof(PidKey{}) != 8 || unsafe.Sizeof(Inner{}) != 6 || unsafe.Sizeof(Hit{}) != 29 ||
		unsafe.Offsetof(Hit{}.Comm) != 13'
		[ $which = odd ] && layout='unsafe.Sizeof(Odd{}) != 88 || unsafe.Sizeof(Number{}) != 8 || unsafe.Sizeof(Tight{}) != 11'
		cat >"$tmp/go_$which/shapes_test.go" <<GO
package shapes

import (
	"testing"
	"unsafe"
)

func TestLayout(t *testing.T) {
	if $layout {
		t.Fatal("layout differs from the BTF")
	}
}
GO
		(cd "$tmp/go_$which" && printf 'module shapes\n' >go.mod)
		if out=$(cd "$tmp/go_$which" && go vet . 2>&1 && go test . 2>&1); then pass "go-$which"
		else fail "go-$which" "$out"; fi
	fi
	# the skeleton, used by a C program linked with libkiln (odd's: compiled only)
	if [ $which = odd ]; then
		# its default name, odd, is a struct of the object's
		"$KILN" gen skeleton "$obj" -o "$tmp/odd.skel.h" >/dev/null 2>&1
		check skeleton-name-taken 1 $?
		if out=$("$KILN" gen skeleton "$obj" --name odd_skel -o "$tmp/odd.skel.h" 2>&1) && printf '#include "odd.skel.h"\nint main(void) { struct odd v; __u32 k = 0; struct odd_skel *s = odd_skel__open_and_load(); return s ? odd_skel__odds__lookup(s, &k, &v) : 1; }\n' >"$tmp/odd_skel.c" &&
		   out=$(gcc -std=gnu11 -Wall -Wextra -Werror -Iinclude -I"$tmp" -c "$tmp/odd_skel.c" -o "$tmp/odd_skel.o" 2>&1); then
			pass skeleton-odd-compiles
		else
			fail skeleton-odd-compiles "$out"
		fi
		continue
	fi
	if ! out=$("$KILN" gen skeleton "$obj" --name shapes -o "$tmp/shapes.skel.h" 2>&1); then
		fail "skeleton-$which" "$out"
	# shellcheck disable=SC2086  # SANITIZE: a sanitizer build's flags (make test-asan), as words
	elif ! out=$(gcc -std=gnu11 -Wall -Wextra -Werror ${SANITIZE:-} -Iinclude -I"$tmp" tests/gen/skel_test.c \
			-o "$tmp/skel_$which" "$BUILD/libkiln.a" "${LIBS[@]}" 2>&1); then
		fail "skeleton-$which" "$out"
	else
		check "skeleton-$which" "calls=3 delta=-3 total=at-least-3 deleted=0 again=-2" \
			"$("$tmp/skel_$which" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
		cp "$tmp/shapes.skel.h" "$tmp/$which.skel.h"
	fi
done

# Python end to end: the pinned kiln object counts this Python's getpid() calls; the key is
# packed by the module, bpftool looks it up, the module decodes the value: at least the 1000
# calls made, and the signed delta their negative
if out=$("$KILN" load tests/gen/shapes.lisp --pin "$pin" --attach 2>&1); then
	out=$(cd "$tmp" && PIN="$pin/maps/by_pid" python3 - 2>&1 <<'PY'
import json, os, subprocess
import shapes_kiln as x
for _ in range(1000):   # Python calls getpid() itself too: at least 1000
    os.getpid()
k = x.pid_key(pid=os.getpid(), kind=1)
key = ["0x%02x" % b for b in bytes(k)]
r = json.loads(subprocess.run(["bpftool", "-j", "map", "lookup", "pinned", os.environ["PIN"], "key", "hex"]
                              + [b[2:] for b in key], capture_output=True, text=True, check=True).stdout)
v = x.stats.from_buffer_copy(bytes(int(b, 16) for b in r["value"]))
print(v.calls >= 1000, v.delta == -v.calls, v.in_.lo, x.stats.from_buffer_copy(bytes(48)).calls)
PY
)
	check python-map-value "True True 0 0" "$out"
	"$KILN" unload "$pin" >/dev/null 2>&1
else
	fail python-map-load "$out"
fi

# every example: the C header and the skeleton compile, Python imports, rustc builds
for f in examples/*.lisp; do
	n=$(basename "$f" .lisp | tr - _)
	bad=
	"$KILN" gen c "$f" -w -o "$tmp/ex_$n.h" 2>"$tmp/err" && gcc -fsyntax-only -Wall -Werror -x c "$tmp/ex_$n.h" 2>>"$tmp/err" || bad="c"
	{ "$KILN" gen skeleton "$f" -w -o "$tmp/ex_skel_$n.h" && echo "#include \"ex_skel_$n.h\"" >"$tmp/ex_skel_$n.c" &&
	  gcc -fsyntax-only -Wall -Werror -Iinclude -I"$tmp" "$tmp/ex_skel_$n.c"; } 2>>"$tmp/err" || bad="$bad skeleton"
	{ "$KILN" gen python "$f" -w -o "$tmp/ex_$n.py" && (cd "$tmp" && python3 -c "import ex_$n"); } 2>>"$tmp/err" || bad="$bad python"
	if command -v rustc >/dev/null; then
		{ "$KILN" gen rust "$f" -w -o "$tmp/ex_$n.rs" &&
		  rustc --edition 2021 --crate-type lib -o "$tmp/libex_$n.rlib" "$tmp/ex_$n.rs"; } 2>>"$tmp/err" || bad="$bad rust"
	fi
	if [ -z "$bad" ]; then pass "example-$n"; else fail "example-$n" "$bad: $(head -c 600 "$tmp/err")"; fi
done

# the measurement: kiln's skeleton of the clang twin against bpftool's
if [ -f "$tmp/clang.skel.h" ] && bpftool gen skeleton "$tmp/clang.o" name shapes >"$tmp/bpftool.skel.h" 2>"$tmp/err"; then
	sz() { echo "$(wc -c <"$1") bytes $(wc -l <"$1") lines"; }
	pass "skeleton-size: kiln gen skeleton $(sz "$tmp/clang.skel.h") (of the kiln source: $(sz "$tmp/kiln.skel.h")), bpftool gen skeleton $(sz "$tmp/bpftool.skel.h"), object $(wc -c <"$tmp/clang.o") bytes"
else
	fail skeleton-size "$(cat "$tmp/err" 2>/dev/null)"
fi
exit 0

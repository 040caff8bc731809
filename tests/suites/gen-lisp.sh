#!/usr/bin/env bash
# gen-lisp.sh — `kiln gen lisp` (issue 31 item 3): Lisp for kiln's host from an object's BTF,
# loaded by a session (the generated text put before the session's own forms, as a session
# file that includes it, and once with (load FILE)):
#  - round-trip: for tests/gen/shapes.lisp, its clang twin tests/gen/shapes.c and
#    tests/gen/odd.c (a union, bitfields, an enum, anonymous members, a packed struct, a 2-D
#    array, a pointer, a float), every struct's and union's decode-NAME of patterned bytes,
#    encode-NAME of that, and decode-NAME again give the same values, the encoding again the
#    same bytes, and the bytes that differ from the pattern are the padding's;
#  - examples: every example's Lisp loads, and each of its structs round-trips so;
#  - odd-values: a struct odd filled by a C program (through `kiln gen c`'s header) decodes
#    to the values it was given, and encodes back to the C program's bytes; its anonymous
#    members' fields read as its own (odd-record-x);
#  - session: a session compiles shapes (its map by-pid renamed per test run, with room for
#    every process), attaches it, and writes an entry made by make-stats-record and
#    encode-stats; `kiln map get` reads it as those values; `kiln map set` writes another,
#    which the session decodes; and the entry the program itself made for a process of the
#    test's (getpid() called 5 times) decodes in the session to what `kiln map get` prints;
#  - clang-session: a session opens the clang object odd (with-bpf-object) and writes an entry
#    that `kiln map get` reads as the session's decoding; `kiln map set` writes another, which the
#    session decodes as `kiln map get` reads it;
#  - maps: *shapes-maps* and *shapes-events* name the maps' and events' types;
#  - errors: decode-NAME of too few bytes, encode-NAME of another record and make-NAME-record
#    of a key that is no field fail with a message; decode-NAME reads from an offset.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
SUITE=gen-lisp
. tests/harness/report.sh
for tool in "$CLANG" gcc python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP gen-lisp: no $tool"
		exit 0
	fi
done
tmp=$(mktemp -d /tmp/kiln-gen-lisp.XXXXXX)
# start_session FILE OUT: `kiln run FILE` in the background (its pid in spid), output to OUT,
# until it prints "ready" or ends (10 s at most)
start_session() {
	"$KILN" run "$1" >"$2" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		grep -q ready "$2" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
}
# end_session: the session's own end awaited (40 s at most), its status in rc
end_session() {
	for _ in $(seq 400); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$spid" 2>/dev/null
	rc=$?
	spid=
}
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
for c in shapes:clang odd:odd; do
	if ! out=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "tests/gen/${c%%:*}.c" -o "$tmp/${c#*:}.o" 2>&1); then
		fail "clang-${c%%:*}" "$out"; exit 0
	fi
done

# round trips: a check per struct and union, from the +NAME-size+ the file defines
cat >"$tmp/rt.lisp" <<'EOF'
(defun %t-list (v) (map 'list #'identity v))
(defun %t-rt (name dec enc size)
  (let ((b (make-array size)))
    (dotimes (i size) (setf (aref b i) (mod (+ 11 (* 37 i)) 256)))
    (let* ((d (funcall dec b)) (e (funcall enc d)) (d2 (funcall dec e)) (diff 0))
      (dotimes (i size) (unless (= (aref b i) (aref e i)) (incf diff)))
      (format t "~a ~a ~a ~a~%" name (equal (format nil "~s" d) (format nil "~s" d2))
              (equal (%t-list (funcall enc d2)) (%t-list e)) diff))))
EOF
want_kiln='pid-key T T 3
stats T T 2
hit T T 0
inner T T 0'
want_odd='odd T T 8
number T T 0
tight T T 0
xdp-md T T 0
anon-N T T 0
anon-N T T 0'
for which in kiln:tests/gen/shapes.lisp clang:$tmp/clang.o odd:$tmp/odd.o; do
	name=${which%%:*}
	if ! out=$("$KILN" gen lisp "${which#*:}" -o "$tmp/$name.lisp" 2>&1); then
		fail "round-trip-$name" "$out"; continue
	fi
	{ cat "$tmp/$name.lisp" "$tmp/rt.lisp"
	  sed -n 's/^(defparameter +\(.*\)-size+ .*/(%t-rt "\1" (function decode-\1) (function encode-\1) +\1-size+)/p' \
		"$tmp/$name.lisp"; } >"$tmp/rt_$name.lisp"
	want=$want_kiln
	[ "$name" = odd ] && want=$want_odd
	check "round-trip-$name" "$want" "$("$KILN" run "$tmp/rt_$name.lisp" 2>&1 | sed 's/^anon-[0-9]*/anon-N/')"
done
# the same for kiln's shapes, the generated file loaded by the session with (load FILE)
{ printf '(load "%s")\n' "$tmp/kiln.lisp"
  cat "$tmp/rt.lisp"
  sed -n 's/^(defparameter +\(.*\)-size+ .*/(%t-rt "\1" (function decode-\1) (function encode-\1) +\1-size+)/p' \
	"$tmp/kiln.lisp"; } >"$tmp/rt_load.lisp"
check round-trip-load "$want_kiln" "$("$KILN" run "$tmp/rt_load.lisp" 2>&1)"

# every example's file loads, and each of its structs round-trips
bad=''
n=0
for f in examples/*.lisp; do
	e=$(basename "$f" .lisp)
	if ! "$KILN" gen lisp "$f" -w -o "$tmp/ex_$e.lisp" 2>"$tmp/ex.err"; then
		bad="$bad $e: $(head -c 200 "$tmp/ex.err")"; continue
	fi
	{ cat "$tmp/ex_$e.lisp" "$tmp/rt.lisp"
	  sed -n 's/^(defparameter +\(.*\)-size+ .*/(%t-rt "\1" (function decode-\1) (function encode-\1) +\1-size+)/p' \
		"$tmp/ex_$e.lisp"; } >"$tmp/rt_ex.lisp"
	out=$("$KILN" run "$tmp/rt_ex.lisp" 2>&1)
	if [ -n "$out" ] && ! grep -qv '^[a-z0-9_-]* T T [0-9]*$' <<<"$out"; then
		n=$((n + $(wc -l <<<"$out")))
	elif [ -n "$out" ]; then
		bad="$bad $e: $(head -c 300 <<<"$out")"
	fi
done
if [ -z "$bad" ]; then pass "examples ($n structs round-trip)"; else fail examples "$bad"; fi

# odd's values, as a C program lays them out
if "$KILN" gen c "$tmp/odd.o" -o "$tmp/odd_types.h" && cat >"$tmp/oddv.c" <<'EOF' &&
#include <stdio.h>
#include <string.h>
#include "odd_types.h"
int main(void)
{
	struct odd o;
	memset(&o, 0, sizeof(o));
	o.flags = 5; o.kind = 17; o.rest = 0xabcdef; o.color = BLUE;
	o.n.u = 0x1122334455667788ull; o.x = -3; o.y = 4; o.word = 0x00050006; o.pad_me = 9;
	o.t.tag = 1; o.t.wide = 0x0102030405060708ull; o.t.tail = 0xbeef;
	for (int i = 0; i < 6; i++)
		o.grid[i / 3][i % 3] = i + 1;
	o.ptr = (void *)0x1000; o.ratio = 1.5f; o.last = -7;
	const unsigned char *p = (const unsigned char *)&o;
	printf("(defparameter *odd-bytes* (vector");
	for (size_t i = 0; i < sizeof(o); i++)
		printf(" %u", p[i]);
	printf("))\n");
	return 0;
}
EOF
   out=$(gcc -std=gnu11 -Wall -Werror -I"$tmp" -o "$tmp/oddv" "$tmp/oddv.c" 2>&1) && "$tmp/oddv" >"$tmp/oddb.lisp"; then
	cat "$tmp/odd.lisp" "$tmp/oddb.lisp" - >"$tmp/oddv.lisp" <<'EOF'
(let ((d (decode-odd *odd-bytes*)))
  (format t "~s~%~a~%" d (equal (map 'list #'identity (encode-odd d)) (map 'list #'identity *odd-bytes*)))
  (format t "~a ~a ~a ~a~%" (odd-record-x d) (odd-record-y d) (odd-record-word d) (odd-record-halves d)))
EOF
	check odd-values "(ODD-RECORD :FLAGS 5 :KIND 17 :REST 11259375 :COLOR 300 :N (NUMBER-RECORD :U 1234605616436508552 :I 1432778632 :BYTES #(136 119 102 85 68 51 34 17)) :ANON5 (ANON-N-RECORD :X -3 :Y 4) :ANON6 (ANON-N-RECORD :WORD 327686 :HALVES #(6 5)) :PAD-ME 9 :T (TIGHT-RECORD :TAG 1 :WIDE 72623859790382856 :TAIL 48879) :GRID #(#(1 2 3) #(4 5 6)) :PTR 4096 :RATIO 1069547520 :LAST -7)
T
-3 4 327686 #(6 5)" "$("$KILN" run "$tmp/oddv.lisp" 2>&1 | sed 's/ANON-[0-9]*-RECORD/ANON-N-RECORD/g')"
else
	fail odd-values "${out:-kiln gen c failed}"
fi

# a session on the clang object (its map renamed per test run): an entry it encodes reads in
# kiln map as its values; an entry kiln map writes decodes in the session as kiln map reads it
# (kiln map shows no anonymous member: they are left out of the session's record to compare)
m=od$$
if ! out=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" "-Dodds=$m" -c tests/gen/odd.c -o "$tmp/oddr.o" 2>&1) ||
   ! out=$("$KILN" gen lisp "$tmp/oddr.o" -o "$tmp/oddr.lisp" 2>&1) || [ ! -s "$tmp/oddb.lisp" ]; then
	fail clang-session "${out:-no bytes from odd-values}"
else
	cat "$tmp/oddr.lisp" "$tmp/oddb.lisp" - >"$tmp/oddr_s.lisp" <<EOF
(with-bpf-object (o "$tmp/oddr.o")
  (let* ((m (bpf-object-map o "$m"))
         (k (encode-int-key 0 4))
         (mine (encode-odd (decode-odd *odd-bytes*)))
         (got nil))
    (map-update m k mine)
    (format t "~s~%ready~%" (decode-odd mine))
    (finish-output)
    ;; kiln map's entry, or 30 seconds
    (dotimes (i 30)
      (unless got
        (let ((v (map-lookup m k)))
          (if (equal (map 'list #'identity v) (map 'list #'identity mine)) (sleep 1) (setf got v)))))
    (format t "~s~%" (and got (decode-odd got)))))
EOF
	start_session "$tmp/oddr_s.lisp" "$tmp/oddr.out"
	j1=$("$KILN" map get "name:$m" 0 --json 2>&1)
	"$KILN" map set "name:$m" 0 '{"flags": 2, "kind": 3, "rest": 4, "color": 7, "n": {"i": -9}, "pad_me": 1, "t": {"tag": 2, "wide": 3, "tail": 4}, "ptr": "0x20", "last": 99}' >"$tmp/set.out" 2>&1
	j2=$("$KILN" map get "name:$m" 0 --json 2>&1)
	end_session
	conv='
import json, re, sys
names = {"n": "NUMBER", "t": "TIGHT"}
def lisp(v, rec):
    if isinstance(v, dict):
        return "(%s-RECORD %s)" % (rec, " ".join(":%s %s" % (k.upper().replace("_", "-"), lisp(x, names.get(k)))
                                                   for k, x in v.items()))
    if isinstance(v, list):
        return "#(%s)" % " ".join(lisp(x, rec) for x in v)
    if isinstance(v, str) and v.startswith("0x"):
        return str(int(v, 16))
    return str(v)
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        print(lisp(json.loads(line)["value"], "ODD"))
    elif line.startswith("(ODD"):   # the anonymous members out
        print(re.sub(r" :ANON[0-9]+ \(ANON-[0-9]+-RECORD( [^ ()]+| #\([^)]*\))*\)", "", line))
'
	want=$(printf '%s\n%s\n' "$j1" "$j2" | python3 -c "$conv" 2>&1)
	got=$(grep -v ready "$tmp/oddr.out" | python3 -c "$conv" 2>&1)
	if [ $rc -eq 0 ] && [[ "$got" == *$'\n(ODD-RECORD :FLAGS 2 '* ]]; then
		check clang-session "$want" "$got"
	else
		fail clang-session "status $rc, set: $(cat "$tmp/set.out"), $(head -c 600 "$tmp/oddr.out")"
	fi
fi

# the maps' and events' types, and the errors
cat "$tmp/kiln.lisp" - >"$tmp/misc.lisp" <<'EOF'
(format t "~s~%~s~%" *shapes-maps* *shapes-events*)
(format t "~a~%" (handler-case (decode-stats (vector 1 2)) (error (e) e)))
(format t "~a~%" (handler-case (encode-stats (make-inner-record)) (error (e) e)))
(format t "~a~%" (inner-record-lo (decode-inner (vector 0 0 254 255 1 2 3 4 5) 2)))
(format t "~a~%" (handler-case (make-pid-key-record :pid 1 :nope 2) (error (e) e)))
(format t "~s~%" (encode-pid-key (make-pid-key-record :kind 2 :pid 258)))
EOF
check maps-and-errors '(("by_pid" :KEY PID-KEY :VALUE STATS) ("hits" :KEY NIL :VALUE NIL) ("total" :KEY U32 :VALUE U64) ("hits_drops" :KEY U32 :VALUE U64))
(("hits" . HIT))
DECODE-STATS needs 48 bytes from offset 0, not 2
(INNER-RECORD :LO 0 :HI 0 :TAGS #(0 0 0)) is not a STATS-RECORD
-2
MAKE-PID-KEY-RECORD: :NOPE is not one of (:PID :KIND) with a value
#(2 1 0 0 2 0 0 0)' "$("$KILN" run "$tmp/misc.lisp" 2>&1)"

# a session: its own entry, one kiln map writes, and one its program made
m=gl$$
sed -e "s/by-pid/$m/g" -e "/defmap $m/s/:max-entries 1024/:max-entries 65536/" tests/gen/shapes.lisp >"$tmp/live_src.lisp"
if ! out=$("$KILN" gen lisp "$tmp/live_src.lisp" -o "$tmp/live_gen.lisp" 2>&1); then
	fail session "$out"; exit 0
fi
cat "$tmp/live_src.lisp" "$tmp/live_gen.lisp" - >"$tmp/live.lisp" <<EOF
(with-bpf-session ()
  (bpf:attach on-getpid)
  (let ((m (bpf-session-map "$m"))
        (got nil))
    (map-update m (encode-pid-key (make-pid-key-record :pid 4242 :kind 1))
                (encode-stats (make-stats-record :calls 7 :delta -3
                                                 :in (make-inner-record :lo -2 :hi 9 :tags (vector 1 2 3))
                                                 :hist (vector 1 2 3 4000000000)
                                                 :pair (vector (make-inner-record :lo 5)
                                                               (make-inner-record :hi 200 :tags (vector 7 8 9))))))
    (format t "ready~%")
    (finish-output)
    ;; the test's entry, or 30 seconds
    (dotimes (i 30)
      (unless got
        (setf got (map-lookup m (encode-pid-key (make-pid-key-record :pid 4343 :kind 2))))
        (unless got (sleep 1))))
    (let* ((d (decode-stats got))
           (v (map-lookup m (encode-pid-key (make-pid-key-record :pid (stats-record-calls d) :kind 1)))))
      (format t "~s~%~s~%" d (and v (decode-stats v))))))
EOF
start_session "$tmp/live.lisp" "$tmp/live.out"
if ! grep -q ready "$tmp/live.out"; then
	fail session "$(head -c 600 "$tmp/live.out")"; exit 0
fi
check session-entry-read-by-kiln-map '{"calls":7,"delta":-3,"in":{"lo":-2,"hi":9,"tags":[1,2,3]},"hist":[1,2,3,4000000000],"pair":[{"lo":5,"hi":0,"tags":[0,0,0]},{"lo":0,"hi":200,"tags":[7,8,9]}]}' \
	"$("$KILN" map get "name:$m" '{"pid": 4242, "kind": 1}' --json 2>&1 | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["value"], separators=(",", ":")))' 2>&1)"
# a process of the test's makes its entry through the program; it has ended when read
p=$(python3 -c 'import os; [os.getpid() for _ in range(5)]; print(os.getpid())')
prog=$("$KILN" map get "name:$m" "{\"pid\": $p, \"kind\": 1}" --json 2>&1)
"$KILN" map set "name:$m" '{"pid": 4343, "kind": 2}' "{\"calls\": $p, \"delta\": -5, \"in\": {\"lo\": -300, \"hi\": 250, \"tags\": [4,5,6]}, \"hist\": [9,8,7,6]}" >"$tmp/set.out" 2>&1
set_json=$("$KILN" map get "name:$m" '{"pid": 4343, "kind": 2}' --json 2>&1)
end_session
# kiln map's JSON written as the session prints the records (the nested structs are inner's)
lispify='
import json, sys
def lisp(v, rec):
    if isinstance(v, dict):
        return "(%s-RECORD %s)" % (rec, " ".join(":%s %s" % (k.upper(), lisp(x, "INNER")) for k, x in v.items()))
    if isinstance(v, list):
        return "#(%s)" % " ".join(lisp(x, "INNER") for x in v)
    return str(v)
for line in sys.stdin:
    print(lisp(json.loads(line)["value"], "STATS"))
'
want=$(printf '%s\n%s\n' "$set_json" "$prog" | python3 -c "$lispify" 2>&1)
got=$(sed -n '2,3p' "$tmp/live.out")
if [ $rc -eq 0 ] && [[ "$(sed -n 3p "$tmp/live.out")" == "(STATS-RECORD :CALLS "* ]]; then
	check session-decodes-as-kiln-map "$want" "$got"
else
	fail session-decodes-as-kiln-map "status $rc, set: $(cat "$tmp/set.out"), $(head -c 600 "$tmp/live.out")"
fi
exit 0

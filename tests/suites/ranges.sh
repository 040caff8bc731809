#!/usr/bin/env bash
# ranges.sh — sccp's unsigned ranges: branches that a value's range decides (a u8 against
# 300, log2 of a u16 plus a large constant, a join of constants, masks, shifts, sums that
# cannot wrap) and ones it must leave (a u64 plus one may wrap to 0, a range that contains
# the constant, signed comparisons of values that may be negative). One program compiled
# as it is and with -fno-sccp, both run in the kernel on the same packets by the twin
# harness (every map entry compared): the same results; and the ranges decided branches
# (the object with them is smaller).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=ranges
. "${ROOT:-$PWD}/tests/harness/report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/ranges.lisp" <<'LISP'
(defmap out :type :array :key u32 :value u64 :max-entries 16)
(defprog ranges (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 24) data-end)
      (return XDP_PASS))
    (let* ((b (load u8 data 0))
           (w (load u16 data 2))
           (q (load u64 data 8))
           (s (cast i8 (load u8 data 1)))
           (k (if (> b 100) 3 7)))
      (setf (getmap out 0) (if (> b 300) 1 2))
      (setf (getmap out 1) (log2 (+ #xabababababababab w)))
      (setf (getmap out 2) (log2 (+ w 1)))
      (setf (getmap out 3) (if (< k 8) (+ k 10) 99))
      (setf (getmap out 4) (if (= (+ q 1) 0) 11 12))
      (setf (getmap out 5) (if (> w 65000) 13 14))
      (setf (getmap out 6) (if (= (>> (logand w #xff0) 4) 300) 15 16))
      (setf (getmap out 7) (if (s< s 0) 17 18))
      (setf (getmap out 8) (if (> (* b 256) 65535) 19 20))
      (setf (getmap out 9) (if (= (mod q 7) 9) 21 (+ 22 (mod q 7))))
      (setf (getmap out 10) (if (>= (- w 1) 70000) 23 24))
      (setf (getmap out 11) (if (< (logior b 256) 256) 25 26))
      (setf (getmap out 12) (if (> (ntohs w) 65535) 27 28))
      (dotimes (i 4)
        (when (< (+ b i) 258)
          (incf (getmap out 13) (+ b i))))
      XDP_PASS)))
LISP
if ! out=$("$KILN" compile "$tmp/ranges.lisp" -o "$tmp/on.o" 2>&1) ||
	! out=$("$KILN" compile -fno-sccp "$tmp/ranges.lisp" -o "$tmp/off.o" 2>&1); then
	fail compile "kiln compile: $out"
	exit 0
fi
on=$(llvm-objdump -d "$tmp/on.o" | grep -cE '^ +[0-9]+:')
off=$(llvm-objdump -d "$tmp/off.o" | grep -cE '^ +[0-9]+:')
if [ "$on" -lt "$off" ]; then pass "decided ($off instructions without sccp, $on with)"
else fail decided "instructions with sccp $on, without $off"; fi
# bytes 0 (b), 1 (s), 2-3 (w), 8-15 (q): the edges of each
inputs=()
for p in 000000000000000000000000000000000000000000000000 \
	ff80ffff00000000ffffffffffffffff0000000000000000 \
	657f0100000000000600000000000000000000000000000000 \
	fe01e8fd000000000700000000000000ffffffffffffffff \
	0aff1234000000005500000000000000abababababababab; do
	inputs+=(--input "$p")
done
if out=$(timeout 120 "$BUILD/tests/twin" "$tmp/on.o" "$tmp/off.o" "${inputs[@]}" 2>&1); then
	pass "same-results ($(tail -1 <<<"$out"))"
else
	fail same-results "$(head -3 <<<"$out" | tr '\n' '|')"
fi
exit 0

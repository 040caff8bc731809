#!/usr/bin/env bash
# bpf-loop.sh — which dotimes kiln lowers as a bpf_loop callback (the pass bpf-loop) and that
# the callbacks compute what the loops do: one source of several programs is compiled as it
# is and with -fno-bpf-loop, both objects are loaded and run side by side by the twin harness
# (every program, every map compared), and the callbacks each makes are counted by name.
# A long loop, one in a defun, the outer of a nested pair, a typed (u8) counter that wraps
# and a pointer the body reads become callbacks; a short loop, a body that returns from the
# program, one that assigns its index, one that assigns a pointer and -fno-bpf-loop keep
# loops.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=bpf-loop
. "${ROOT:-$PWD}/tests/harness/report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/loops.lisp" <<'LISP'
(defmap out :type :array :key u32 :value u64 :max-entries 16)
(defun recur (x)
  (let ((s 0))
    (dotimes (i 5000) (setf s (+ (* s 3) x i)))
    s))
(defprog fnv (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data)))
        (h 14695981039346656037)
        (n 0))
    (dotimes (i 3000)
      (setf h (* (logxor h (+ i len)) 1099511628211))
      (when (= (logand h 7) 3) (incf n)))
    (setf (getmap out 0) h)
    (setf (getmap out 1) n)
    (setf (getmap out 2) (recur len))
    XDP_PASS))
(defprog typed (:type :xdp)
  (let ((c u8 7) (buf (stack-buffer 16)))
    (store u64 buf 0 (- (ctx data-end) (ctx data)))
    (dotimes (i 3000)
      (incf c (load u8 buf 0))
      (store u64 buf 8 (+ (load u64 buf 8) i)))
    (setf (getmap out 3) c)
    (setf (getmap out 4) (load u64 buf 8))
    XDP_PASS))
(defprog nested (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data))) (s 0))
    (dotimes (j 40)
      (dotimes (k 300)
        (setf s (+ s (* j k len)))))
    (setf (getmap out 5) s)
    XDP_PASS))
(defprog short (:type :xdp)
  (let ((s 0))
    (dotimes (i 100) (setf s (+ s (* i (ctx ingress-ifindex)))))
    (setf (getmap out 6) s)
    XDP_PASS))
(defprog early (:type :xdp)
  (let ((len (- (ctx data-end) (ctx data))))
    (dotimes (j 3000)
      (when (= j (+ 1000 len)) (return XDP_DROP))
      (incf (getmap out 7)))
    XDP_PASS))
(defprog walk (:type :xdp)
  (let ((p (ctx data)) (s 0))
    (dotimes (i 3000)
      (setf p (+ (ctx data) (logand i 1)))
      (incf s (logxor (logand i 7) (- i 3))))
    (setf (getmap out 9) (+ s (- (ctx data-end) p)))
    XDP_PASS))
(defprog steps (:type :xdp)
  (let ((s 0))
    (dotimes (i 3000)
      (setf s (+ s i (ctx ingress-ifindex)))
      (when (= s 5) (setf i 3000)))
    (setf (getmap out 8) s)
    XDP_PASS))
LISP
# callbacks made per program: __kiln_loop_N symbols, each called from the program that made it
if ! out=$("$KILN" compile "$tmp/loops.lisp" -o "$tmp/on.o" 2>&1) ||
	! out=$("$KILN" compile -fno-bpf-loop "$tmp/loops.lisp" -o "$tmp/off.o" 2>&1); then
	fail compile "$out"
	exit 0
fi
ncb=$(llvm-objdump -t "$tmp/on.o" | grep -c '__kiln_loop_')
check callbacks "4" "$ncb"   # fnv's, recur's, typed's and nested's outer loop
check callbacks-off "0" "$(llvm-objdump -t "$tmp/off.o" | grep -c '__kiln_loop_')"
for p in short early steps walk; do   # loops they stay: the same code with and without the pass
	a=$(llvm-objdump -d --no-show-raw-insn "$tmp/on.o" | sed -n "/<$p>:/,/^$/p" | wc -l)
	b=$(llvm-objdump -d --no-show-raw-insn "$tmp/off.o" | sed -n "/<$p>:/,/^$/p" | wc -l)
	if [ "$a" -gt 2 ] && [ "$a" = "$b" ]; then pass "$p-stays-a-loop"
	else fail "$p-stays-a-loop" "$a lines with the pass, $b without"; fi
done
for p in fnv typed nested; do
	if llvm-objdump -d "$tmp/on.o" | sed -n "/<$p>:/,/^$/p" | grep -q 'call 181'; then pass "$p-calls-bpf_loop"
	else fail "$p-calls-bpf_loop" "no call of bpf_loop (181) in $p"; fi
done
out=$("$KILN" check "$tmp/on.o" 2>&1)
if [ "$(grep -c ' accepted ' <<<"$out")" = 7 ]; then pass "verifier-accepts"
else fail verifier-accepts "$(grep -v ' accepted ' <<<"$out" | head -3 | tr '\n' '|')"; fi
# the verifier's work for the long loop: a callback's body is walked about twice, not 3,000 times
on=$(grep '^fnv ' <<<"$out" | grep -o '[0-9]* processed' | cut -d' ' -f1)
off=$("$KILN" check "$tmp/off.o" 2>&1 | grep '^fnv ' | grep -o '[0-9]* processed' | cut -d' ' -f1)
if [ -n "$on" ] && [ -n "$off" ] && [ "$((on * 20))" -lt "$off" ]; then pass "fnv-verifier-work ($off -> $on processed)"
else fail fnv-verifier-work "processed with the pass '$on', without '$off'"; fi
# a callback the verifier refuses: its error says so and names the switch. Here the bounds
# check is on data + (i + 1) and the read through data + i; sums and gvn (which run on
# callbacks at -O0 too) make them one pointer, so only with -fno-gvn is it refused.
cat > "$tmp/scan.lisp" <<'LISP'
(defmap out :type :array :key u32 :value u64 :max-entries 1)
(defprog scan (:type :xdp)
  (let ((data (ctx data)) (sum 0))
    (dotimes (i 2000)
      (when (<= (+ data (+ i 1)) (ctx data-end))
        (incf sum (load u8 data i))))
    (setf (getmap out 0) sum)
    XDP_PASS))
LISP
"$KILN" compile "$tmp/scan.lisp" -o "$tmp/scan.o" 2>/dev/null && "$KILN" compile -O0 -fno-gvn "$tmp/scan.lisp" -o "$tmp/scan0.o" 2>/dev/null
if "$KILN" check "$tmp/scan.o" 2>&1 | grep -q '^scan .* accepted '; then pass "packet-at-index-accepted"
else fail packet-at-index-accepted "$("$KILN" check "$tmp/scan.o" 2>&1 | head -2 | tr '\n' '|')"; fi
out=$("$KILN" check "$tmp/scan0.o" 2>&1)
if grep -q 'REJECTED' <<<"$out" && grep -q 'hint: .*in a bpf_loop callback.*-fno-bpf-loop keeps the loop' <<<"$out" &&
	grep -q 'scan.lisp:6:' <<<"$out"; then pass "refused-callback-hint"
else fail refused-callback-hint "$(grep -v '^    ' <<<"$out" | head -4 | tr '\n' '|')"; fi
# what they compute: every program run on the same packets, every map entry compared
if out=$(timeout 120 "$BUILD/tests/twin" "$tmp/on.o" "$tmp/off.o" --input 0200000000020200000000010800450000281234400040115ce2c0a801050a00000214e9003500147650717171717171717171717171 2>&1)
then pass "same-results ($(tail -1 <<<"$out"))"
else fail same-results "$(head -3 <<<"$out" | tr '\n' '|')"; fi
exit 0

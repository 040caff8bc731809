#!/usr/bin/env bash
# walks.sh — code laid out for the verifier's walk, checked by the work the kernel's verifier
# reports (`kiln check`: instructions processed), which is deterministic for one kernel:
#  - a case is a switch: every test first, the default falling through. The verifier walks
#    the default first, where the key is a range, and the paths of each constant prune
#    against it; laid out as a chain of ifs, each constant's path is walked to the end. The
#    same program written both ways computes the same (twin harness, both objects in the
#    kernel), and the case walks less than half as much.
#  - an array map's key that a register of constants holds (a class per branch of a cond)
#    gets an 8-aligned slot, where the verifier knows it: xdp-count walks no more than its
#    clang twin; so does wh-case (both walked more before).
#  - so does a defun's: defuns are allocated again with such keys when every program's
#    stack still fits, and call-in-expr, whose tick is walked at each of its 7 calls, walks
#    no more than its clang twin.
#  - a defun of scalars whose result no caller needs the range of is a global function,
#    which the kernel checks once: big-nat's checksum helpers (BTF linkage global, static
#    with -fno-globals) walk no more than clang's twin; a defun that reads through its
#    argument, and one whose result is a packet offset, stay static and load (called, not
#    inlined: -fno-inline).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=walks
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/twin_obj.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

processed() {   # OBJ PROG: the instructions the verifier processed for PROG
	"$KILN" check "$1" 2>&1 | awk -v p="$2" '$1 == p && / processed/ { for (i = 1; i < NF; i++) if ($(i + 1) == "processed") print $i }'
}

# one program, its dispatches written as case, then as the chain of ifs case was before
prog() {   # CASE-OR-IF
	cat <<LISP
(defmap out :type :array :key u32 :value u64 :max-entries 8)
(defprog sw (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 40) data-end)
      (return XDP_PASS))
    (let ((port (ntohs (load u16 data 36))))
LISP
	if [ "$1" = case ]; then
		cat <<'LISP'
      (incf (getmap out 1) (case port (80 1) (443 2) ((53 7) 3) (22 4) (t 5)))
      (incf (getmap out 2) (case port (8080 10) (443 20) (t 30)))
      (incf (getmap out 3) port)
      (case port (9999 XDP_DROP) ((443 51000) XDP_TX) (t XDP_PASS)))))
LISP
	else
		cat <<'LISP'
      (incf (getmap out 1) (if (= port 80) 1 (if (= port 443) 2 (if (or (= port 53) (= port 7)) 3 (if (= port 22) 4 5)))))
      (incf (getmap out 2) (if (= port 8080) 10 (if (= port 443) 20 30)))
      (incf (getmap out 3) port)
      (if (= port 9999) XDP_DROP (if (or (= port 443) (= port 51000)) XDP_TX XDP_PASS)))))
LISP
	fi
}
prog case > "$tmp/case.lisp"
prog if > "$tmp/if.lisp"
if ! out=$("$KILN" compile "$tmp/case.lisp" -o "$tmp/case.o" 2>&1) || ! out=$("$KILN" compile "$tmp/if.lisp" -o "$tmp/if.o" 2>&1); then
	fail case-switch "kiln compile: $out"
else
	c=$(processed "$tmp/case.o" sw)
	i=$(processed "$tmp/if.o" sw)
	if [ -n "$c" ] && [ -n "$i" ] && [ "$((c * 2))" -lt "$i" ]; then pass "case-switch ($i processed as ifs, $c as a case)"
	else fail case-switch "processed as a case '$c', as ifs '$i'"; fi
	# ports 80, 443, 53, 7, 22, 8080, 9999, 51000 and 1234 at bytes 36-37
	inputs=()
	for port in 0050 01bb 0035 0007 0016 1f90 270f c738 04d2; do
		inputs+=(--input "000000000000000000000000080045000028000000004006000000000000000000000000${port}0000")
	done
	if out=$(timeout 120 "$BUILD/tests/twin" "$tmp/case.o" "$tmp/if.o" "${inputs[@]}" 2>&1); then
		pass "case-same-results (${out##*$'\n'})"
	else
		fail case-same-results "$(tail -3 <<<"$out")"
	fi
fi

for n in xdp-count wh-case call-in-expr big-nat; do
	if ! out=$(twin_obj "tests/corpus/$n.c" "$tmp/$n.clang.o") || ! out=$("$KILN" compile "tests/corpus/$n.lisp" -o "$tmp/$n.o" 2>&1); then
		fail "$n" "build: $out"
		continue
	fi
	p=$("$KILN" check "$tmp/$n.o" 2>&1 | awk '/ processed/ { print $1; exit }')
	k=$(processed "$tmp/$n.o" "$p")
	c=$(processed "$tmp/$n.clang.o" "$p")
	if [ -n "$k" ] && [ -n "$c" ] && [ "$k" -le "$c" ]; then pass "$n ($k processed, clang's twin $c)"
	else fail "$n" "processed: kiln '$k', clang's twin '$c'"; fi
done
# big-nat's helpers: global, and static again with -fno-globals
if "$KILN" compile -fno-globals tests/corpus/big-nat.lisp -o "$tmp/big-nat.static.o" 2>/dev/null &&
	g=$(bpftool btf dump file "$tmp/big-nat.o" 2>&1 | grep -c "FUNC 'csum_replace.*linkage=global") &&
	s=$(bpftool btf dump file "$tmp/big-nat.static.o" 2>&1 | grep -c "FUNC 'csum_replace.*linkage=static") &&
	[ "$g" = 2 ] && [ "$s" = 2 ]; then
	pass "global-functions (2 helpers global, static with -fno-globals)"
else
	fail global-functions "global ${g:-?}, static with -fno-globals ${s:-?}"
fi

# what must stay static: an argument read through, a result used as a packet offset
cat > "$tmp/static.lisp" <<'LISP'
(defmap out :type :array :key u32 :value u64 :max-entries 4)
(defun first-byte (p) (load u8 p 0))
(defun low3 (x) (logand x 7))
(defprog st (:type :xdp)
  (let ((data (ctx data))
        (data-end (ctx data-end)))
    (when (> (+ data 16) data-end)
      (return XDP_PASS))
    (incf (getmap out 0) (first-byte (+ data 2)))
    (let ((p (+ data (low3 (load u8 data 0)))))
      (when (<= (+ p 1) data-end)
        (incf (getmap out 1) (load u8 p 0))))
    XDP_PASS))
LISP
if ! out=$("$KILN" compile -fno-inline "$tmp/static.lisp" -o "$tmp/static.o" 2>&1); then
	fail stays-static "kiln compile: $out"
elif n=$(bpftool btf dump file "$tmp/static.o" 2>&1 | grep -cE "FUNC '(first_byte|low3)'.*linkage=static") && [ "$n" = 2 ] &&
	out=$("$KILN" check "$tmp/static.o" 2>&1) && grep -q 'accepted' <<<"$out"; then
	pass "stays-static (both static, the program loads)"
else
	fail stays-static "static: ${n:-?}; $(head -3 <<<"$out")"
fi
exit 0

#!/usr/bin/env bash
# inputs.sh — inputs that name the system or strain the compiler get clear errors: control
# bytes of the source never reach the terminal raw; output files honour the umask; without
# CAP_BPF, check/load/run say the user lacks the privilege; BTF's limits (struct members, map
# count, name length, the size of its strings) are source errors; a million statements, a
# 100,000-member struct or 30,000 functions or maps are handled in well under the time limit.
# (Tracepoint names checked against tracefs, and "did you mean", are in tests/errors.)
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/inputs"
rm -rf "$out"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-inputs-$$
trap '"$KILN" unload --force "$pin" >/dev/null 2>&1; rm -rf "$pin"' EXIT

pass() { echo "PASS inputs/$1"; }
fail() { echo "FAIL inputs/$1: $2"; }
# name, seconds, expected status, text expected in the output, kiln arguments...
check() {
	local name=$1 secs=$2 want=$3 text=$4; shift 4
	local o rc
	o=$(timeout "$secs" "$KILN" "$@" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$o"; then pass "$name"
	elif [ $rc -eq 124 ]; then fail "$name" "took more than $secs s"
	else fail "$name" "expected status $want and '$text', got $rc and '$(head -1 <<<"$o" | cut -c1-300)'"; fi
}

# ---- control bytes: escaped in the message and the source line, the caret still under -------
printf '(defprog p (:type :xdp)\n  (foo\033]0;title\007 \000 1))\n' >"$out/ctl.lisp"
"$KILN" compile "$out/ctl.lisp" -o "$out/ctl.o" >"$out/ctl.err" 2>&1
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$out/ctl.err" || [ "$(tr -d '\000' <"$out/ctl.err" | wc -c)" -ne "$(wc -c <"$out/ctl.err")" ]; then
	fail control-bytes "a control byte reached the output: $(cat -v "$out/ctl.err" | head -3)"
elif ! grep -qF '  (foo\x1b]0;title\x07 \x00 1))' "$out/ctl.err"; then
	fail control-bytes "the line is not shown escaped: $(cat -v "$out/ctl.err" | head -3)"
else
	pass control-bytes
fi
# the error is at the ']' after ESC (column 8); shown after "  (foo\x1b": 12 columns
if [ "$(sed -n 3p "$out/ctl.err")" == "            ^" ]; then pass control-bytes-caret
else fail control-bytes-caret "got '$(sed -n 3p "$out/ctl.err")'"; fi
printf '(defprog p (:type :tracepoint :section "tracepoint/sys\033[2Jcalls/x")\n  0)\n' >"$out/ctl-msg.lisp"
o=$("$KILN" compile "$out/ctl-msg.lisp" -o "$out/ctl.o" 2>&1)
if grep -q $'\033' <<<"$o"; then fail control-bytes-message "ESC in: $(cat -v <<<"$o" | head -1)"
elif grep -qF "'sys\\x1b[2Jcalls/x' is not a tracepoint name" <<<"$o"; then pass control-bytes-message
else fail control-bytes-message "got '$(head -1 <<<"$o")'"; fi

# the verifier's log quotes source lines: kiln load and check --log show them escaped too
printf '(defprog unchecked (:type :xdp)\n  (let ((data (ctx data)))\n    (load u32 data 20))) ; \033[2J\033]0;x\007\n' >"$out/rej.lisp"
for cmd in "load $out/rej.lisp --pin $pin" "check $out/rej.lisp --log"; do
	o=$($KILN $cmd 2>&1)
	name=control-bytes-verifier-${cmd%% *}
	if grep -q $'\033' <<<"$o"; then fail "$name" "ESC in: $(grep -a $'\033' <<<"$o" | cat -v | head -1)"
	elif grep -qF '; \x1b[2J\x1b]0;x\x07 @ rej.lisp:3' <<<"$o"; then pass "$name"
	else fail "$name" "no escaped source line in: $(tail -3 <<<"$o" | tr '\n' '|')"; fi
done

# ---- output files honour the umask ---------------------------------------------------------------
for m in 077:600 022:644 002:664; do
	(umask "${m%:*}"; "$KILN" compile examples/xdp-count.lisp -o "$out/umask-${m%:*}.o" >/dev/null 2>&1)
	got=$(stat -c %a "$out/umask-${m%:*}.o" 2>/dev/null)
	if [ "$got" == "${m#*:}" ]; then pass "umask-${m%:*}"; else fail "umask-${m%:*}" "mode ${got:-none}, want ${m#*:}"; fi
done

# ---- without CAP_BPF: the user lacks the privilege, said so -----------------------------------
if command -v capsh >/dev/null; then
	unpriv=(capsh --drop=cap_bpf,cap_sys_admin,cap_perfmon --)
	for cmd in "check examples/xdp-count.lisp" "load examples/xdp-count.lisp --pin $pin" \
		"run examples/xdp-count.lisp --duration 0.2" "test-run examples/xdp-count.lisp"; do
		o=$("${unpriv[@]}" -c "exec $KILN $cmd" 2>&1); rc=$?
		name=unprivileged-${cmd%% *}
		if [ $rc -eq 1 ] && grep -q "lacks the privilege to use BPF" <<<"$o" && ! grep -q RLIMIT <<<"$o"; then pass "$name"
		else fail "$name" "status $rc: $(head -1 <<<"$o")"; fi
	done
	if [ ! -e "$pin" ]; then pass unprivileged-nothing-pinned; else fail unprivileged-nothing-pinned "$pin exists"; fi
else
	fail unprivileged "capsh is missing (Debian package libcap2-bin; make deps installs it)"
fi

# ---- BTF's limits as source errors, and sizes that were slow -------------------------------------
gen_struct() {   # fields, file
	awk -v n="$1" 'BEGIN { printf "(defstruct big"; for (i = 0; i < n; i++) printf " (f%d u8)", i;
		print ")"; print "(defprog p (:type :xdp) XDP_PASS)" }' >"$2"
}
gen_struct 100000 "$out/members.lisp"
check struct-members-limit 20 1 "members.lisp:1:775326: error: defstruct big has 100000 members; BTF allows at most 65535" \
	compile "$out/members.lisp" -o "$out/members.o"
o=$("$KILN" compile "$out/members.lisp" -o "$out/members.o" 2>&1 | wc -c)
if [ "$o" -lt 1000 ]; then pass long-line-excerpt; else fail long-line-excerpt "$o bytes of error output"; fi
gen_struct 65535 "$out/members-max.lisp"
check struct-members-max 20 0 "" compile "$out/members-max.lisp" -o "$out/members-max.o"
awk 'BEGIN { for (i = 0; i < 32768; i++) printf "(defmap m%d :type :array :key u32 :value u32 :max-entries 1)\n", i;
	print "(defprog p (:type :xdp) XDP_PASS)" }' >"$out/maps.lisp"
check map-count-limit 20 1 "maps.lisp:32768:1: error: more than 32767 maps" compile "$out/maps.lisp" -o "$out/maps.o"
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "(defmap m%d :type :array :key u32 :value u32 :max-entries 1)\n", i;
	print "(defprog p (:type :xdp) XDP_PASS)" }' >"$out/maps30k.lisp"
check maps-30000 10 0 "" compile "$out/maps30k.lisp" -o "$out/maps30k.o"
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "(defun f%d (x) (+ x %d))\n", i, i;
	print "(defprog p (:type :xdp) (if (> (f1 2) 0) XDP_PASS XDP_DROP))" }' >"$out/funs.lisp"
check defuns-30000 10 0 "" compile "$out/funs.lisp" -o "$out/funs.o"
name=$(printf 'a%.0s' $(seq 300))
printf '(defprog p (:type :xdp)\n  (let ((%s 1)) XDP_PASS))\n' "$name" >"$out/name.lisp"
check name-length 10 1 "name.lisp:2:10: error: a name of 300 characters; names are at most 255" \
	compile "$out/name.lisp" -o "$out/name.o"
# a million statements: refused where the millionth form is read, quickly and in little memory
awk 'BEGIN { print "(defprog p (:type :xdp)\n (let ((x 0))"; for (i = 0; i < 1000000; i++) print "  (setq x (+ x 1))";
	print "  (if (> x 0) XDP_PASS XDP_DROP)))" }' >"$out/million.lisp"
# (in 600 MB of address space, unless kiln is built with ASan, which reserves terabytes)
vm=600000
{ [ -n "${SANITIZE:-}" ] || ldd "$KILN" 2>/dev/null | grep -q libasan || grep -qa AddressSanitizer "$(readlink -f "$KILN")"; } && vm=unlimited
o=$( (ulimit -v $vm; timeout 10 "$KILN" compile "$out/million.lisp" -o "$out/million.o") 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "million.lisp:142858:11: error: the source has more than 1000000 forms" <<<"$o"; then pass million-statements
else fail million-statements "status $rc: $(head -1 <<<"$o")"; fi
# a few lines of macro that would expand to four million statements: refused as quickly
cat >"$out/bomb.lisp" <<'EOF'
(defmacro many (d)
  (if (= d 0)
      `(setq x (+ x 1))
      `(progn (many ,(- d 1)) (many ,(- d 1)))))
(defprog p (:type :xdp)
  (let ((x 0))
    (many 22)
    (if (> x 0) XDP_PASS XDP_DROP)))
EOF
o=$( (ulimit -v $vm; timeout 10 "$KILN" compile "$out/bomb.lisp" -o "$out/bomb.o") 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q "error: more than 100000 macro expansions in all" <<<"$o"; then pass macro-bomb
else fail macro-bomb "status $rc: $(head -1 <<<"$o")"; fi
# 16,383 expansions, lowered 16 times by the unrolled dotimes: the limit counts each call
# once (lowering and the assigned-variable walk expanded it again each time: 278,511)
cat >"$out/repeats.lisp" <<'EOF'
(defmacro tree (d)
  (if (= d 0)
      0
      `(progn (tree ,(- d 1)) (tree ,(- d 1)))))
(defprog p (:type :xdp)
  (dotimes (i 16)
    (tree 13))
  XDP_PASS)
EOF
o=$( (ulimit -v $vm; timeout 10 "$KILN" compile "$out/repeats.lisp" -o "$out/repeats.o") 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -s "$out/repeats.o" ]; then pass macro-repeats
else fail macro-repeats "status $rc: $(head -1 <<<"$o")"; fi
# a user macro named like a built-in form does not reach into the forms kiln makes itself:
# with-event's drop counter is kiln's own (incf (getmap RING-drops 0)), whatever `incf` the user
# defines (before the expand stage, the user's macro was expanded there: 23 instructions, not 22)
cat >"$out/own.lisp" <<'EOF2'
(defevent big [:proto :u8] [:padding :u8 3] [:n :u32] [:fill :u8 992])
(defmap events :type :ringbuf :max-entries 4096)
(defprog p (:type :xdp)
  (with-event (e big events)
    (setf (big-n e) 1))
  XDP_PASS)
EOF2
{ cat "$out/own.lisp"; echo '(defmacro incf (place) (list (quote setf) place 7))'; } >"$out/shadow.lisp"
if "$KILN" compile -w "$out/own.lisp" -o "$out/own.o" && "$KILN" compile -w "$out/shadow.lisp" -o "$out/shadow.o" &&
   diff <("$KILN" disasm "$out/own.o" | sed 's/@ own.lisp/@ F/') \
	<("$KILN" disasm "$out/shadow.o" | sed 's/@ shadow.lisp/@ F/') >/dev/null; then
	pass macro-shadow-own-forms
else fail macro-shadow-own-forms "a user macro named incf changed with-event's drop counter"; fi
# more than 8 MiB of source: BTF's strings (its lines and names) would outgrow 16 MiB
awk 'BEGIN { c = sprintf("%150s", ""); gsub(/ /, "c", c); print "(defprog p (:type :xdp)\n (let ((x 0))";
	for (i = 0; i < 60000; i++) print "  (setq x (+ x 1)) ;" c; print "  (if (> x 0) XDP_PASS XDP_DROP)))" }' >"$out/size.lisp"
check source-size 10 1 "error: the source is larger than 8 MiB" compile "$out/size.lisp" -o "$out/size.o"
rm -f "$out"/*.lisp "$out"/*.o

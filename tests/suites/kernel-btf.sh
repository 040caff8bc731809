#!/usr/bin/env bash
# kernel-btf.sh — where kernel types come from: a program that names no kernel type compiles
# with /sys/kernel/btf hidden (a private mount namespace with an empty tmpfs over it) and
# never opens vmlinux (strace); one that names a kernel type fails there with an error that
# names --btf; `--btf FILE` and `(kernel-btf "FILE")` with a copy of the kernel's BTF give the
# object the running kernel's BTF gives, byte for byte; bpftool reads the CO-RE records.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-kbtf.XXXXXX")
trap 'rm -rf "$work"' EXIT
pass() { echo "PASS kernel-btf/$1"; }
fail() { echo "FAIL kernel-btf/$1: $2"; }
skip() { echo "SKIP kernel-btf/$1: $2"; }

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip all "this kernel has no /sys/kernel/btf/vmlinux"
	exit 0
fi
cp /sys/kernel/btf/vmlinux "$work/vmlinux"

cat >"$work/plain.lisp" <<'EOF'
(defmap counts :type :array :key u32 :value u64 :max-entries 1)
(defprog count (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (incf (getmap counts 0))
  0)
EOF
cat >"$work/typed.lisp" <<'EOF'
(defmap parents :type :hash :key u32 :value u32 :max-entries 64)
(defprog parent (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")
  (let ((task (current-task)))
    (setf (getmap parents (-> task tgid)) (-> task real_parent tgid)))
  0)
EOF
{ echo "(kernel-btf \"$work/vmlinux\")"; cat "$work/typed.lisp"; } >"$work/pinned.lisp"

hidden() { unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh "$@"; }

# ---- no kernel type: no vmlinux needed, none opened ----------------------------------------
if hidden "$KILN" compile "$work/plain.lisp" -o "$work/plain.o" 2>"$work/err"; then
	pass plain-without-vmlinux
else
	fail plain-without-vmlinux "$(head -3 "$work/err")"
fi
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace (make test-asan): no leak check in the traced runs
	noleak=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	ASAN_OPTIONS=$noleak strace -f -e trace=open,openat -o "$work/trace" "$KILN" compile "$work/plain.lisp" -o "$work/plain2.o" 2>/dev/null
	if grep -q 'btf/vmlinux' "$work/trace"; then fail plain-opens-nothing "$(grep btf/vmlinux "$work/trace" | head -1)"
	else pass plain-opens-nothing; fi
	ASAN_OPTIONS=$noleak strace -f -e trace=open,openat -o "$work/trace" "$KILN" compile "$work/typed.lisp" -o "$work/typed.o" 2>/dev/null
	n=$(grep -c '/sys/kernel/btf/vmlinux' "$work/trace")
	if [ "$n" = 1 ]; then pass typed-opens-once; else fail typed-opens-once "vmlinux opened $n times"; fi
else
	skip plain-opens-nothing "no strace"
fi

# ---- a kernel type without vmlinux: the error names --btf ----------------------------------
hidden "$KILN" compile "$work/typed.lisp" -o "$work/x.o" 2>"$work/err"; rc=$?
first=$(head -1 "$work/err")
if [ $rc = 1 ] && [[ $first == "$work/typed.lisp:4:"*"error: cannot read the kernel's types: /sys/kernel/btf/vmlinux does not exist"*"--btf FILE"* ]]; then
	pass missing-vmlinux-names-btf
else
	fail missing-vmlinux-names-btf "status $rc: $first"
fi

# ---- --btf and (kernel-btf) give the same object as the running kernel's BTF ---------------
"$KILN" compile "$work/typed.lisp" -o "$work/typed.o" 2>"$work/err" || fail typed-compiles "$(head -3 "$work/err")"
if hidden "$KILN" compile --btf "$work/vmlinux" "$work/typed.lisp" -o "$work/typed-btf.o" 2>"$work/err" &&
   cmp -s "$work/typed.o" "$work/typed-btf.o"; then
	pass btf-option-same-object
else
	fail btf-option-same-object "$(head -3 "$work/err")"
fi
if hidden "$KILN" compile "$work/pinned.lisp" -o "$work/pinned.o" 2>"$work/err"; then
	pass kernel-btf-form
else
	fail kernel-btf-form "$(head -3 "$work/err")"
fi
if hidden "$KILN" disasm --btf "$work/vmlinux" "$work/typed.lisp" >/dev/null 2>"$work/err"; then
	pass disasm-btf-option
else
	fail disasm-btf-option "$(head -3 "$work/err")"
fi

# ---- bpftool reads the records; the verifier takes the relocated program -------------------
if command -v bpftool >/dev/null; then
	if bpftool btf dump file "$work/typed.o" >"$work/dump" 2>&1 && grep -q "STRUCT 'task_struct'" "$work/dump"; then
		pass bpftool-reads-local-types
	else
		fail bpftool-reads-local-types "$(head -3 "$work/dump")"
	fi
fi
if "$KILN" check "$work/typed.o" >"$work/check" 2>&1; then pass typed-loads
else fail typed-loads "$(head -5 "$work/check")"; fi
exit 0

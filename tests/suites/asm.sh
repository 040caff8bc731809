#!/usr/bin/env bash
# asm.sh — the asm form (docs/language.md, "Raw instructions: asm"). tests/asm/asm.lisp is
# compiled at -O2 and -O0, loaded, and each program run under BPF_PROG_TEST_RUN: a value
# computed in asm, a loop with labels, a helper call inside asm (a map lookup on inputs a
# map and a key's address), values live across an asm that calls and writes r6-r9, ld_imm64
# and 32-bit operations, a defun whose inputs arrive in each other's registers, and
# Whistler's (asm OPCODE DST SRC OFF IMM), an exit inside asm, upper-case names; each return
# value is checked, and asm in an unrolled loop and in a bpf_loop callback. `kiln disasm`
# shows each written instruction as exactly that instruction, at its own source line, with
# its jump offsets within the block. The error cases are tests/errors/asm-*.lisp.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
SUITE=asm
. "${ROOT:-$PWD}/tests/harness/report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=tests/asm/asm.lisp

want='asm_value 42
sum_loop 55
asm_lookup 5
live_across 9
wide_narrow 574908041
in_defun 3337
whistler_asm 3
early_exit 7
UPPER_CASE 11
in_loop 190
in_callback 42052'

for o in -O2 -O0; do
	if ! err=$("$KILN" compile $o "$src" -o "$tmp/asm$o.o" 2>&1); then
		fail "compile$o" "$(head -1 <<<"$err")"
		continue
	fi
	if ! out=$("$KILN" test-run "$tmp/asm$o.o" --json 2>&1); then
		if grep -q "Operation not permitted" <<<"$out"; then
			echo "SKIP $SUITE/run$o: BPF_PROG_TEST_RUN needs CAP_BPF (not permitted here)"
		else
			fail "run$o" "$(head -3 <<<"$out" | tr '\n' '|')"
		fi
		continue
	fi
	got=$(python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if "prog" in r:
        print(r["prog"], r["retval"])' <<<"$out")
	check "run$o" "$want" "$got"
done

# Each written instruction (keyed by its source line, closing parentheses dropped) and what
# it must disassemble to (jump targets' absolute positions dropped: offsets stay).
expect='(mov64 r0 r1|r0 = r1
(add64 r0 2|r0 += 2
(mov64 r0 0|r0 = 0
(jeq r1 0 :done|if r1 == 0x0 goto +3
(add64 r0 r1|r0 += r1
(sub64 r1 1|r1 -= 1
(ja :loop|goto -4
(call map_lookup_elem|call bpf_map_lookup_elem#1
(jeq r0 0 :none|if r0 == 0x0 goto +2
(ldxdw r0 r0 0|r0 = *(u64 *)(r0 + 0)
(ja :end|goto +1
(call get_prandom_u32|call bpf_get_prandom_u32#7
(mov64 r8 r6|r8 = r6
(add64 r8 r7|r8 += r7
(mov64 r6 0|r6 = 0
(mov64 r7 0|r7 = 0
(mov64 r9 r8|r9 = r8
(lddw r0 0x1122334455667788|r0 = 0x1122334455667788 ll
(rsh64 r0 32|r0 >>= 32
(mov32 r0 r1|w0 = w1
(jeq32 r0 -1 :yes|if w0 == -0x1 goto +2
(mov64 r0 1|r0 = 1
(lsh64 r0 8|r0 <<= 8
(or64 r0 r1|r0 |= r1
(let ((t (asm #x85 0 0 0 5|call bpf_ktime_get_ns#5
(jne r1 1 :on|if r1 != 0x1 goto +2
(exit|exit
(CALL 7|call bpf_get_prandom_u32#7
(MOV64 R3 R0|r3 = r0
(AND64 R3 0|r3 &= 0
(ADD64 R3 11|r3 += 11'
for o in -O2 -O0; do
	[ -f "$tmp/asm$o.o" ] || continue
	if ! dis=$("$KILN" disasm "$tmp/asm$o.o" --json 2>&1); then
		fail "disasm$o" "$(head -1 <<<"$dis")"
		continue
	fi
	bad=$(EXPECT="$expect" python3 -c '
import json, os, re, sys
want = dict(l.split("|", 1) for l in os.environ["EXPECT"].split("\n"))
seen, bad = {}, []
for l in sys.stdin:
    p = json.loads(l)
    for i in p.get("insns", []):
        key = i.get("src", "").rstrip(")")
        if key not in want:
            continue
        text = re.sub(r" <[^>]*>$", "", i["text"])
        seen[key] = seen.get(key, 0) + 1
        if text != want[key]:
            bad.append("%s: %s, not %s" % (p["prog"], text, want[key]))
bad += ["no instruction of line %s" % k for k in want if k not in seen]
print("; ".join(bad[:4]))' <<<"$dis")
	check "disasm$o" "" "$bad"
done

#!/usr/bin/env bash
# disasm.sh — `kiln disasm` against llvm-objdump and the sources: every corpus program built by
# kiln and by clang decodes to the same instructions, and its source lines are the file's.
# Prints "PASS disasm/NAME" or "FAIL disasm/NAME: why". Needs clang and llvm-objdump, no kernel.
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
KILN=${KILN:-$ROOT/kiln}
BUILD=${BUILD:-$ROOT/build}
CLANG=${CLANG:-clang}
out="$BUILD/tests/disasm"
mkdir -p "$out"

pass() { echo "PASS disasm/$1"; }
fail() { echo "FAIL disasm/$1: $2"; }
json_ok() { python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'; }

if ! "$KILN" disasm --help >/dev/null 2>&1; then
	fail help "'kiln disasm --help' fails: is the command registered in src/cli/main.c?"
	exit 0
fi

# ---- examples/xdp-count.lisp: helper names, map names, source lines with their numbers ------
x=$ROOT/examples/xdp-count.lisp
if ! txt=$("$KILN" disasm "$x" 2>&1); then
	fail xdp-count "kiln disasm failed: $(head -3 <<<"$txt")"
else
	bad=""
	grep -qx '  *[0-9]*: call bpf_map_lookup_elem#1' <<<"$txt" || bad="$bad no 'call bpf_map_lookup_elem#1';"
	grep -qx '  *[0-9]*: r1 = map\[proto_count\] ll' <<<"$txt" || bad="$bad no 'r1 = map[proto_count] ll';"
	grep -qx '  *[0-9]*: r1 = map\[verdicts\] ll' <<<"$txt" || bad="$bad no 'r1 = map[verdicts] ll';"
	grep -qx '  *[0-9]*: call ipv4_header_len' <<<"$txt" || bad="$bad no 'call ipv4_header_len';"
	grep -qx 'prog xdp_count (section xdp, [0-9]* insns)' <<<"$txt" || bad="$bad no 'prog xdp_count' header;"
	grep -qx 'func ipv4_header_len (section .text, [0-9]* insns)' <<<"$txt" || bad="$bad no 'func ipv4_header_len' header;"
	grep -qx '  *[0-9]*: lock \*(u64 \*)(r0 + 0) += r1' <<<"$txt" || bad="$bad no 'lock *(u64 *)(r0 + 0) += r1';"
	# the line of the first incf, by its number in the file, followed by the lookup it makes
	n=$(grep -n '(incf (getmap proto-count proto))' "$x" | cut -d: -f1)
	after=$(awk -v l="; (incf (getmap proto-count proto)) @ xdp-count.lisp:$n" \
		'$0 == l { on = 1; next } on && /^;/ { exit } on' <<<"$txt")
	[ -n "$n" ] && grep -q 'map\[proto_count\]' <<<"$after" ||
		bad="$bad no '; (incf (getmap proto-count proto)) @ xdp-count.lisp:$n' before the map lookup;"
	if [ -z "$bad" ]; then pass xdp-count; else fail xdp-count "$bad"; fi
fi
o=$("$KILN" disasm "$x" --prog xdp_count 2>&1)
if [ "$(grep -c '^\(prog\|func\) ' <<<"$o")" = 1 ] && grep -q '^prog xdp_count ' <<<"$o"; then pass prog-filter
else fail prog-filter "--prog xdp_count: $(grep '^\(prog\|func\) ' <<<"$o" | tr '\n' ' ')"; fi
o=$("$KILN" disasm "$x" --prog no_such_prog 2>&1); rc=$?
if [ $rc = 1 ] && [ "$(wc -l <<<"$o")" = 1 ]; then pass prog-missing; else fail prog-missing "status $rc: $o"; fi

# ---- bad input: one line and status 1; bad usage: status 2 -------------------------------
head -c 3000 /dev/urandom >"$out/garbage.o"
printf 'not an object\n' >"$out/text.o"
: >"$out/empty.o"
printf 'int f(int x) { return x + 1; }\n' >"$out/host.c"
gcc -c "$out/host.c" -o "$out/host.o" 2>/dev/null
for f in garbage.o text.o empty.o host.o no-such-file.o; do
	o=$("$KILN" disasm "$out/$f" 2>&1 >/dev/null); rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <<<"$o")" = 1 ] && [[ $o == "kiln disasm: "* ]]; then pass "bad-input-$f"
	else fail "bad-input-$f" "status $rc, message: $o"; fi
done
o=$("$KILN" disasm 2>&1); rc=$?
if [ $rc = 2 ]; then pass usage-no-args; else fail usage-no-args "status $rc"; fi
o=$("$KILN" disasm "$x" --bogus 2>&1); rc=$?
if [ $rc = 2 ]; then pass usage-bad-option; else fail usage-bad-option "status $rc"; fi
printf '(defprog p (:type :xdp)\n  (+ XDP_PASS undefined-thing))\n' >"$out/broken.lisp"
o=$("$KILN" disasm "$out/broken.lisp" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q 'broken.lisp:2:' <<<"$o"; then pass compile-error; else fail compile-error "status $rc: $o"; fi

# a broken .BTF.ext (its magic overwritten): the code still prints, without lines, status 1
"$KILN" compile "$x" -o "$out/xc.o" >/dev/null 2>&1
python3 -c '
import subprocess, sys
data = bytearray(open(sys.argv[1], "rb").read())
for l in subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = l.replace("[ ", "[").split()
    if len(f) > 4 and f[1] == ".BTF.ext":
        data[int(f[4], 16)] ^= 0xff
open(sys.argv[2], "wb").write(data)
' "$out/xc.o" "$out/xc-badext.o"
o=$("$KILN" disasm "$out/xc-badext.o" 2>"$out/err"); rc=$?
if [ $rc = 1 ] && grep -q '\.BTF\.ext' "$out/err" && grep -q 'call bpf_map_lookup_elem#1' <<<"$o" &&
	! grep -q '^;' <<<"$o"; then
	pass bad-btf-ext
else
	fail bad-btf-ext "status $rc, stderr: $(head -2 "$out/err" | tr '\n' ' ')"
fi

# ---- JSON: parses, non-ASCII source text included -----------------------------------------
printf '(defmap hits :type :array :key u32 :value u64 :max-entries 1)\n(defprog utf (:type :xdp :license "GPL")\n  (incf (getmap hits 0)) ; compté — une fois\n  XDP_PASS)\n' >"$out/utf.lisp"
o=$("$KILN" disasm --json "$out/utf.lisp" 2>&1)
if py=$(python3 -c '
import json, sys
ps = [json.loads(l) for l in sys.stdin]
srcs = [i.get("src", "") for p in ps for i in p["insns"]]
assert ps[0]["prog"] == "utf" and ps[0]["section"] == "xdp", ps
assert any("compt\u00e9 \u2014 une fois" in s for s in srcs), srcs
' <<<"$o" 2>&1); then pass json-utf8; else fail json-utf8 "$(tail -1 <<<"$py") in: $o"; fi

# ---- instructions no corpus program has: every class and form, checked against the text ---
# the kernel verifier prints (jump targets <...> left out). Bytes assembled by clang.
cases=(
	"07 01 00 00 22 00 00 00|r1 += 34"               "0f 21 00 00 00 00 00 00|r1 += r2"
	"17 01 00 00 fc ff ff ff|r1 -= -4"               "2f 21 00 00 00 00 00 00|r1 *= r2"
	"37 01 00 00 03 00 00 00|r1 /= 3"                "4f 21 00 00 00 00 00 00|r1 |= r2"
	"57 01 00 00 0f 00 00 00|r1 &= 15"               "6f 21 00 00 00 00 00 00|r1 <<= r2"
	"77 01 00 00 03 00 00 00|r1 >>= 3"               "87 01 00 00 00 00 00 00|r1 = -r1"
	"9f 21 00 00 00 00 00 00|r1 %= r2"               "a7 01 00 00 ff 00 00 00|r1 ^= 255"
	"bf 21 00 00 00 00 00 00|r1 = r2"                "b7 01 00 00 ff ff ff ff|r1 = -1"
	"cf 21 00 00 00 00 00 00|r1 s>>= r2"             "04 01 00 00 22 00 00 00|w1 += 34"
	"0c 21 00 00 00 00 00 00|w1 += w2"               "84 01 00 00 00 00 00 00|w1 = -w1"
	"bc 21 00 00 00 00 00 00|w1 = w2"                "b4 01 00 00 05 00 00 00|w1 = 5"
	"94 01 00 00 07 00 00 00|w1 %= 7"                "d4 01 00 00 10 00 00 00|r1 = le16 r1"
	"dc 01 00 00 20 00 00 00|r1 = be32 r1"           "d7 01 00 00 40 00 00 00|r1 = bswap64 r1"
	"3f 21 01 00 00 00 00 00|r1 s/= r2"              "97 01 01 00 05 00 00 00|r1 s%= 5"
	"3c 21 01 00 00 00 00 00|w1 s/= w2"              "bf 21 08 00 00 00 00 00|r1 = (s8)r2"
	"bf 21 20 00 00 00 00 00|r1 = (s32)r2"           "bc 21 10 00 00 00 00 00|w1 = (s16)w2"
	"bc 21 20 00 00 00 00 00|<invalid opcode 0xbc>"  "f7 01 00 00 00 00 00 00|<invalid opcode 0xf7>"
	"05 00 03 00 00 00 00 00|goto +3"                "06 00 00 00 05 00 00 00|gotol +5"
	"15 01 03 00 08 00 00 00|if r1 == 0x8 goto +3"   "15 01 03 00 ff ff ff ff|if r1 == -0x1 goto +3"
	"1d 21 fd ff 00 00 00 00|if r1 == r2 goto -3"    "25 01 01 00 05 00 00 00|if r1 > 0x5 goto +1"
	"3d 21 01 00 00 00 00 00|if r1 >= r2 goto +1"    "45 01 01 00 01 00 00 00|if r1 & 0x1 goto +1"
	"5d 21 01 00 00 00 00 00|if r1 != r2 goto +1"    "65 01 01 00 05 00 00 00|if r1 s> 0x5 goto +1"
	"7d 21 01 00 00 00 00 00|if r1 s>= r2 goto +1"   "a5 01 01 00 05 00 00 00|if r1 < 0x5 goto +1"
	"bd 21 01 00 00 00 00 00|if r1 <= r2 goto +1"    "c5 01 01 00 05 00 00 00|if r1 s< 0x5 goto +1"
	"dd 21 01 00 00 00 00 00|if r1 s<= r2 goto +1"   "16 01 01 00 08 00 00 00|if w1 == 0x8 goto +1"
	"ae 21 01 00 00 00 00 00|if w1 < w2 goto +1"     "e5 00 02 00 00 00 00 00|may_goto +2"
	"85 00 00 00 01 00 00 00|call bpf_map_lookup_elem#1"
	"85 00 00 00 05 00 00 00|call bpf_ktime_get_ns#5"
	"85 00 00 00 ff 0f 00 00|call unknown#4095"      "85 20 00 00 07 00 00 00|call kfunc#7"
	"85 10 00 00 02 00 00 00|call pc+2"              "95 00 00 00 00 00 00 00|exit"
	"18 01 00 00 44 33 22 11 00 00 00 00 88 77 66 55|r1 = 0x5566778811223344 ll"
	"18 11 00 00 03 00 00 00 00 00 00 00 00 00 00 00|r1 = map[fd:3] ll"
	"18 21 00 00 03 00 00 00 00 00 00 00 10 00 00 00|r1 = map[fd:3][0]+16 ll"
	"30 00 00 00 0c 00 00 00|r0 = *(u8 *)skb[12]"    "28 00 00 00 0c 00 00 00|r0 = *(u16 *)skb[12]"
	"20 00 00 00 1a 00 00 00|r0 = *(u32 *)skb[26]"   "40 10 00 00 04 00 00 00|r0 = *(u32 *)skb[r1 + 4]"
	"61 21 04 00 00 00 00 00|r1 = *(u32 *)(r2 + 4)"  "69 21 0c 00 00 00 00 00|r1 = *(u16 *)(r2 + 12)"
	"71 21 17 00 00 00 00 00|r1 = *(u8 *)(r2 + 23)"  "79 21 f8 ff 00 00 00 00|r1 = *(u64 *)(r2 - 8)"
	"91 21 02 00 00 00 00 00|r1 = *(s8 *)(r2 + 2)"   "89 21 02 00 00 00 00 00|r1 = *(s16 *)(r2 + 2)"
	"81 21 04 00 00 00 00 00|r1 = *(s32 *)(r2 + 4)"  "62 0a fc ff 05 00 00 00|*(u32 *)(r10 - 4) = 5"
	"7a 0a f8 ff ff ff ff ff|*(u64 *)(r10 - 8) = -1" "63 1a fc ff 00 00 00 00|*(u32 *)(r10 - 4) = r1"
	"73 1a ff ff 00 00 00 00|*(u8 *)(r10 - 1) = r1"  "6b 1a fe ff 00 00 00 00|*(u16 *)(r10 - 2) = r1"
	"7b 1a f8 ff 00 00 00 00|*(u64 *)(r10 - 8) = r1"
	"db 21 00 00 00 00 00 00|lock *(u64 *)(r1 + 0) += r2"
	"c3 21 04 00 40 00 00 00|lock *(u32 *)(r1 + 4) |= r2"
	"db 21 00 00 50 00 00 00|lock *(u64 *)(r1 + 0) &= r2"
	"db 21 00 00 a0 00 00 00|lock *(u64 *)(r1 + 0) ^= r2"
	"db 21 00 00 01 00 00 00|r2 = atomic64_fetch_add((u64 *)(r1 + 0), r2)"
	"c3 21 08 00 a1 00 00 00|r2 = atomic_fetch_xor((u32 *)(r1 + 8), r2)"
	"db 21 00 00 e1 00 00 00|r2 = atomic64_xchg((u64 *)(r1 + 0), r2)"
	"db 21 f8 ff f1 00 00 00|r0 = atomic64_cmpxchg((u64 *)(r1 - 8), r0, r2)"
	"db 21 00 00 00 01 00 00|r1 = load_acquire((u64 *)(r2 + 0))"
	"db 21 00 00 10 01 00 00|store_release((u64 *)(r1 + 0), r2)"
	"60 00 00 00 00 00 00 00|<invalid opcode 0x60>"
)
{
	printf '\t.section xdp,"ax",@progbits\n\t.globl raw\n\t.type raw,@function\nraw:\n'
	for c in "${cases[@]}"; do printf '\t.byte 0x%s\n' "$(sed 's/ /,0x/g' <<<"${c%%|*}")"; done
	printf '\t.size raw, .-raw\n'
} >"$out/raw.s"
if ! o=$("$CLANG" -target bpf -c "$out/raw.s" -o "$out/raw.o" 2>&1); then
	fail decoder "clang cannot assemble the cases: $(head -1 <<<"$o")"
else
	got=$("$KILN" disasm "$out/raw.o" 2>&1 | sed -n 's/^ *[0-9]*: //p' | sed 's/ <[^<>]*>$//')
	want=$(for c in "${cases[@]}"; do echo "${c#*|}"; done)
	if [ "$got" = "$want" ]; then pass decoder
	else fail decoder "$(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -6 | tr '\n' ' ')"; fi
fi

# ---- the corpus by kiln and by clang, against llvm-objdump and the source files -----------
objs=()
. "$ROOT/tests/harness/twin_obj.sh"
for lisp in "$ROOT"/tests/corpus/*.lisp "$ROOT"/examples/*.lisp; do
	name=$(basename "$(dirname "$lisp")")-$(basename "$lisp" .lisp)
	if o=$("$KILN" compile "$lisp" -o "$out/$name.kiln.o" 2>&1); then objs+=("$out/$name.kiln.o")
	else fail "compile-$name" "$(head -1 <<<"$o")"; fi
	c=${lisp%.lisp}.c
	[ -f "$c" ] || continue
	if o=$(twin_obj "$c" "$out/$name.clang.o"); then objs+=("$out/$name.clang.o")
	else fail "clang-$name" "$(head -1 <<<"$o")"; fi
done
# -O0 objects have other shapes (spills, no folding)
for lisp in "$ROOT"/tests/corpus/{arith,defun-calls,spill,loop-while,wh-bits}.lisp; do
	[ -f "$lisp" ] || continue
	name=O0-$(basename "$lisp" .lisp)
	"$KILN" compile -O0 "$lisp" -o "$out/$name.kiln.o" >/dev/null 2>&1 && objs+=("$out/$name.kiln.o")
done

# For each object: programs, instruction count and lines as llvm-objdump -d has them; the kind
# of every instruction (jump, call, exit, ld_imm64, memory, alu) at the same index, jump
# offsets and helper ids equal, other instructions the same text (llvm-objdump 14 says
# <unknown> for BPF_ST and 64-bit BPF_MOD by register: those are skipped); and every source
# line shown is the line of that number in its file.
KILN=$KILN ROOT=$ROOT python3 - "${objs[@]}" <<'EOF'
import json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

def kind(t):
    if t.startswith('<unknown>'): return None
    if 'goto' in t: return 'jump'
    if t.startswith('call'): return 'call'
    if t == 'exit': return 'exit'
    if t.endswith(' ll') or t.startswith('ld_pseudo'): return 'ld_imm64'   # llvm 14: ld_pseudo rD, SRC, IMM
    if re.search(r'\*\(|lock|xchg|atomic|skb\[', t): return 'memory'
    return 'alu'

lines_of = {}
def source_line(path, n):
    if not os.path.isabs(path): path = os.path.join(os.environ['ROOT'], path)
    if path not in lines_of:
        try:
            with open(path, encoding='utf-8', errors='replace') as f: lines_of[path] = f.read().split('\n')
        except OSError: lines_of[path] = None
    ls = lines_of[path]
    if ls is None: return None           # a file not here: nothing to compare
    if ls[-1] == '': ls = ls[:-1]
    return ls[n - 1].strip() if 0 < n <= len(ls) else False

def check(obj):
    run = lambda *a: subprocess.run(a, capture_output=True, text=True)
    od = run('llvm-objdump', '-d', '-t', obj)
    ds = run(os.environ['KILN'], 'disasm', '--json', obj)
    if od.returncode: return ['llvm-objdump: ' + od.stderr.strip()]
    if ds.returncode: return ['kiln disasm: ' + ds.stderr.strip()]
    funcs = set(); blocks = {}; cur = None
    for l in od.stdout.splitlines():
        m = re.match(r'^[0-9a-f]{16} (.{7}) \S+\t[0-9a-f]+ (.+)$', l)
        if m and m.group(1)[6] == 'F': funcs.add(m.group(2)); continue
        m = re.match(r'^[0-9a-f]+ <(.*)>:$', l)
        if m: cur = blocks.setdefault(m.group(1), []) if m.group(1) in funcs else cur; continue
        m = re.match(r'^\s*(\d+):\t([0-9a-f ]+)\t(.*)$', l)
        if m and cur is not None: cur.append((int(m.group(1)), m.group(3).strip(), len(m.group(2).split()) // 8))
    try: progs = [json.loads(l) for l in ds.stdout.splitlines()]
    except ValueError as e: return ['--json does not parse: %s' % e]
    bad = []
    if sorted(p['prog'] for p in progs) != sorted(blocks):
        bad.append('programs %s, llvm-objdump %s' % (sorted(p['prog'] for p in progs), sorted(blocks)))
    for p in progs:
        b = blocks.get(p['prog'])
        if not b: continue
        base = b[0][0]
        ll = {i - base: t for i, t, w in b}
        if len(b) != len(p['insns']): bad.append('%s: %d instructions, llvm-objdump %d' % (p['prog'], len(p['insns']), len(b)))
        if b[-1][0] + b[-1][2] - base != p['insn_count']:
            bad.append('%s: insn_count %d, llvm-objdump %d' % (p['prog'], p['insn_count'], b[-1][0] + b[-1][2] - base))
        for ins in p['insns']:
            o, t = ins['off'], ins['text']
            if 'line' in ins:
                want = source_line(ins['file'], ins['line'])
                if want is False:       # said once for all objects, below
                    past.append('%s: %s+%d names line %d, past the end of %s' % (os.path.basename(obj), p['prog'], o, ins['line'], ins['file']))
                elif want is not None and want != ins['src'].strip():
                    bad.append('%s+%d: line %d is %r, line info says %r' % (p['prog'], o, ins['line'], want, ins['src']))
                    break
            if o not in ll: bad.append('%s+%d: %r, llvm-objdump has nothing there' % (p['prog'], o, t)); continue
            lt = ll[o]; k = kind(t)
            if kind(lt) is None: continue
            same = k == kind(lt)
            if same and k == 'jump':
                a, c = re.search(r'goto ([+-]\d+)', t), re.search(r'goto ([+-]\d+)', lt)
                same = a and c and int(a.group(1)) == int(c.group(1))
            elif same and k == 'call' and re.search(r'#\d+$', t):
                same = lt == 'call ' + t.rsplit('#', 1)[1]
            elif same and k == 'ld_imm64' and lt.startswith('ld_pseudo'):
                same = t.split(' ')[0] == lt.split()[1].rstrip(',')     # the same register
            elif same and k in ('alu', 'memory') and not re.search('atomic|xchg', t + lt):
                same = t == lt
            if not same: bad.append('%s+%d: %r, llvm-objdump %r' % (p['prog'], o, t, lt))
    return bad

objs, past = sys.argv[1:], []
with ThreadPoolExecutor(4) as ex:
    for obj, bad in zip(objs, ex.map(check, objs)):
        name = os.path.basename(obj)[:-2]
        print('PASS disasm/%s' % name if not bad else 'FAIL disasm/%s: %s' % (name, bad[0]))
        for b in bad[1:6]: print('    ' + b)
# A line number past the end of the file the line info names: the line came from another
# file (the prelude's macros?) but is filed under this one.
firsts = {}
for x in past: firsts.setdefault(x.split(':')[0], x)
if firsts:
    print('FAIL disasm/lines-in-their-file: %d objects name lines past the end of their source' % len(firsts))
    for x in list(firsts.values())[:8]: print('    ' + x)
else:
    print('PASS disasm/lines-in-their-file')
EOF

# ---- a clang object built with -g shows its C source lines -------------------------------
o=$("$KILN" disasm "$out/corpus-xdp-count.clang.o" 2>&1)
n=$(grep -c '^; .* @ xdp-count\.c:[0-9]*$' <<<"$o")
if [ "$n" -gt 3 ] && grep -q 'bpf_map_lookup_elem(' <<<"$(grep '^; ' <<<"$o")"; then pass clang-source-lines
else fail clang-source-lines "$n C source lines in: $(head -5 <<<"$o" | tr '\n' ' ')"; fi
if "$KILN" disasm --json "$out/corpus-xdp-count.clang.o" | json_ok; then pass clang-json
else fail clang-json "--json output does not parse"; fi

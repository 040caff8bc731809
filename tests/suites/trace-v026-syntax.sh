#!/usr/bin/env bash
# trace-v026-syntax.sh — bpftrace 0.26's grammar under `kiln trace`, each form compiled,
# loaded and run: `if` without parentheses, lower-case begin/end, interval:1s and
# interval:100ms, duration literals (1s, 100ms, 5us, 2ns in nanoseconds), args.FIELD and `.`
# through a kernel struct pointer, `let` declarations (typed, untyped, zero-valued) and the
# block scope of $variables, against `--dialect 0.17`'s probe-wide one. The expected output
# is the language's documented meaning (docs/trace.md); the triggers are BEGIN/END, timers
# and a command's own openat.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-v026-syntax
. "${ROOT:-$PWD}/tests/harness/report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The program's own lines: without the banner and blank lines.
run() { timeout 30 "$KILN" trace "$@" 2>&1 | grep -v '^Attaching\|^$'; }

# ---- 1: if without parentheses, begin/end, intervals, durations ---------------------------
got=$(run -e 'begin { $x = 5; if $x > 3 && $x < 9 { printf("yes\n"); } else { printf("no\n"); } exit(); }')
check if-bare "yes" "$got"
# a parenthesized condition is still a condition (0.17's form)
got=$(run -e 'begin { $y = 2; if ($y == 2) { printf("p\n"); } else if $y == 3 { printf("q\n"); } exit(); }')
check if-parens-else-if "p" "$got"
got=$(run -e 'begin { printf("b\n"); exit(); } end { printf("e\n"); }')
check begin-end-lower "b
e" "$got"
got=$(run -e 'begin { printf("%lu %lu %lu %lu %lu %lu %lu\n", 1s, 100ms, 5us, 2ns, 2m, 1h, 1d); exit(); }')
check durations "1000000000 100000000 5000 2 120000000000 3600000000000 86400000000000" "$got"
got=$(run -e 'begin { @t = 1_000 + 1e3; printf("%d\n", @t); clear(@t); exit(); }')
check plain-integers-unchanged "2000" "$got"
# interval:100ms fires about ten times a second: three firings well inside the 30 s limit,
# each a timestamp; the gaps are checked against the period
got=$(run -e 'begin { @s = nsecs; } interval:100ms { @n++; if @n == 3 { printf("%d\n", (nsecs - @s) / 1000000); exit(); } }
	end { clear(@s); clear(@n); }')
if [[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -ge 280 ] && [ "$got" -lt 3000 ]; then pass interval-100ms
else fail interval-100ms "3 firings took '$got' ms (want 300 ms or a little more)"; fi
got=$(run -e 'begin { @s = nsecs; } interval:1s { printf("%d\n", (nsecs - @s) / 100000000); exit(); } end { clear(@s); }')
if [[ "$got" =~ ^[0-9]+$ ]] && [ "$got" -ge 9 ] && [ "$got" -lt 30 ]; then pass interval-1s
else fail interval-1s "the first firing after '$got' tenths of a second (want 10)"; fi
got=$(run -e 'interval:200000000 { printf("ns\n"); exit(); }')
check interval-nanoseconds "ns" "$got"
got=$(run -e 'interval:1x { exit(); }' | head -1)
if grep -q 'interval:1x: expected PROVIDER:UNIT:COUNT' <<<"$got"; then pass interval-bad-unit
else fail interval-bad-unit "want the unit error, got '$got'"; fi
got=$(run -e 'begin { printf("%d\n", 5xs); }' | head -1)
if grep -q 'invalid integer' <<<"$got"; then pass bad-suffix
else fail bad-suffix "want an invalid integer, got '$got'"; fi

# ---- 2: args.FIELD, `.` through pointers ---------------------------------------------------
got=$(run -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s\n", str(args.filename)); exit(); }' \
	-c "cat /etc/hostname" | grep -m1 '^/')
# the first file the command opens (the loader's cache or a library) is a path
if [[ "$got" == /* ]]; then pass args-dot-field
else fail args-dot-field "want an opened path, got '$got'"; fi
got=$(run -e 'begin { $t = curtask; printf("%d %d %d\n", $t.pid == pid, curtask.tgid == pid, $t.real_parent.tgid > 0); exit(); }')
check dot-through-pointer "1 1 1" "$got"
got=$(run -e 'begin { $t = curtask; printf("%d\n", $t.pid == $t->pid); exit(); }')
check dot-is-arrow "1" "$got"

# ---- 3: let and scopes ---------------------------------------------------------------------
cat > "$tmp/let.bt" <<'BT'
begin {
  let $a = 1;
  let $b;
  let $c: uint8 = 300;
  let $d: int32;
  let $s;
  if $a == 1 { $b = 7; $s = "hello"; let $in = 5; $a = $in - 3; }
  printf("%d %d %d %d %s\n", $a, $b, $c, $d, $s);
  exit();
}
BT
got=$(run "$tmp/let.bt")
check let-forms "2 7 44 0 hello" "$got"
# a variable of a block is gone after it: the next block's $x is another one, of another type
prog='begin { if (1) { $x = 1; printf("%d\n", $x); } if (1) { $x = "two"; printf("%s\n", $x); } exit(); }'
got=$(run -e "$prog")
check block-scope "1
two" "$got"
got=$(run --dialect 0.17 -e "${prog/begin/BEGIN}" | head -1)
if grep -q 'type mismatch for \$x' <<<"$got"; then pass block-scope-dialect-017
else fail block-scope-dialect-017 "0.17's \$x is one for the probe: want a type mismatch, got '$got'"; fi
# a loop's body is a block: its let is a fresh 0 each time round
got=$(run -e 'begin { $i = 0; while ($i < 3) { let $z; $z += $i; $i++; printf("%d ", $z); } printf("\n"); exit(); }')
check let-in-loop "0 1 2 " "$got"
# read after its block (0.17's scripts do): the probe keeps 0.17's meaning, so they run unchanged
got=$(run -e 'begin { if (1) { $v = 3; } else { $v = 4; } printf("%d\n", $v); exit(); }')
check read-after-block "3" "$got"
got=$(run -e 'begin { let $q = 1; let $q = 2; exit(); }' | head -1)
if grep -q 'variable \$q is already declared' <<<"$got"; then pass let-twice
else fail let-twice "want already declared, got '$got'"; fi
got=$(run -e 'begin { let q = 1; }' | head -1)
if grep -q 'expected a \$variable after let' <<<"$got"; then pass let-needs-var
else fail let-needs-var "got '$got'"; fi

# ---- 6: config = { ... } --------------------------------------------------------------------
# max_strlen cuts the command's first opened path at 7 bytes; the environment wins over it
cat > "$tmp/config.bt" <<'BT'
config = {
  max_strlen = 8;
  missing_probes = error;
  BPFTRACE_MAX_MAP_KEYS = 64
}
tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("%s|\n", str(args.filename)); exit(); }
BT
got=$(run "$tmp/config.bt" -c "cat /etc/hostname" | grep -m1 '|$')
if [ ${#got} -eq 8 ] && [[ "$got" == /* ]]; then pass config-max-strlen
else fail config-max-strlen "want 7 bytes of a path and '|', got '$got'"; fi
got=$(BPFTRACE_STRLEN=12 run "$tmp/config.bt" -c "cat /etc/hostname" | grep -m1 '|$')
if [ ${#got} -eq 12 ]; then pass config-env-wins
else fail config-env-wins "want 11 bytes and '|', got '$got'"; fi
got=$(run -e 'config = { max_map_keys = 2 } begin { @a[1] = 1; @a[2] = 2; @a[3] = 3; exit(); }' | grep -c '^@a')
check config-max-map-keys "2" "$got"
got=$(run -e 'config = { no_such_key = 1 } begin { exit(); }' | head -1)
if grep -q 'stdin:1:12: error: unrecognized config variable: no_such_key' <<<"$got"; then pass config-unknown-key
else fail config-unknown-key "got '$got'"; fi
got=$(run -e 'config = { max_strlen = many } begin { exit(); }' | head -1)
if grep -q 'config max_strlen: expected a non-negative integer' <<<"$got"; then pass config-bad-value
else fail config-bad-value "got '$got'"; fi

# ---- 7: map declarations --------------------------------------------------------------------
# hash(2) holds two keys (a third update fails); lruhash(2) makes room for the newest
got=$(run -e 'let @h = hash(2); let @l = lruhash(2);
	begin { @h[1] = 1; @h[2] = 2; @h[3] = 3; @l[1] = 1; @l[2] = 2; @l[3] = 3; exit(); }')
if [ "$(grep -c '^@h\[[12]\]' <<<"$got")" = 2 ] && ! grep -q '^@h\[3\]' <<<"$got" &&
   [ "$(grep -c '^@l' <<<"$got")" -le 2 ] && grep -q '^@l\[3\]: 3' <<<"$got"; then pass map-decl-hash-lru
else fail map-decl-hash-lru "got: $(tr '\n' ' ' <<<"$got")"; fi
got=$(run -e 'let @p = percpuhash(8); begin { @p[1] = 1; exit(); }' | head -1)
if grep -q 'the map type percpuhash is not supported yet by kiln trace' <<<"$got"; then pass map-decl-percpu-refused
else fail map-decl-percpu-refused "got '$got'"; fi
got=$(run -e 'let @q = tree(8); begin { @q[1] = 1; exit(); }' | head -1)
if grep -q 'invalid map type: tree' <<<"$got"; then pass map-decl-bad-type
else fail map-decl-bad-type "got '$got'"; fi

# ---- 4: for over a range --------------------------------------------------------------------
got=$(run -e 'begin { for ($i : 0..6) { if $i == 1 { continue; } if ($i == 4) { break; } printf("%d ", $i); } printf("\n"); exit(); }')
check for-range-break-continue "0 2 3 " "$got"
# a computed end, read once: the body lowering $n does not shorten the loop
got=$(run -e 'begin { $n = 4; for $j : 1..$n + 1 { printf("%d ", $j); $n--; } printf("%d\n", $n); exit(); }')
check for-range-computed "1 2 3 4 0" "$got"
# 100,000 rounds: kiln's compiler makes the loop a bpf_loop callback; the sum is exact
got=$(run -e 'begin { let $s = 0; for ($i : 0..100000) { $s = $s + $i; } printf("%lu\n", $s); exit(); }')
check for-range-large "4999950000" "$got"
# the loop's variable is its body's: after it, $i is another variable
got=$(run -e 'begin { for ($i : 0..2) { printf("%d ", $i); } $i = "after"; printf("%s\n", $i); exit(); }')
check for-variable-scope "0 1 after" "$got"
got=$(run -e 'begin { @m[1] = 2; for ($kv : @m) { printf("%d\n", $kv.0); } exit(); }' | head -1)
if grep -q "for over a map's entries is not supported yet by kiln trace" <<<"$got"; then pass for-map-refused
else fail for-map-refused "got '$got'"; fi

# ---- 5: macros ------------------------------------------------------------------------------
cat > "$tmp/macro.bt" <<'BT'
macro one() { 1 }
macro add_one(x) { x + 1 }
macro bump($a, @b) { $a += 1; @b += 1; }
macro twice(x) { add_one(add_one(x)) - 1 }
macro show(v) { $t = v * 10; printf("show %d\n", $t); }
begin {
  $t = 5;
  printf("%d %d %d\n", one(), one, add_one(one));
  $a = 10; @b = 5;
  bump($a, @b);
  printf("%d %d %d\n", $a, @b, twice(3));
  show($a);
  printf("t still %d\n", $t);
  clear(@b);
  exit();
}
BT
got=$(run "$tmp/macro.bt")
# show's $t is its own: the probe's $t keeps 5
check macros "1 1 2
11 6 4
show 110
t still 5" "$got"
refused() {   # name, program, the error's words
	local got
	got=$(run -e "$2" | head -1)
	if grep -qF "$3" <<<"$got"; then pass "$1"; else fail "$1" "want '$3', got '$got'"; fi
}
refused macro-recursion 'macro r(x) { r(x) + 1 } begin { printf("%d\n", r(1)); }' 'macros expand within macros at most 16 deep'
refused macro-unhygienic 'macro u() { @x++; } begin { u(); }' 'macro u: @x is not one of its parameters'
refused macro-var-param 'macro v($a) { $a++; } begin { v(1); }' 'macro v: argument 1 must be a $variable'
refused macro-arg-count 'macro d(a, b) { a } begin { printf("%d\n", d(1)); }' 'macro d takes 2 arguments, not 1'
# a macro calling two copies of the next, 30 deep, would be 2^30 nodes: refused promptly
prog=$(python3 -c "
print('macro m0(x) { x }')
for i in range(1, 31): print('macro m%d(x) { m%d(x) + m%d(x) }' % (i, i - 1, i - 1))
print('begin { printf(\"%d\\\\n\", m30(1)); }')")
start=$(date +%s)
refused macro-blowup "$prog" 'macros expand within macros at most 16 deep'
[ $(( $(date +%s) - start )) -lt 10 ] && pass macro-blowup-prompt || fail macro-blowup-prompt "took over 10 s"
# four copies a level, 12 levels: 16 million nodes, refused at a million
prog=$(python3 -c "
print('macro m0(x) { x }')
for i in range(1, 13): print('macro m%d(x) { m%d(x) + m%d(x) + m%d(x) + m%d(x) }' % (i, i - 1, i - 1, i - 1, i - 1))
print('begin { printf(\"%d\\\\n\", m12(1)); }')")
refused macro-nodes "$prog" 'macros expand to too much: kiln trace takes at most 1000000 nodes'

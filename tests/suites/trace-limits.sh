#!/usr/bin/env bash
# trace-limits.sh — kiln trace's limits (docs/trace.md, src/trace/limits.h): input past them is
# refused with an error at the script's FILE:LINE:COL, its line and a caret, status 1 (never a
# signal, never "a kiln trace bug"), and promptly: deep nesting of every kind, an #include of
# a device or a FIFO, a uprobe on a FIFO, huge strings, printf arguments, maps and probes.
# What fits the limits works: 65 $variables and a 100-term sum run and print their values.
# The time bounds are generous for a loaded machine; the quadratic paths these replaced took
# over 60 s.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SUITE=trace-limits
. "${ROOT:-$PWD}/tests/harness/report.sh"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# refused NAME FILE SECONDS WANT: `kiln trace --dry-run FILE` exits 1 within SECONDS with
# "FILE:LINE:COL: error: WANT..." first, then the source line and a caret; LINE:COL is
# checked when WANT_AT (LINE:COL:) is set
refused() {
	local name=$1 src=$2 secs=$3 want=$4 t0 err rc ms
	t0=$(now_ms)
	err=$(timeout "$secs" "$KILN" trace --dry-run "$src" 2>&1 >/dev/null); rc=$?
	ms=$(($(now_ms) - t0))
	local first; first=$(head -1 <<<"$err")
	if [ $rc -eq 124 ]; then fail "$name" "no answer within $secs s"
	elif [ $rc -ne 1 ]; then fail "$name" "status $rc: $(head -c 300 <<<"$err")"
	elif { [ -n "${WANT_AT:-}" ] && [[ $first != "$src:$WANT_AT error: $want"* ]]; } ||
	     { [ -z "${WANT_AT:-}" ] && [[ $first != "$src:"*": error: $want"* ]]; }; then
		fail "$name" "want '$src:${WANT_AT:-L:C:} error: $want...', got '$(head -c 300 <<<"$first")'"
	elif [[ $(sed -n 3p <<<"$err") != *^ ]]; then fail "$name" "no caret line: $(sed -n 2,3p <<<"$err" | head -c 300)"
	else pass "$name (${ms} ms)"; fi
	WANT_AT=
}

# ---- nesting: every recursive construct, 3,000 deep ------------------------------------------
py() { python3 -c "$1" >"$2"; }
N=3000
py "print('BEGIN { \$x = ' + '('*$N + '1' + ')'*$N + '; }')" "$tmp/parens.bt"
py "print('BEGIN { \$x = ' + '(uint8)'*$N + '1; }')" "$tmp/cast.bt"
py "print('BEGIN { \$x = ' + '-~'*$N + 'pid; }')" "$tmp/unary.bt"
py "print('BEGIN { \$x = ' + '!'*$N + 'pid; }')" "$tmp/not.bt"
py "print('BEGIN { \$x = ' + '1 ? '*$N + '1' + ' : 2'*$N + '; }')" "$tmp/ternary.bt"
py "print('BEGIN { \$x = ' + '(1,'*$N + '2' + ')'*$N + '; }')" "$tmp/tuple.bt"
py "print('kprobe:do_nanosleep { \$x = ' + '*'*$N + 'arg0; }')" "$tmp/deref.bt"
py "print('BEGIN { ' + 'if (1) { '*$N + '\$x = 1;' + ' }'*$N + ' }')" "$tmp/if.bt"
py "print('BEGIN { ' + 'if (pid) { \$x = 1; } else '*$N + '{ \$x = 2; } }')" "$tmp/else-if.bt"
py "print('BEGIN { ' + 'while (1) { '*$N + 'break;' + ' }'*$N + ' }')" "$tmp/while.bt"
py "print('BEGIN { @m[' + '@m['*$N + '1' + ']'*$N + '] = 1; }')" "$tmp/map-key.bt"
py "print('BEGIN { \$x = ' + 'sizeof('*$N + '1' + ')'*$N + '; }')" "$tmp/sizeof.bt"
py "print('BEGIN { \$x = ' + '+'.join(['1']*5000) + '; }')" "$tmp/sum-5000.bt"
py "print('BEGIN { \$x = ' + '+'.join(['pid']*2000) + '; printf(\"%d\\\\n\", \$x); }')" "$tmp/sum-2000.bt"
for k in parens cast unary not ternary tuple deref if else-if while map-key sizeof sum-5000 sum-2000; do
	refused "deep-$k" "$tmp/$k.bt" 10 "nested too deeply: kiln trace takes at most 128 levels of nesting"
done
WANT_AT=1:141: refused deep-parens-at "$tmp/parens.bt" 10 "nested too deeply"

# ---- what fits runs: a 100-term sum (height 99), 65 integer $variables ------------------------
py "print('BEGIN { \$x = ' + '+'.join(str(i) for i in range(1, 101)) + '; printf(\"sum %d\\\\n\", \$x); exit(); }')" "$tmp/sum-100.bt"
check sum-100-runs "sum 5050" "$(timeout 30 "$KILN" trace "$tmp/sum-100.bt" 2>&1 | grep '^sum')"
py "print('BEGIN { ' + ' '.join('\$v%d = %d;' % (i, i * 3) for i in range(65)) + ' printf(\"vars %d %d %d\\\\n\", \$v0, \$v33, \$v64); exit(); }')" "$tmp/vars-65.bt"
check vars-65-run "vars 0 99 192" "$(timeout 30 "$KILN" trace "$tmp/vars-65.bt" 2>&1 | grep '^vars')"
py "print('BEGIN { ' + ' '.join('\$v%d = pid + %d;' % (i, i) for i in range(256)) + ' printf(\"vars %d\\\\n\", \$v255 - \$v0); exit(); }')" "$tmp/vars-256.bt"
check vars-256-run "vars 255" "$(timeout 30 "$KILN" trace "$tmp/vars-256.bt" 2>&1 | grep '^vars')"
py "print('BEGIN { ' + ' '.join('\$v%d = %d;' % (i, i) for i in range(100000)) + ' }')" "$tmp/vars-100000.bt"
WANT_AT=1:3117: refused vars-100000 "$tmp/vars-100000.bt" 10 "too many \$variables: kiln trace takes at most 256 in a probe"
# 65 string $variables need more than BPF's 512-byte stack: refused at the probe
py "print('BEGIN { ' + ' '.join('\$v%d = \"s%d\";' % (i, i) for i in range(65)) + ' printf(\"%s\\\\n\", \$v64); }')" "$tmp/strvars-65.bt"
WANT_AT=1:1: refused strvars-65-stack "$tmp/strvars-65.bt" 30 "this probe needs 5"

# ---- includes: confined to the include directories, regular files only ------------------------
printf '#include <../../../dev/zero>\nBEGIN { exit(); }\n' >"$tmp/inc-zero.bt"
WANT_AT=1:1: refused include-dev-zero "$tmp/inc-zero.bt" 10 "<../../../dev/zero>: refused: a header is named relative to the include directories, without '..'"
mkfifo "$tmp/fifo"
printf '#include <../../../%s/fifo>\nBEGIN { exit(); }\n' "${tmp#/}" >"$tmp/inc-fifo.bt"
WANT_AT=1:1: refused include-fifo "$tmp/inc-fifo.bt" 10 "<../../..$tmp/fifo>: refused"
printf '#include <%s/fifo>\nBEGIN { exit(); }\n' "$tmp" >"$tmp/inc-abs.bt"
WANT_AT=1:1: refused include-absolute "$tmp/inc-abs.bt" 10 "<$tmp/fifo>: refused"
err=$(timeout 10 "$KILN" trace --dry-run --include "../../../dev/zero" -e 'BEGIN { exit(); }' 2>&1); rc=$?
check include-option-dev-zero "1 kiln trace: --include ../../../dev/zero: <../../../dev/zero>: refused: a header is named relative to the include directories, without '..'" "$rc $err"
printf 'uprobe:%s/fifo:main { exit(); }\n' "$tmp" >"$tmp/uprobe-fifo.bt"
WANT_AT=1:1: refused uprobe-fifo "$tmp/uprobe-fifo.bt" 10 "uprobe:$tmp/fifo:main: $tmp/fifo: not a regular file"
printf '#include <sys/socket.h>\nBEGIN { printf("af %%d\\n", AF_INET); exit(); }\n' >"$tmp/inc-ok.bt"
check include-header-works "af 2" "$(timeout 30 "$KILN" trace "$tmp/inc-ok.bt" 2>&1 | grep '^af')"

# ---- sizes: strings, printf's arguments, maps, probes ---------------------------------------
py "print('BEGIN { printf(\"%s\\\\n\", \"' + 'a' * (10 << 20) + '\"); }')" "$tmp/str-10m.bt"
WANT_AT=1:24: refused string-10mb "$tmp/str-10m.bt" 10 "string too long: kiln trace takes at most 4096 bytes in a string literal"
py "print('BEGIN { printf(\"' + '%s' * 10000 + '\\\\n\", ' + ', '.join(['comm'] * 10000) + '); }')" "$tmp/fmt-10000.bt"
refused printf-10000-s "$tmp/fmt-10000.bt" 10 "string too long"
py "print('BEGIN { printf(\"' + '%d' * 65 + '\\\\n\", ' + ', '.join(['pid'] * 65) + '); }')" "$tmp/fmt-65.bt"
WANT_AT=1:$((17 + 130 + 5 + 64 * 5)): refused printf-65-args "$tmp/fmt-65.bt" 10 "printf: too many arguments: kiln trace takes at most 64"
py "print('BEGIN { printf(\"' + '%s' * 64 + '\\\\n\", ' + ', '.join(['comm'] * 64) + '); exit(); }')" "$tmp/fmt-64.bt"
timeout 60 "$KILN" trace --dry-run "$tmp/fmt-64.bt" >/dev/null 2>"$tmp/fmt-64.err"
check printf-64-args-compile "0" "$?$(head -c 200 "$tmp/fmt-64.err")"

py "print('BEGIN { ' + ' '.join('@m%d = 1;' % i for i in range(100000)) + ' exit(); }')" "$tmp/maps.bt"
WANT_AT=1:$((8 + 10 * 9 + 90 * 10 + 900 * 11 + 24 * 12 + 1)): refused maps-100000 "$tmp/maps.bt" 10 "too many maps: kiln trace takes at most 1024 in a script"
py "print('BEGIN { ' + ' '.join('@m%d = %d;' % (i, i) for i in range(1024)) + ' printf(\"m %d\\\\n\", 7); exit(); }')" "$tmp/maps-1024.bt"
timeout 60 "$KILN" trace --dry-run "$tmp/maps-1024.bt" >/dev/null 2>"$tmp/maps-1024.err"
check maps-1024-compile "0" "$?$(head -c 200 "$tmp/maps-1024.err")"

# maps typed through chains (@m0 = @m1; @m1 = @m2; ...): each pass learns one more, so the
# passes are bounded (16) and so are the maps before them (a chain of 100,000 was quadratic)
chain() { py "print('BEGIN { ' + ' '.join('@m%d = @m%d;' % (i, i + 1) for i in range($1 - 1)) + ' @m%d = 1; exit(); }' % ($1 - 1))" "$tmp/chain-$1.bt"; }
chain 15; chain 1024; chain 100000
timeout 60 "$KILN" trace --dry-run "$tmp/chain-15.bt" >/dev/null 2>"$tmp/chain-15.err"
check map-chain-15-compiles "0" "$?$(head -c 200 "$tmp/chain-15.err")"
WANT_AT=1:15: refused map-chain-1024 "$tmp/chain-1024.bt" 10 "@m1 is not typed after 16 passes over the script"
refused map-chain-100000 "$tmp/chain-100000.bt" 10 "too many maps: kiln trace takes at most 1024 in a script"

py "print(''.join('BEGIN { @x = %d; }\n' % i for i in range(1000000)))" "$tmp/probes.bt"
t0=$(now_ms)
err=$(timeout 30 "$KILN" trace --dry-run "$tmp/probes.bt" 2>&1); rc=$?
ms=$(($(now_ms) - t0))
if [ $rc -eq 1 ] && [ "$(head -1 <<<"$err")" = "ERROR: Your program is trying to generate more than 1000000 BPF programs, which exceeds the current limit of 512." ]; then
	pass "probes-1000000 (${ms} ms)"
else fail probes-1000000 "status $rc after $ms ms: $(head -c 300 <<<"$err")"; fi

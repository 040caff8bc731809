#!/usr/bin/env bash
# trace-options.sh — `kiln trace` beside bpftrace 0.17 on what bpftrace's runtime tests write:
# uprobes on relative paths (uprobe:./bin/x:f, uretprobe:../d/bin/x:f, uprobe:bin/x:f), with and
# without a predicate after them (src/trace/lexer.c), fired by a program built here; -q (no
# `Attaching N probes...`, text and JSON), the flags together (-kk -q, -ve 'PROGRAM'), and -k/-kk
# accepted (src/cli/trace.c). Each case runs both tracers and
# compares what each prints. SKIP without bpftrace or a C compiler.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
case $KILN in /*) ;; *) KILN=$PWD/$KILN ;; esac
SUITE=trace-options
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/bpftrace_bin.sh"
CC=${CC:-cc}
if ! type -P "$CC" >/dev/null; then echo "SKIP $SUITE/suite: no C compiler ($CC)"; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/d/bin" "$tmp/d/sub"
cat >"$tmp/prog.c" <<'EOF'
__attribute__((noinline)) int kiln_opt_fn(int x) { __asm__ volatile("" ::: "memory"); return x + 1; }
int main(void) { return kiln_opt_fn(41) == 42 ? 0 : 1; }
EOF
if ! "$CC" -O1 -o "$tmp/d/bin/prog" "$tmp/prog.c" 2>"$tmp/cc.err"; then
	echo "SKIP $SUITE/suite: $CC cannot build a test program: $(head -c 300 "$tmp/cc.err")"; exit 0
fi

both_run() {   # name dir args...: both tracers' output, run in dir (30 s at most): $bt, $kt
	local name=$1 dir=$2; shift 2
	bt=$(cd "$dir" && timeout 30 "$BPFTRACE" "$@" 2>"$tmp/$name.bt.err")
	kt=$(cd "$dir" && timeout 30 "$KILN" trace --dialect 0.17 "$@" 2>"$tmp/$name.kt.err")
}
same() {   # name dir want-pattern args...: both print the same, and it has want-pattern
	local name=$1 dir=$2 want=$3; shift 3
	both_run "$name" "$dir" "$@"
	if ! grep -qE -- "$want" <<<"$bt"; then
		fail "$name" "bpftrace 0.17 printed no /$want/ (so the case is wrong): $(head -c 300 <<<"$bt") $(head -c 300 "$tmp/$name.bt.err")"
	elif [ "$bt" != "$kt" ]; then
		fail "$name" "bpftrace printed '$(head -c 300 <<<"$bt")', kiln '$(head -c 300 <<<"$kt")' $(head -c 300 "$tmp/$name.kt.err")"
	else pass "$name"; fi
}

# ---- relative uprobe paths: an attach point, not a predicate --------------------------------
same uprobe-dot "$tmp/d" '^hit 41$' -c ./bin/prog \
	-e 'uprobe:./bin/prog:kiln_opt_fn { printf("hit %d\n", arg0); exit(); }'
same uprobe-dot-pred "$tmp/d" '^hit 41$' -c ./bin/prog \
	-e 'uprobe:./bin/prog:kiln_opt_fn /pid == cpid/ { printf("hit %d\n", arg0); exit(); }'
same uretprobe-dotdot "$tmp/d/sub" '^ret 42$' -c ../bin/prog \
	-e 'uretprobe:../bin/prog:kiln_opt_fn /retval == 42/ { printf("ret %d\n", retval); exit(); }'
same uprobe-bare-rel "$tmp/d" '^hit 41$' -c ./bin/prog \
	-e 'uprobe:bin/prog:kiln_opt_fn { printf("hit %d\n", arg0); exit(); }'
# a predicate right after a kernel attach point is still one
same predicate-after-name "$tmp" '^b 1$' -e 'BEGIN/1/{ printf("b %d\n", 1); exit(); }'

# ---- -q, the flags together, -k/-kk ---------------------------------------------------------
same quiet "$tmp" '^x$' -q -e 'BEGIN { printf("x\n"); exit(); }'
same quiet-json "$tmp" '^\{"type": "map"' -q -f json -e 'BEGIN { @scalar = 5; exit(); }'
same not-quiet "$tmp" '^Attaching 1 probe' -e 'BEGIN { printf("x\n"); exit(); }'
# -v: bpftrace adds program ids and verifier logs kiln does not have; the rest is the same
both_run ve-bundle "$tmp" -ve 'BEGIN { printf("v%d\n", $1); exit() }' 7
bt=$(grep -E '^(Attaching|v7$)' <<<"$bt"); kt=$(grep -vE '^(Program ID|The verifier log|processed |$)' <<<"$kt")
check ve-bundle "$bt" "$kt"
same kk-quiet "$tmp" '^y$' -kk -q -e 'BEGIN { printf("y\n"); exit(); }'
# (-k/-kk's reports themselves: tests/suites/trace-v017b.sh)

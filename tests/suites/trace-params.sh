#!/usr/bin/env bash
# trace-params.sh — `kiln trace`'s positional parameters ($1.., $#; src/trace/sema.c posparam,
# str_param) against bpftrace 0.17 on the same one-liners and arguments: a missing one is 0 as
# a number and "" in str() and in an attach point; str($N) is the argument's text (a number's
# too), str($N + k) from byte k, cut at str()'s length or BPFTRACE_STRLEN; a text used as a
# number, str($#), an offset past the end and $0 are refused with bpftrace's message. Each
# case runs both tracers; SKIP without bpftrace.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-params
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/bpftrace_bin.sh"

same() {   # name, program, args...: kiln prints what bpftrace prints (status 0 both)
	local k b krc brc
	k=$(timeout 20 "$KILN" trace --dialect 0.17 -e "$2" "${@:3}" 2>&1); krc=$?
	b=$(timeout 20 "$BPFTRACE" -e "$2" "${@:3}" 2>/dev/null); brc=$?
	if [ "$brc" -ne 0 ] || [ -z "$b" ]; then
		fail "$1" "bpftrace 0.17 failed (status $brc): $b"
	else
		check "$1" "0 $b" "$krc $k"
	fi
}
refused() {   # name, program, args...: both refuse it; kiln's message is bpftrace's first one
	local k b
	k=$(timeout 20 "$KILN" trace --dialect 0.17 -e "$2" "${@:3}" 2>&1 | sed -n '1s/^stdin:[0-9]*:[0-9]*: error: //p')
	b=$(timeout 20 "$BPFTRACE" -e "$2" "${@:3}" 2>&1 | grep -v RLIMIT | grep -m1 'ERROR: ' | sed 's/.*ERROR: //')
	if [ -z "$b" ]; then fail "$1" "bpftrace 0.17 printed no error"
	else check "$1" "$b" "$k"; fi
}

same missing-int 'BEGIN { printf("-%d-\n", $1); exit() }'
same missing-int-arith 'BEGIN { printf("%d %d\n", $2 + 5, $#); exit() }' 7
same missing-str 'BEGIN { printf("-%s-\n", str($1)); exit() }'
same number-str 'BEGIN { printf("-%s- %d\n", str($1), $1 * 2); exit() }' 21
same text-str 'BEGIN { printf("-%s-\n", str($1)); exit() }' hello
same bases 'BEGIN { printf("got: %d %o 0x%x %d\n", $1, $2, $3, $#); exit() }' 123 0775 0x123
same str-offset 'BEGIN { printf("-%s-%s-%s-%s-\n", str($1 + 1), str(2 + $1), str($1 + 5), str($1, 3)); exit() }' hello
same str-offset-len 'BEGIN { printf("-%s-\n", str(1 + $1, 2)); exit() }' hello
same str-strlen 'BEGIN { printf("-%s-\n", str($1)); exit() }' "$(printf 'a%.0s' $(seq 100))"
same str-compare 'BEGIN { $x = str($1); if ($x == str($2)) { printf("eq %s\n", $x); } if (str($1) != str($3)) { printf("ne\n"); } exit() }' hello hello hell
same str-strncmp 'BEGIN { if (strncmp(str($1), str($2), 4) == 0) { printf("I got %s\n", str($1)); } exit() }' hhvm hhvm-proc
same str-key 'BEGIN { @[str($1)] = count(); @[str($1)] = count(); @[str($2)] = count(); exit() }' one two
same kaddr-str 'BEGIN { @ = kaddr(str($1)) == kaddr("vfs_read"); exit() }' vfs_read
same attach-missing 'BEGIN$1 { printf("hi\n"); exit() }'
same attach-given 'BEG$1 { printf("%s\n", probe); exit() }' IN
refused text-as-int 'BEGIN { printf("-%d-\n", $1); exit() }' hello
refused empty-as-int 'BEGIN { $x = $1; exit() }' ""
refused huge-as-int 'BEGIN { @ = $1; exit() }' 99999999999999999999
refused text-in-%s 'BEGIN { printf("-%s-\n", $1); exit() }' hello
refused str-count 'BEGIN { printf("%s\n", str($#)); exit() }' a
refused str-past-end 'BEGIN { printf("%s\n", str($1 + 6)); exit() }' hello
refused str-minus 'BEGIN { printf("%s\n", str($1 - 1)); exit() }' hello
refused dollar-zero 'BEGIN { printf("%d\n", $0); exit() }'
# `--` ends the options: what follows are parameters even when they start with '-'
same dashdash 'BEGIN { printf("%d %s %d\n", $1, str($2), $#); exit() }' -- -5 -x
refused str-expr 'BEGIN { printf("%s\n", str($1 + 1 + 1)); exit() }' hello
refused str-nonconst 'BEGIN { printf("%s\n", str(nsecs + $1)); exit() }' 3

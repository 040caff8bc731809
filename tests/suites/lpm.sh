#!/usr/bin/env bash
# lpm.sh — lpm-trie keys typed as ADDRESS/PREFIXLEN on the command line: `kiln map set` of
# 10.0.0.0/8 into tests/corpus/lpm-route.lisp's routes (8-byte keys) is found by bpftool's
# longest-prefix lookup of 10.1.2.3/32, a /24 inside it wins for its own addresses, get and
# delete take the same spelling, and a bad prefix or an IPv6 address in 8-byte keys is an error.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
pin=/sys/fs/bpf/kiln-lpm-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null' EXIT
pass() { echo "PASS lpm/$1"; }
fail() { echo "FAIL lpm/$1: $2"; }

if ! out=$("$KILN" load tests/corpus/lpm-route.lisp --pin "$pin" 2>&1); then
	fail load "$out"
	exit 0
fi
r=$pin/maps/routes
"$KILN" map set "$r" 10.0.0.0/8 7 && "$KILN" map set "$r" 10.1.2.0/24 9 || fail set "$("$KILN" map set "$r" 10.0.0.0/8 7 2>&1)"
# bpftool's lookup is the kernel's longest-prefix match: key = prefix length (LE u32) + address
look() { bpftool -j map lookup pinned "$r" key 32 0 0 0 $1 2>&1 | grep -o '"value":\[[^]]*\]' | head -1; }
v=$(look "10 9 9 9")
if [ "$v" = '"value":["0x07","0x00","0x00","0x00","0x00","0x00","0x00","0x00"]' ]; then pass "slash-8 (10.9.9.9 -> 7)"
else fail slash-8 "10.9.9.9 looked up: $v"; fi
v=$(look "10 1 2 3")
if [ "$v" = '"value":["0x09","0x00","0x00","0x00","0x00","0x00","0x00","0x00"]' ]; then pass "slash-24 wins (10.1.2.3 -> 9)"
else fail slash-24 "10.1.2.3 looked up: $v"; fi
g=$("$KILN" map get "$r" 10.1.2.0/24 --json 2>&1)
if grep -q '"value":9' <<<"$g"; then pass get; else fail get "$g"; fi
"$KILN" map delete "$r" 10.1.2.0/24
v=$(look "10 1 2 3")
if [ "$v" = '"value":["0x07","0x00","0x00","0x00","0x00","0x00","0x00","0x00"]' ]; then pass "delete (10.1.2.3 -> 7 again)"
else fail delete "10.1.2.3 looked up: $v"; fi
"$KILN" map set "$r" 10.0.0.0/33 1 >/dev/null 2>&1; rc1=$?
"$KILN" map set "$r" fd00::/16 1 >/dev/null 2>&1; rc2=$?
if [ $rc1 = 2 ] && [ $rc2 = 2 ]; then pass bad-prefixes; else fail bad-prefixes "/33: status $rc1, IPv6 in 8-byte keys: status $rc2"; fi
exit 0

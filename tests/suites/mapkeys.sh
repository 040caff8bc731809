#!/usr/bin/env bash
# mapkeys.sh — keys and values typed on the command line by the map's BTF
# (tests/lib/mapkeys.lisp, loaded and pinned by kiln): the issue's example literally (a struct
# key of an :ipv4 and a u16 as JSON); a value of every kind (u8 u16 u32 u64 i32, ipv6, a char
# array, a nested struct, an array) set as JSON and read back by `get --json` with each field
# as set, bpftool's view of the bytes agreeing; the get output fed back to set gives the same
# entry (a round trip); per-CPU values once or one per CPU; an lpm-trie key as 10.99.0.0/16;
# errors that say what the BTF type wanted, with exit status 2.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
pin=/sys/fs/bpf/kiln-mapkeys-$$
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null' EXIT
pass() { echo "PASS mapkeys/$1"; }
fail() { echo "FAIL mapkeys/$1: $2"; }
check() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "wanted [$2], got [$3]"; fi; }
# an error: exit status 2 and a message holding the text given
check_err() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$KILN" "$@" 2>&1); rc=$?
	if [ $rc = 2 ] && grep -qF -- "$want" <<<"$out"; then pass "$name"; else fail "$name" "status $rc: $out"; fi
}

if ! out=$("$KILN" load tests/lib/mapkeys.lisp --pin "$pin" 2>&1); then
	fail load "$out"
	exit 0
fi
M=$pin/maps

# the issue's example: saddr is an :ipv4 (network order), dport a u16; the rest is zero
"$KILN" map set "$M/flows" '{"saddr": "10.0.0.1", "dport": 80}' 1 || fail issue-example "status $?"
# the :ipv4 fields printed as addresses (their typedef ipv4_addr in the BTF)
check issue-example '{"map":"flows","key":{"saddr":"10.0.0.1","daddr":"0.0.0.0","sport":0,"dport":80},"value":1}' \
	"$("$KILN" map get "$M/flows" '{"saddr": "10.0.0.1", "dport": 80}' --json 2>&1)"
# the kernel's bytes of that key: 0a 00 00 01, four zeros, sport 0, dport 80 little-endian
bt=$(bpftool -j map lookup pinned "$M/flows" key 10 0 0 1 0 0 0 0 0 0 80 0 2>&1 | grep -o '"value":\[[^]]*\]')
check issue-example-bytes '"value":["0x01","0x00","0x00","0x00","0x00","0x00","0x00","0x00"]' "$bt"

rec='{"a":255,"b":65535,"c":4294967295,"d":18446744073709551615,"e":-2147483648,"addr6":"fd00::1","name":"hello world","inner":{"saddr":"192.168.1.2","daddr":"10.1.2.3","sport":1234,"dport":443},"nums":[1,2,3]}'
"$KILN" map set "$M/recs" 1 "$rec" || fail rec-set "status $?"
got=$("$KILN" map get "$M/recs" 1 --json 2>&1)
# the :ipv4 and :ipv6 fields printed as the addresses that were set
want='{"map":"recs","key":1,"value":{"a":255,"b":65535,"c":4294967295,"d":18446744073709551615,"e":-2147483648,"addr6":"fd00::1","name":"hello world","inner":{"saddr":"192.168.1.2","daddr":"10.1.2.3","sport":1234,"dport":443},"nums":[1,2,3,0]}}'
check rec-get "$want" "$got"
# the round trip: what get printed, set again under another key, reads back the same
value=$(sed 's/^{"map":"recs","key":1,"value":\(.*\)}$/\1/' <<<"$got")
"$KILN" map set "$M/recs" 2 "$value" || fail round-trip "status $?"
check round-trip "${want/\"key\":1/\"key\":2}" "$("$KILN" map get "$M/recs" 2 --json 2>&1)"
# a struct as a key, and dashes for underscores in field names
"$KILN" map set "$M/by_rec" '{"name":"k","inner":{"dport":7}}' '{"saddr":"1.2.3.4","sport":9}' ||
	fail struct-key "status $?"
check struct-key '{"saddr":"1.2.3.4","daddr":"0.0.0.0","sport":9,"dport":0}' \
	"$("$KILN" map get "$M/by_rec" '{"name":"k","inner":{"dport":7}}' --json 2>&1 | sed 's/.*"value"://; s/}$//')"

# a key that is an :ipv4: dotted in, printed dotted, and what get prints reads back; its bytes
# as an integer (what kiln printed before it knew addresses) still name it
"$KILN" map set "$M/by_addr" 10.0.0.1 3
k=$("$KILN" map get "$M/by_addr" 10.0.0.1 --json 2>&1 | sed 's/.*"key":"\([0-9.]*\)".*/\1/')
check ipv4-key '{"map":"by_addr","key":"10.0.0.1","value":3}' "$("$KILN" map get "$M/by_addr" "$k" --json 2>&1)"
check ipv4-key-text '  10.0.0.1 => 3' "$("$KILN" map get "$M/by_addr" 16777226 2>&1)"

# per-CPU: one value for every CPU, or a list of one per possible CPU
ncpu=$(( $(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1 ))
"$KILN" map set "$M/per_cpu" 1 7
sevens=$(for _ in $(seq "$ncpu"); do printf '7,'; done)
check per-cpu-one "[${sevens%,}]" \
	"$("$KILN" map get "$M/per_cpu" 1 --json | sed 's/.*"value"://; s/}$//')"
list=$(seq -s, 1 "$ncpu")
"$KILN" map set "$M/per_cpu" 2 "[$list]"
check per-cpu-list "[$list]" "$("$KILN" map get "$M/per_cpu" 2 --json | sed 's/.*"value"://; s/}$//')"
check_err per-cpu-count "one per possible CPU ($ncpu)" map set "$M/per_cpu" 3 "[$list,99]"

# signed keys: the whole range, hex as the bit pattern, and no further
"$KILN" map set "$M/small" -32768 255 && "$KILN" map set "$M/small" 0xffff 1
check signed-hex "  -1 => 1" "$("$KILN" map get "$M/small" -1 2>&1)"
check signed-min '{"map":"small","key":-32768,"value":255}' "$("$KILN" map get "$M/small" -32768 --json 2>&1)"

# an lpm-trie key as a prefix, or as its struct
"$KILN" map set "$M/routes" 10.99.0.0/16 5
check lpm-prefix '{"map":"routes","key":{"prefixlen":16,"addr":25354},"value":5}' \
	"$("$KILN" map get "$M/routes" 10.99.0.0/16 --json 2>&1)"
check lpm-struct '{"map":"routes","key":{"prefixlen":16,"addr":25354},"value":5}' \
	"$("$KILN" map get "$M/routes" '{"prefixlen":16,"addr":25354}' --json 2>&1)"

# errors say what the type wanted
check_err range "key field 'dport' is a u16: 70000 is out of range (0..65535)" \
	map set "$M/flows" '{"saddr": "10.0.0.1", "dport": 70000}' 1
check_err nearest "struct flow has no field 'sadr'; did you mean saddr" map set "$M/flows" '{"sadr": "10.0.0.1"}' 1
check_err nested-nearest "value field 'inner': struct flow has no field 'dprt'; did you mean dport" \
	map set "$M/recs" 3 '{"inner":{"dprt":1}}'
check_err too-long "value field 'name' is a char[16] (a string): \"0123456789abcdefg\" is 17 bytes, 16 at most" \
	map set "$M/recs" 3 '{"name":"0123456789abcdefg"}'
check_err signed-range "value field 'e' is an i32: 2147483648 is out of range" map set "$M/recs" 3 '{"e":2147483648}'
check_err negative-unsigned "value field 'a' is a u8: -1 is out of range (0..255)" map set "$M/recs" 3 '{"a":-1}'
check_err bad-address "value field 'inner.saddr' is an ipv4 address (10.0.0.1): '10.0.0.256' is not a dotted address" \
	map set "$M/recs" 3 '{"inner":{"saddr":"10.0.0.256"}}'
check_err array-long "value field 'nums' is an array of 4 u32: 5 elements given, 4 at most" \
	map set "$M/recs" 3 '{"nums":[1,2,3,4,5]}'
check_err bad-json "is not JSON: at offset 7" map set "$M/recs" 3 '{"a":1,}'
check_err not-object "key is a struct flow (a JSON object): 'x' is neither a JSON object nor 0x" map set "$M/flows" x 1
# nothing of the failed writes arrived
o=$("$KILN" map get "$M/recs" 3 2>&1); rc=$?
if [ $rc = 1 ]; then pass no-partial-writes; else fail no-partial-writes "status $rc: $o"; fi
exit 0

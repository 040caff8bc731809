#!/usr/bin/env bash
# btftypes.sh — kiln's integer types in BTF as clang writes them for the same C (issue 14,
# seed 003: `bpftool btf dump` of Linux's samples/bpf/xdp1_kern.o). tests/corpus/xdp1.lisp
# and its C twin are compiled in this run and dumped with bpftool: with the type ids taken
# out (tests/btftypes/canon.awk), kiln's BTF, clang's and the seed's listing are the same,
# rxcnt's key is TYPEDEF u32 -> TYPEDEF __u32 -> INT unsigned int and its value INT long, and
# xdp_md's members are __u32. tests/btftypes/int-names.{lisp,c} do the same for every integer
# name kiln takes, each chain once per object; the kernel's typedefs (u32, s32, __be16, bool,
# size_t...) chain as in the running kernel's BTF. Both xdp1 objects are then run with
# BPF_PROG_TEST_RUN (kiln test-run, and the twin harness): an IPv4 packet counts in its
# protocol's slot of rxcnt, the same for both.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
CLANG=${CLANG:-clang}
MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
CANON=tests/btftypes/canon.awk
tmp=$(mktemp -d /tmp/kiln-btftypes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
SUITE=btftypes
. "${ROOT:-$PWD}/tests/harness/report.sh"
for tool in bpftool "$CLANG"; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP btftypes: no $tool to build or dump the C twins with"
		exit 0
	fi
done

# NAME.lisp and NAME.c from DIR into $tmp/NAME.{kiln,clang}.{o,dump,canon}
build() {   # dir, name
	local out
	if ! out=$("$KILN" compile "$1/$2.lisp" -o "$tmp/$2.kiln.o" 2>&1); then
		fail "$2-compile" "$out"
		return 1
	fi
	if ! out=$("$CLANG" -O2 -g -target bpf "-I/usr/include/$MULTIARCH" -c "$1/$2.c" -o "$tmp/$2.clang.o" 2>&1); then
		fail "$2-clang" "$out"
		return 1
	fi
	for who in kiln clang; do
		if ! bpftool btf dump file "$tmp/$2.$who.o" >"$tmp/$2.$who.dump" 2>&1; then
			fail "$2-dump-$who" "$(head -3 "$tmp/$2.$who.dump")"
			return 1
		fi
		awk -f "$CANON" "$tmp/$2.$who.dump" | sort >"$tmp/$2.$who.canon"
	done
}

same_canon() {   # name, file A, file B
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		pass "$1 ($(wc -l <"$2") roots)"
	else
		fail "$1" "$(diff <(tr '{' '\n' <"$2") <(tr '{' '\n' <"$3") | head -20)"
	fi
}

# the member MEMBER of VAR's map definition (or of a FUNC's ctx struct), from a canon file
member() {   # canon file, root pattern, member
	grep -F "$2" "$1" | tr '{' '\n' | grep -F "'$3' type_id=" | head -1 | sed 's/ bits_offset=[0-9]*}.*$//'
}

# ---- xdp1: kiln, clang and the seed print the same BTF ---------------------------------------
if build tests/corpus xdp1; then
	awk -f "$CANON" tests/btftypes/seed-003.txt | sort >"$tmp/seed.canon"
	same_canon xdp1-kiln-is-clang "$tmp/xdp1.kiln.canon" "$tmp/xdp1.clang.canon"
	same_canon xdp1-kiln-is-seed "$tmp/xdp1.kiln.canon" "$tmp/seed.canon"
	same_canon xdp1-clang-is-seed "$tmp/xdp1.clang.canon" "$tmp/seed.canon"
	u32="TYPEDEF 'u32' type_id=(TYPEDEF '__u32' type_id=(INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)))"
	check rxcnt-key "'key' type_id=(PTR '(anon)' type_id=($u32))" "$(member "$tmp/xdp1.kiln.canon" "VAR 'rxcnt'" key)"
	check rxcnt-value "'value' type_id=(PTR '(anon)' type_id=(INT 'long' size=8 bits_offset=0 nr_bits=64 encoding=SIGNED))" \
		"$(member "$tmp/xdp1.kiln.canon" "VAR 'rxcnt'" value)"
	for m in data data_end data_meta ingress_ifindex rx_queue_index egress_ifindex; do
		got=$(member "$tmp/xdp1.kiln.canon" "FUNC 'xdp_prog1'" "$m")
		[ "$got" == "'$m' type_id=(TYPEDEF '__u32' type_id=(INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)))" ] || break
	done
	check xdp_md-members-are-__u32 "'egress_ifindex' type_id=(TYPEDEF '__u32' type_id=(INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)))" "$got"
	# the seed's own lines for the chain and the value, ids aside, are in kiln's listing
	missing=""
	for want in "TYPEDEF 'u32' type_id=" "TYPEDEF '__u32' type_id=" \
		"INT 'unsigned int' size=4 bits_offset=0 nr_bits=32 encoding=(none)" \
		"INT 'long' size=8 bits_offset=0 nr_bits=64 encoding=SIGNED"; do
		grep -qF "] $want" tests/btftypes/seed-003.txt || missing="$missing [seed lacks: $want]"
		grep -qF "] $want" "$tmp/xdp1.kiln.dump" || missing="$missing [kiln lacks: $want]"
	done
	check seed-lines-literally "" "$missing"

	# ---- both run: an IPv4 packet counts once in its protocol's slot ------------------------
	for sample in ipv4-udp:17 ipv4-tcp-syn:6; do
		name=${sample%:*} slot=${sample#*:}
		for who in kiln clang; do
			out=$("$KILN" test-run "$tmp/xdp1.$who.o" --data-sample "$name" --map rxcnt --json 2>&1)
			# the per-CPU values of every non-zero slot, summed: "KEY=SUM ..."
			got=$(grep -o '"key":[0-9]*,"value":\[[0-9,]*\]' <<<"$out" |
				sed 's/"key":\([0-9]*\),"value":\[\(.*\)\]/\1 \2/' |
				awk '{ n = split($2, v, ","); s = 0; for (i = 1; i <= n; i++) s += v[i]; printf "%s%d=%d", sep, $1, s; sep = " " }')
			check "test-run-$name-$who" "$slot=1" "$got"
		done
	done
	twin_args=$(sed -n 's/^;;[[:space:]]*twin-args:[[:space:]]*//p' tests/corpus/xdp1.lisp | tr '\n' ' ')
	# shellcheck disable=SC2086  # twin-args are whitespace-separated words by design
	if out=$(timeout 300 "$BUILD/tests/twin" "$tmp/xdp1.kiln.o" "$tmp/xdp1.clang.o" $twin_args 2>&1); then
		pass "xdp1-twin ($out)"
	else
		fail xdp1-twin "$out"
	fi
fi

# ---- every integer name: the same struct as clang's, each chain once ----------------------
if build tests/btftypes int-names; then
	same_canon int-names-kiln-is-clang "$tmp/int-names.kiln.canon" "$tmp/int-names.clang.canon"
	dups=$(sed -n "s/^\[[0-9]*\] \(INT\|TYPEDEF\) \('[^']*'\).*/\1 \2/p" "$tmp/int-names.kiln.dump" | sort | uniq -d | tr '\n' ' ')
	check each-chain-once "" "$dups"
	# the kernel takes the BTF (the map has a btf_id), and kiln prints a value through it:
	# signed chars signed, the u8 array as numbers, bool as a truth value
	pin=/sys/fs/bpf/kiln-btftypes-$$
	trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
	if out=$("$KILN" load "$tmp/int-names.kiln.o" --pin "$pin" 2>&1); then
		info=$(bpftool -j map show pinned "$pin/maps/ints" 2>&1)
		if grep -q '"btf_id":[1-9]' <<<"$info"; then pass int-names-kernel-btf; else fail int-names-kernel-btf "$info"; fi
		bytes=$(sed -n "s/^\t'bytes' type_id=[0-9]* bits_offset=\([0-9]*\)$/\1/p" "$tmp/int-names.kiln.dump")
		flag=$(sed -n "s/^\t'flag' type_id=[0-9]* bits_offset=\([0-9]*\)$/\1/p" "$tmp/int-names.kiln.dump")
		val=$(awk -v b=$((bytes / 8)) -v f=$((flag / 8)) 'BEGIN {
			for (i = 0; i < 192; i++) {
				x = i == 0 ? 65 : i == 1 || i == 2 ? 255 : i == f ? 1 : i >= b && i < b + 6 ? i - b + 1 : 0
				printf "%d ", x
			} }')
		# shellcheck disable=SC2086
		bpftool map update pinned "$pin/maps/ints" key 7 0 0 0 value $val
		got=$("$KILN" map dump "$pin/maps/ints" --json 2>&1 | grep -o '"f_char":[^,]*,"f_signed_char":[^,]*,"f_unsigned_char":[^,]*\|"flag":[a-z]*\|"bytes":\[[^]]*\]' | tr '\n' ' ')
		check int-names-map-dump '"f_char":65,"f_signed_char":-1,"f_unsigned_char":255 "flag":true "bytes":[1,2,3,4,5,6] ' "$got"
		"$KILN" unload "$pin" >/dev/null 2>&1
	else
		fail int-names-load "$out"
	fi

	# the kernel's typedefs chain as in the kernel's own BTF (gcc names its INTs its way)
	# (only its TYPEDEF and INT lines: a chain is made of nothing else, and the whole dump is
	# too big to read once per name)
	if [ -r /sys/kernel/btf/vmlinux ] && bpftool btf dump file /sys/kernel/btf/vmlinux >"$tmp/vmlinux.all" 2>/dev/null &&
		grep -E "^\[[0-9]+\] (TYPEDEF|INT) " "$tmp/vmlinux.all" >"$tmp/vmlinux.dump"; then
		gcc_names='s/long long unsigned int/unsigned long long/; s/long unsigned int/unsigned long/;
			   s/long long int/long long/; s/long int/long/; s/short unsigned int/unsigned short/;
			   s/short int/short/'
		for t in u8 u16 u32 u64 s8 s16 s32 s64 __be16 __be32 __be64 __le16 __le32 __le64 bool size_t; do
			want=$(awk -v chain="$t" -f "$CANON" "$tmp/vmlinux.dump" | sed "$gcc_names")
			got=$(awk -v chain="$t" -f "$CANON" "$tmp/int-names.kiln.dump")
			[ "$want" == "$got" ] || break
		done
		check "kernel-chains (u8..s64 __be16.. bool size_t; last: $t)" "$want" "$got"
	else
		echo "SKIP btftypes/kernel-chains: no readable /sys/kernel/btf/vmlinux to compare with"
	fi
fi
exit 0

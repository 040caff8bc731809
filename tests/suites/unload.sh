#!/usr/bin/env bash
# unload.sh — `kiln unload` removes what kiln load made and nothing else: another tool's pins
# (made with bpftool) are refused unless --force, so is a pin replaced since the load; the
# bpffs root and any bpffs mount point are always refused; and an XDP program's link is
# detached when unload returns: hundreds of load/unload cycles on a veth in a network
# namespace of the test's own, with the hook checked free after every unload. A clang object's
# global data (OBJ.rodata, .data, .bss) pins under names bpffs accepts (OBJ_rodata, as bpftool
# names them), bpftool reads the pinned rodata back, and unload needs no --force.
set -u
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out="$BUILD/tests/unload"
mkdir -p "$out"
pin=/sys/fs/bpf/kiln-unload-$$
mnt="$out/bpffs-$$"
ns=kunl$$
cycles=${KILN_UNLOAD_CYCLES:-300}
cleanup() {
	"$KILN" unload --force "$pin" >/dev/null 2>&1
	rm -rf "$pin" "$pin-bt"
	mountpoint -q "$mnt" && umount "$mnt"
	rmdir "$mnt" 2>/dev/null
	ip netns del $ns 2>/dev/null
}
trap cleanup EXIT

pass() { echo "PASS unload/$1"; }
fail() { echo "FAIL unload/$1: $2"; }
check() {   # name, expected status, text expected in the output, command...
	local name=$1 want=$2 text=$3; shift 3
	local o rc
	o=$("$@" 2>&1); rc=$?
	if [ $rc -eq "$want" ] && grep -qF -- "$text" <<<"$o"; then pass "$name"
	else fail "$name" "expected status $want and '$text', got $rc and '$(head -2 <<<"$o" | tr '\n' ' ')'"; fi
}
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf

if ! "$KILN" compile examples/xdp-count.lisp -o "$out/xdp.o" 2>"$out/compile.err"; then
	fail compile "$(head -3 "$out/compile.err")"
	exit 0
fi

# ---- another tool's pins: refused, kept; --force removes them ---------------------------------
mkdir -p "$pin-bt"
if bpftool map create "$pin-bt/other" type array key 4 value 4 entries 1 name other >/dev/null 2>&1; then
	check foreign-refused 1 "kiln load did not make it" "$KILN" unload "$pin-bt"
	if [ -e "$pin-bt/other" ]; then pass foreign-kept; else fail foreign-kept "bpftool's pin is gone"; fi
	check foreign-force 0 "" "$KILN" unload --force "$pin-bt"
	if [ ! -e "$pin-bt" ]; then pass foreign-force-gone; else fail foreign-force-gone "$pin-bt remains"; fi
else
	fail bpftool-pin "bpftool map create failed"
fi

# ---- the bpffs root and any bpffs mount point: refused, even with --force -------------------
mkdir -p "$pin-bt"
bpftool map create "$pin-bt/keep" type array key 4 value 4 entries 1 name keep >/dev/null 2>&1
check root-refused 1 "mount point" "$KILN" unload /sys/fs/bpf
check root-force-refused 1 "mount point" "$KILN" unload --force /sys/fs/bpf/
if [ -e "$pin-bt/keep" ]; then pass root-kept; else fail root-kept "$pin-bt/keep is gone"; fi
mkdir -p "$mnt"
if mount -t bpf bpf "$mnt" 2>/dev/null; then
	bpftool map create "$mnt/keep" type array key 4 value 4 entries 1 name keep >/dev/null 2>&1
	check mount-refused 1 "mount point" "$KILN" unload --force "$mnt"
	if [ -e "$mnt/keep" ]; then pass mount-kept; else fail mount-kept "$mnt/keep is gone"; fi
	check load-mount-refused 1 "a mount point" "$KILN" load "$out/xdp.o" --pin "$mnt"
	umount "$mnt"
else
	fail mount "cannot mount a bpffs at $mnt"
fi
check load-nonempty-refused 1 "already holds keep" "$KILN" load "$out/xdp.o" --pin "$pin-bt"
"$KILN" unload --force "$pin-bt" >/dev/null 2>&1

# ---- a kiln load: its own pins go; with another pin beside them nothing goes ------------------
check load 0 "pinned 2 maps and 1 program" "$KILN" load "$out/xdp.o" --pin "$pin"
bpftool map create "$pin/maps/intruder" type array key 4 value 4 entries 1 name intruder >/dev/null 2>&1
check added-refused 1 "$pin/maps/intruder was not pinned by kiln load" "$KILN" unload "$pin"
if [ -e "$pin/maps/verdicts" ] && [ -e "$pin/maps/intruder" ] && [ -e "$pin/progs/xdp_count" ]; then
	pass added-nothing-removed
else
	fail added-nothing-removed "$(cd "$pin" 2>/dev/null && find . | tr '\n' ' ')"
fi
bpftool map delete pinned "$pin/maps/intruder" key 0 0 0 0 >/dev/null 2>&1
rm -f "$pin/maps/intruder"
# a pin replaced since the load: the same name, another map
rm -f "$pin/maps/verdicts"
bpftool map create "$pin/maps/verdicts" type array key 4 value 8 entries 5 name verdicts >/dev/null 2>&1
check replaced-refused 1 "$pin/maps/verdicts was not pinned by kiln load" "$KILN" unload "$pin"
check replaced-force 0 "" "$KILN" unload --force "$pin"
if [ ! -e "$pin" ]; then pass replaced-force-gone; else fail replaced-force-gone "$pin remains"; fi
check load-again 0 "pinned 2 maps and 1 program" "$KILN" load "$out/xdp.o" --pin "$pin"
check unload 0 "" "$KILN" unload "$pin"
if [ ! -e "$pin" ]; then pass unload-gone; else fail unload-gone "$pin remains"; fi
check unload-missing 1 "No such file" "$KILN" unload "$pin"

# ---- a clang object with global data: OBJ.rodata, .data and .bss pin as OBJ_rodata ... -------
# (bpffs refuses dots; bpftool names them so) and unload removes them without --force.
cc_glob() { clang -O2 -g -target bpf -I/usr/include/$(gcc -print-multiarch) "$@" -c tests/lib/globals-pin.bpf.c 2>"$out/cc.err"; }
if ! command -v clang >/dev/null || ! cc_glob -o "$out/glob.o"; then
	echo "SKIP unload/global-data: no clang to build tests/lib/globals-pin.bpf.c ($(head -1 "$out/cc.err" 2>/dev/null))"
else
	check global-data-load 0 "pinned 3 maps and 1 program" "$KILN" load "$out/glob.o" --pin "$pin" --attach
	have=$(cd "$pin" 2>/dev/null && find maps progs links -mindepth 1 | sort | tr '\n' ' ')
	want="links/count_getppid maps/glob_bss maps/glob_data maps/glob_rodata progs/count_getppid "
	if [ "$have" = "$want" ]; then pass global-data-pin-names; else fail global-data-pin-names "pinned '$have', want '$want'"; fi
	if bpftool -j map dump pinned "$pin/maps/glob_rodata" 2>&1 | grep -q '"x":1'; then pass global-data-bpftool-reads-rodata
	else fail global-data-bpftool-reads-rodata "$(bpftool map dump pinned "$pin/maps/glob_rodata" 2>&1 | head -3 | tr '\n' ' ')"; fi
	check global-data-unload 0 "" "$KILN" unload "$pin"
	if [ ! -e "$pin" ]; then pass global-data-unload-gone; else fail global-data-unload-gone "$pin remains: $(cd "$pin" && find . | tr '\n' ' ')"; fi
	# a map named glob_rodata beside glob.rodata: one pin name for two maps, refused, nothing made
	if cc_glob -DCLASH -o "$out/glob.o"; then
		check global-data-clash-refused 1 "two objects would pin at maps/glob_rodata" "$KILN" load "$out/glob.o" --pin "$pin"
		if [ ! -e "$pin" ]; then pass global-data-clash-nothing-made; else fail global-data-clash-nothing-made "$pin exists"; fi
	else
		fail global-data-clash-build "$(head -2 "$out/cc.err")"
	fi
fi

# ---- load/unload cycles of an XDP program on a veth in our own network namespace -------------
if ! ip netns add $ns 2>/dev/null || ! ip -n $ns link add ku0 type veth peer name ku1 2>/dev/null ||
	! ip -n $ns link set ku0 up 2>/dev/null; then
	fail cycles-setup "cannot make a veth pair in a network namespace"
	exit 0
fi
inns=(nsenter --net=/run/netns/$ns)   # only the network namespace: /sys/fs/bpf stays ours
failures=0 busy=0 attached=0 first=""
for ((i = 1; i <= cycles; i++)); do
	if ! o=$("${inns[@]}" "$KILN" load "$out/xdp.o" --pin "$pin" --attach --iface ku0 2>&1); then
		failures=$((failures + 1)); grep -q 'busy' <<<"$o" && busy=$((busy + 1))
		[ -z "$first" ] && first="cycle $i load: $o"
	fi
	if ! o=$("$KILN" unload "$pin" 2>&1); then
		failures=$((failures + 1)); [ -z "$first" ] && first="cycle $i unload: $o"
	fi
	# when unload has returned, the interface reports no XDP program
	if ip -n $ns -d link show ku0 | grep -q 'prog/xdp'; then
		attached=$((attached + 1)); [ -z "$first" ] && first="cycle $i: still attached after unload"
	fi
done
if [ $failures -eq 0 ] && [ $attached -eq 0 ]; then
	pass "cycles-$cycles"
else
	fail "cycles-$cycles" "$failures failed ($busy busy), $attached still attached after unload; first: $first"
fi

#!/usr/bin/env bash
# whistler.sh — kiln on Whistler's own BPF examples: instructions per example (8-byte slots in
# the program sections, a ld_imm64 counting two, as the kernel counts insn_cnt), beside the
# counts Whistler's README gives for the same programs, and whether `bpftool prog loadall`
# loads every program. Whistler's files are read from a checkout, never copied into kiln:
#   bash bench/whistler.sh [WHISTLER-DIR | WHISTLER.git]
# With no argument: the Whistler peer, $WHISTLER_DIR or $KILN_PEERS/Whistler (tests/harness/peers.sh).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KILN=${KILN:-$ROOT/kiln}
[ $# -gt 0 ] && WHISTLER_DIR=$1
. "$ROOT/tests/harness/peers.sh"
src=$WHISTLER_DIR
examples="count-xdp drop-port multi-prog percpu-counter ratelimit-xdp ringbuf-events
sk-lookup-catchall synflood-xdp tail-call-dispatch tc-classifier cgroup-firewall runqlat"
# Whistler README: "Whistler: N instructions" for these three (synflood is also quoted as 74
# in its REPL transcript, for an older compiler)
declare -A published=([count-xdp]=11 [drop-port]=25 [synflood-xdp]=65)

read_example() { whistler_file "examples/$1.lisp"; }  # a work tree, or a bare/mirror git directory
if ! read_example count-xdp >/dev/null 2>&1 || [ -z "$(read_example count-xdp)" ]; then
	echo "whistler.sh: no Whistler checkout at '$src' (give its path, or $PEERS_HOW)" >&2
	exit 2
fi
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
tmp=$(mktemp -d)
pin=/sys/fs/bpf/kiln-whistler-$$
trap 'rm -rf "$tmp" "$pin"' EXIT
printf '%-20s %8s %10s %s\n' example kiln whistler "loadall"
total=0
for ex in $examples; do
	read_example "$ex" >"$tmp/$ex.lisp"
	if ! err=$("$KILN" compile "$tmp/$ex.lisp" -o "$tmp/$ex.o" 2>&1); then
		printf '%-20s %8s %10s %s\n' "$ex" "-" "${published[$ex]:--}" "compile failed: $(head -1 <<<"$err")"
		continue
	fi
	# program sections are the executable ones (flag X)
	insns=0
	while read -r name type addr off size rest; do
		[ "$type" = PROGBITS ] && [[ $rest == *X* ]] && insns=$((insns + 16#$size / 8))
	done < <(readelf -S -W "$tmp/$ex.o" | sed -n 's/^ *\[ *[0-9]*\] *//p')
	total=$((total + insns))
	rm -rf "$pin"
	# libbpf 1.1 does not know Whistler's "xdp/NAME" sections: give bpftool the type then
	type=()
	readelf -S -W "$tmp/$ex.o" | grep -q ' xdp/' && type=(type xdp)
	if out=$(bpftool prog loadall "$tmp/$ex.o" "$pin" "${type[@]}" 2>&1); then
		load="ok ($(ls "$pin" | wc -l) programs${type[*]:+, ${type[*]}})"
	else
		load="FAILED: $(grep -m1 -E 'error|invalid|failed' <<<"$out")"
	fi
	rm -rf "$pin"
	printf '%-20s %8d %10s %s\n' "$ex" "$insns" "${published[$ex]:--}" "$load"
done
echo "total kiln instructions: $total"

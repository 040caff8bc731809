#!/usr/bin/env bash
# tools/soak.sh [N] — run the whole suite N times in a row (default 20) with an unrelated BPF
# program attached: tests/lib/bystander.bpf.c, built by clang, loaded by libbpf and pinned
# (tests/harness/bystander), counting and sending records on the tracepoints the suite uses.
# Prints each run's "N passed, N failed, N skipped" and its failures; exits 1 if any run failed.
# Run from the repository root after `make kiln test-bins`.
set -u
cd "$(dirname "$0")/.."
n=${1:-20}
dir=/sys/fs/bpf/kiln-bystander-$$
tmp=$(mktemp -d)
trap 'rm -rf "$dir" "$tmp"' EXIT
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
arch=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
clang -O2 -g -target bpf -I/usr/include/$arch -c tests/lib/bystander.bpf.c -o "$tmp/bystander.o" || exit 1
mkdir -p "$dir"
build/tests/bystander "$tmp/bystander.o" "$dir" || exit 1
bad=0
for i in $(seq "$n"); do
	start=$(date +%s)
	bash tests/run >"$tmp/run.log" 2>&1
	rc=$?
	echo "run $i: $(tail -1 "$tmp/run.log") ($(( $(date +%s) - start )) s)"
	grep '^FAIL ' "$tmp/run.log" | sed 's/^/    /'
	[ $rc -eq 0 ] || bad=$((bad + 1))
done
echo "soak: $n runs, $bad with failures; the bystander's links were attached throughout:" \
	"$(ls "$dir" | tr '\n' ' ')"
[ $bad -eq 0 ]

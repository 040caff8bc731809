#!/usr/bin/env bash
# trace-tools026.sh — bpftrace v0.26.1's 39 tools/*.bt, read from bpftrace's sources at test
# time (a peer: tests/harness/peers.sh; never copied here), each compiled with `kiln trace
# --dry-run` (translated, compiled, not loaded). A PASS per tool that compiles; one that does
# not is a SKIP naming kiln's first error, and the suite fails when fewer compile than the
# floor (raise it as kiln learns more). SKIP without the sources or without tag v0.26.1.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-tools026
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/peers.sh"
FLOOR=${TOOLS026_FLOOR:-35}   # how many compile: raised when more do (4 before the v0.26 grammar)
TAG=v0.26.1
if [ ! -e "$BPFTRACE_SRC" ] || ! peer_git "$BPFTRACE_SRC" rev-parse -q --verify "$TAG^{commit}" >/dev/null 2>&1; then
	peer_skip "$SUITE/suite" "bpftrace's sources with tag $TAG"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; ok=0
for p in $(peer_git "$BPFTRACE_SRC" ls-tree --name-only "$TAG" tools/ | grep '\.bt$'); do
	t=$(basename "$p" .bt)
	n=$((n + 1))
	peer_git "$BPFTRACE_SRC" show "$TAG:$p" >"$tmp/$t.bt"
	if timeout 120 "$KILN" trace --dry-run "$tmp/$t.bt" >/dev/null 2>"$tmp/$t.err"; then
		pass "$t"
		ok=$((ok + 1))
	else
		echo "SKIP $SUITE/$t: kiln cannot compile it yet: $(grep -m1 'error' "$tmp/$t.err" | sed "s|$tmp/||")"
	fi
done
echo "$SUITE: $ok of $n v0.26.1 tools compile (floor $FLOOR)"
check tool-count 39 "$n"
if [ "$ok" -ge "$FLOOR" ]; then pass floor; else fail floor "$ok of $n compile, fewer than the floor $FLOOR"; fi

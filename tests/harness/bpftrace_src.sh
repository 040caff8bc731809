# tests/harness/bpftrace_src.sh — sourced (after report.sh and SUITE=name) by the suites that
# read bpftrace v0.17.0's sources (a peer, tests/harness/peers.sh) and run bpftrace 0.17 itself:
# sets BPFTRACE (the binary: $BPFTRACE or the one on PATH) and mirror (the git directory of
# $BPFTRACE_SRC), or prints "SKIP name/suite: why" and exits 0 when either is missing.
. "$(dirname "${BASH_SOURCE[0]}")/peers.sh"
. "$(dirname "${BASH_SOURCE[0]}")/bpftrace_bin.sh"
if ! bpftrace_has_tag; then
	peer_skip "$SUITE/suite" "no bpftrace source with tag v0.17.0 at $BPFTRACE_SRC"
	exit 0
fi
mirror=$(peer_git "$BPFTRACE_SRC" rev-parse --absolute-git-dir)

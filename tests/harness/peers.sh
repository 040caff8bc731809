# tests/harness/peers.sh — where the suites and benches find kiln's peers, the two projects
# they compare kiln with: Whistler (its examples and its own loader) and bpftrace's sources
# (the tools and runtime tests of tag v0.17.0). Neither is ever copied into kiln. Sourced; sets
#   KILN_PEERS    the one setting: a directory holding the checkouts DIR/Whistler and
#                 DIR/bpftrace. Default: peers/ in this repository, where `make peers` clones
#                 them. Each may be a clone, a bare mirror or a symlink to either: the tests
#                 read a work tree's files where there is one, else the same files through
#                 git (Whistler's HEAD, bpftrace's tag v0.17.0).
#   WHISTLER_DIR  $KILN_PEERS/Whistler unless set (a finer override, for that peer only)
#   BPFTRACE_SRC  $KILN_PEERS/bpftrace unless set
# and peer_skip NAME WHAT, which prints the SKIP line of a cross-check whose peer is missing.
# Its reason starts with "no peer:", which tests/run counts for its closing line.
# shellcheck shell=bash
KILN_PEERS=${KILN_PEERS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/peers}
WHISTLER_DIR=${WHISTLER_DIR:-$KILN_PEERS/Whistler}
BPFTRACE_SRC=${BPFTRACE_SRC:-$KILN_PEERS/bpftrace}
PEERS_HOW="set KILN_PEERS=DIR (DIR/Whistler, DIR/bpftrace) or run \`make peers\`"

peer_skip() {   # NAME WHAT: "SKIP NAME: no peer: WHAT (how to get them)"
	echo "SKIP $1: no peer: $2 ($PEERS_HOW)"
}
# peer_git DIR ARGS...: git ARGS on the peer at DIR, a clone (DIR/.git) or a bare mirror; never
# on a repository around DIR (peers/ lies in kiln's own work tree)
peer_git() {
	local d=$1; shift
	if [ -e "$d/.git" ]; then git -C "$d" "$@"; else git --git-dir="$d" "$@"; fi
}
# whistler_file PATH: Whistler's file PATH (examples/x.lisp) from its work tree or its HEAD
whistler_file() {
	if [ -f "$WHISTLER_DIR/$1" ]; then cat "$WHISTLER_DIR/$1"
	else peer_git "$WHISTLER_DIR" show "HEAD:$1" 2>/dev/null; fi
}
# bpftrace_has_tag: whether $BPFTRACE_SRC is a git checkout that has tag v0.17.0
bpftrace_has_tag() {
	peer_git "$BPFTRACE_SRC" rev-parse -q --verify 'v0.17.0^{commit}' >/dev/null 2>&1
}

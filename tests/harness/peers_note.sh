#!/usr/bin/env bash
# tests/harness/peers_note.sh LOG — the closing line of tests/run when cross-checks against the
# peers were skipped: counts LOG's "SKIP name: no peer: ..." lines (tests/harness/peers.sh's
# peer_skip), names the suites they came from and says how to enable them. Prints nothing
# when there are none. (Some of those lines stand for a whole suite of checks: trace-runtime's
# runs bpftrace's runtime tests, trace-tools' bpftrace's tools.)
n=$(grep -c '^SKIP [^:]*: no peer: ' "$1")
[ "$n" -gt 0 ] || exit 0
suites=$(sed -n 's|^SKIP \([^/:]*\)[^:]*: no peer: .*|\1|p' "$1" | sort -u | tr '\n' ' ')
echo "*** $n cross-checks against the peers (Whistler, bpftrace's sources), some of them whole suites, were SKIPPED" \
	"(in: ${suites% }): set KILN_PEERS=DIR (DIR/Whistler, DIR/bpftrace) or run \`make peers\`; see README.md, \"Peers\" ***"

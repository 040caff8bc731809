#!/usr/bin/env bash
# trace-tools.sh — bpftrace v0.17.0's tools/*.bt run unchanged under `kiln trace` and under
# bpftrace 0.17 at once, on activity tests/trace/tools.py makes (an exec, a kill, opens,
# setuid calls, syncs, fsyncs on the root filesystem's block device, getaddrinfo, an
# interactive bash through a pty, TLS handshakes through python's libssl, forks, busy CPUs),
# each tool's lines of that activity compared between the two, the rest of their output too
# (maps: the keys the activity controls). The tools are read from bpftrace's sources at test
# time (a peer: tests/harness/peers.sh). A tool kiln cannot compile yet is a SKIP
# with kiln's reason, found by `kiln trace --dry-run` now (so it runs here once kiln can);
# one bpftrace cannot run here, a SKIP with bpftrace's error. SKIP without bpftrace or the sources.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=trace-tools
. "${ROOT:-$PWD}/tests/harness/report.sh"
# the tools whose probe types this kernel has (no kprobes here: the others cannot attach)
TOOLS="bashreadline bitesize cpuwalk execsnoop gethostlatency killsnoop loads naptime opensnoop pidpersec
	runqlat runqlen setuids ssllatency sslsnoop statsnoop syncsnoop syscount tcpdrop threadsnoop writeback"
. "${ROOT:-$PWD}/tests/harness/bpftrace_src.sh"
# (the driver prints the PASS/FAIL/SKIP lines, one per tool, and a summary)
timeout 170 python3 tests/trace/tools.py --mirror "$mirror" --kiln "$KILN" --bpftrace "$BPFTRACE" $TOOLS
check driver-status 0 "$?"

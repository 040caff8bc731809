# tests/harness/bpftrace_src.sh — sourced (after report.sh and SUITE=name) by the suites that
# read bpftrace v0.17.0's source mirror and run bpftrace 0.17 itself: sets BPFTRACE (the
# binary: $BPFTRACE or the one on PATH) and mirror ($BPFTRACE_SRC or the fetched one), or
# prints "SKIP name/suite: why" and exits 0 when either is missing.
BPFTRACE=${BPFTRACE:-$(type -P bpftrace)}
mirror=${BPFTRACE_SRC:-/work/.mirror/bpftrace+bpftrace/repo}
if [ -z "$BPFTRACE" ]; then
	echo "SKIP $SUITE/suite: bpftrace is not installed (make deps installs Debian's 0.17)"
	exit 0
fi
if ! git -C "$mirror" rev-parse -q --verify v0.17.0 >/dev/null 2>&1; then
	echo "SKIP $SUITE/suite: no bpftrace source with tag v0.17.0 at $mirror (set BPFTRACE_SRC to a clone)"
	exit 0
fi

# tests/harness/bpftrace_bin.sh — sourced (after report.sh and SUITE=name) by the suites that run
# bpftrace 0.17 beside kiln trace: sets BPFTRACE (the binary: $BPFTRACE or the one on PATH), or
# prints "SKIP name/suite: why" and exits 0 when there is none.
BPFTRACE=${BPFTRACE:-$(type -P bpftrace)}
if [ -z "$BPFTRACE" ]; then
	echo "SKIP $SUITE/suite: bpftrace is not installed (make deps installs Debian's 0.17)"
	exit 0
fi

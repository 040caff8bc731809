#!/usr/bin/env bash
# tests/harness/cgroup_ns.sh CGROUP DIR KEEP CMD... — CMD in a mount namespace of its own where
# /sys/fs/cgroup is CGROUP (for Whistler's cgroup examples, which hard-code that path) and /tmp
# an overlay of itself: CMD sees every file of the machine's /tmp (the kiln under test too,
# from a clone under /tmp), and what it writes there (the /tmp/cgroup-skb-count.bpf.o that
# cgroup-skb-count writes and reads back) goes to a tmpfs mounted on DIR (an existing directory
# of the caller's) in that namespace only: other runs of CMD, and of anything else on the
# machine, never see it, and nothing is written outside the caller's directories. KEEP (the
# caller's temporary directory) and $KILN_SANITIZER_LOGS stay the real ones in there (bound
# back from fds opened before the overlay). Needs root and overlayfs (used by
# tests/suites/sessions.sh and bench/sessions.sh).
set -e
cg=$1 dir=$2 keep=$3
logs=${KILN_SANITIZER_LOGS:-$keep}
shift 3
exec unshare -m --propagation private bash -c 'set -e
	exec 3<"$3" 4<"$4"
	mount --bind "$1" /sys/fs/cgroup
	mount -t tmpfs kiln-cgroup-ns "$2"
	mkdir "$2/upper" "$2/work"
	mount -t overlay kiln-cgroup-ns -o "lowerdir=/tmp,upperdir=$2/upper,workdir=$2/work" /tmp
	mount --no-canonicalize --bind /proc/self/fd/3 "$3"
	mount --no-canonicalize --bind /proc/self/fd/4 "$4"
	exec 3<&- 4<&-
	shift 4
	exec "$@"' sh "$cg" "$dir" "$keep" "$logs" "$@"

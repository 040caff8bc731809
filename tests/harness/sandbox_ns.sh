#!/usr/bin/env bash
# tests/harness/sandbox_ns.sh CGROUP DIR KEEP CMD... — CMD in namespaces of its own, for a
# session that hard-codes the machine's names (Whistler's book attaches to "eth0" and
# "/sys/fs/cgroup"): the mount namespace of cgroup_ns.sh (/sys/fs/cgroup is CGROUP, /tmp an
# overlay whose writes go to DIR), and a network namespace of its own with lo up, IPv6 off
# (no neighbour discovery of its own on the wire) and a veth pair eth0 <-> p0, both up, which
# /sys/class/net shows (a sysfs of that namespace bound over it). CMD runs in DIR/run. Its
# pid is the caller's background pid: `nsenter -t PID -n` makes activity on p0 or lo.
set -e
cg=$1 dir=$2 keep=$3
shift 3
exec bash "$(dirname "$0")/cgroup_ns.sh" "$cg" "$dir" "$keep" unshare -n bash -c 'set -e
	d=$1; shift
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link set lo up
	ip link add eth0 type veth peer name p0
	ip link set eth0 up
	ip link set p0 up
	mkdir -p "$d/sys" "$d/run"
	mount -t sysfs kiln-sandbox "$d/sys"
	mount --bind "$d/sys/class/net" /sys/class/net
	mount --bind "$d/sys/devices/virtual/net" /sys/devices/virtual/net
	cd "$d/run"
	exec "$@"' sh "$dir" "$@"

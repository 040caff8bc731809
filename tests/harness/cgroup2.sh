# tests/harness/cgroup2.sh — sourced: cgroup2_root prints where this machine mounts the cgroup
# v2 hierarchy (the first mount of type cgroup2 in /proc/self/mountinfo: /sys/fs/cgroup on a
# unified system, /sys/fs/cgroup/unified on a hybrid one), or nothing when none is mounted.
# (The mount point's spaces and other escaped bytes, \040 and the like, are unescaped.)
# shellcheck shell=bash
cgroup2_root() {
	local line fields dir
	while IFS= read -r line; do
		# after the optional fields, " - TYPE SOURCE OPTIONS"; the mount point is field 5
		[[ $line == *" - cgroup2 "* ]] || continue
		read -ra fields <<<"${line%% - *}"
		dir=${fields[4]}
		printf '%b\n' "$dir"
		return 0
	done </proc/self/mountinfo
}

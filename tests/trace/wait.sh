# tests/trace/wait.sh — sourced by the kiln trace suites: wait_for FILE PATTERN SECONDS
# returns 0 once PATTERN (grep) is in FILE, 1 at the deadline (never a bare sleep).
wait_for() {
	local end=$((SECONDS + $3))
	while [ $SECONDS -lt $end ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# tests/harness/report.sh — sourced by the suites that report checks one by one: after
# `SUITE=name`, pass NAME, fail NAME WHY and check NAME WANT GOT print the lines tests/run
# counts ("PASS name/NAME", "FAIL name/NAME: WHY").
pass() { echo "PASS $SUITE/$1"; }
fail() { echo "FAIL $SUITE/$1: $2"; }
check() {   # name, want, got (several lines: the differing ones)
	if [ "$2" == "$3" ]; then pass "$1"
	elif [[ "$2$3" == *$'\n'* ]]; then   # one line, as tests/run shows only these
		fail "$1" "the lines that differ (< want, > got): $(diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") |
			grep '^[<>]' | head -8 | tr '\n' '|')"
	else fail "$1" "want '$2', got '$3'"; fi
}

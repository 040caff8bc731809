#!/usr/bin/env bash
# utf8.sh — names that come from the system hold any bytes: a process's comm is whatever it set
# with prctl(PR_SET_NAME), UTF-8 or not. tests/names/badcomm.py names itself kiln, the bytes
# FF FE (no UTF-8) and -bad, then makes getresgid() calls. Checked: `kiln trace -f json` writes
# lines that parse as JSON (strict UTF-8), the comm in printf output and as a map key with
# U+FFFD for each bad byte; `kiln run --json` (tests/metrics/flood.lisp, whose events carry
# the comm) the same in its event lines, every line parsing; `kiln run`'s text shows the bytes
# as C escapes. (The Prometheus side, label values, is in metrics.sh.)
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
out=$(mktemp -d)
k=
trap '[ -n "$k" ] && kill -KILL $k 2>/dev/null; rm -rf "$out"' EXIT
SUITE=utf8
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
trigger="python3 $PWD/tests/names/badcomm.py 2"

# jsonl FILE: every line parsed as JSON from its bytes (invalid UTF-8 fails); what FILTER (a
# Python expression of d, the line's object) gives for the lines where it is not None, one a
# line; "unparsable: LINE" for a line that does not parse
jsonl() {
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	for raw in open(sys.argv[1], "rb"):
	    if not raw.strip():
	        continue
	    try:
	        d = json.loads(raw.decode("utf-8"))
	    except ValueError:
	        print("unparsable: %r" % raw[:120])
	        continue
	    v = eval(sys.argv[2])
	    if v is not None:
	        print(json.dumps(v))
	PY
}

# ---- kiln trace -f json -----------------------------------------------------------------------
timeout 60 "$KILN" trace -f json -e 'tracepoint:syscalls:sys_enter_getresgid /pid == cpid/ { printf("%s\n", comm); @[comm] = count(); }' \
	-c "$trigger" >"$out/trace.json" 2>"$out/trace.err"
check trace-json-printf '"kiln\ufffd\ufffd-bad\n"
"kiln\ufffd\ufffd-bad\n"' "$(jsonl "$out/trace.json" 'd["data"] if d.get("type") == "printf" else None')"
check trace-json-map-key '{"kiln\ufffd\ufffd-bad": 2}' \
	"$(jsonl "$out/trace.json" 'd["data"]["@"] if d.get("type") == "map" else None')$(grep -v '^$' "$out/trace.err" | head -3)"

# ---- kiln run --json and text -----------------------------------------------------------------
for mode in json text; do
	flag=$([ $mode = json ] && echo --json)
	if ! start_run "$out/run.$mode" "$out/run.err" tests/metrics/flood.lisp -w $flag; then
		fail run-$mode-start "$(cat "$out/run.err")"
		continue
	fi
	$trigger
	# the two records, printed as they come
	for _ in $(seq 100); do [ "$(grep -ac -- '-bad' "$out/run.$mode")" -ge 2 ] && break; sleep 0.05; done
	stop_run || fail run-$mode-stop "still running 2 s after SIGINT"
	if [ $mode = json ]; then
		check run-json-event '"kiln\ufffd\ufffd-bad"
"kiln\ufffd\ufffd-bad"' "$(jsonl "$out/run.json" 'd["comm"] if d.get("event") == "call" and "-bad" in d["comm"] else None')"
		check run-json-parses "" "$(jsonl "$out/run.json" 'None')"
	else
		check run-text-event 'comm="kiln\xff\xfe-bad"
comm="kiln\xff\xfe-bad"' "$(grep -ao 'comm="kiln[^ ]*-bad"' "$out/run.text")"
	fi
done
exit 0

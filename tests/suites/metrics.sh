#!/usr/bin/env bash
# metrics.sh — `kiln run --metrics ADDR:PORT`: the maps as Prometheus text exposition, read at
# each scrape. The program (tests/metrics/flows.lisp) leaves its maps alone; the test fills
# them through --pin with `kiln map set`, so every value is known exactly. Checked: the exact
# lines of /metrics over HTTP (a struct key's labels: ipv4 address, port, char-array string;
# an integer key as label key; a per-CPU value summed over the CPUs; a log2 histogram's
# cumulative buckets, approximate _sum and _count), a change seen at the next scrape, 404 for
# another path, a bind failure's message, SIGINT stopping kiln run within 2 s; a real
# Prometheus (Debian's prometheus package) scraping kiln every second: its query API returns
# the series with their labels and values, and histogram_quantile over the buckets; then the
# server under load (stalling clients during an event flood, against a baseline run: see
# "under load" below), :PORT on IPv4 and IPv6, and a comm that is not UTF-8 in a label value.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
pin=/sys/fs/bpf/kiln-metrics-$$
out=$(mktemp -d)
k=
pp=
trap '[ -n "$k" ] && kill -KILL $k 2>/dev/null; [ -n "$pp" ] && kill -KILL $pp 2>/dev/null; "$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" "$out"' EXIT
SUITE=metrics
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
prog=tests/metrics/flows.lisp

# free_port: a loopback TCP port nothing listens on now
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ---- a port already taken is a clear error --------------------------------------------------
port=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(5)' "$port" & busy=$!
for i in $(seq 100); do ss -ltn 2>/dev/null | grep -q "127.0.0.1:$port " && break; sleep 0.05; done
"$KILN" run $prog -w --metrics "127.0.0.1:$port" >/dev/null 2>"$out/bind.err"; rc=$?
kill $busy 2>/dev/null; wait $busy 2>/dev/null
check bind-in-use "1 kiln run: --metrics 127.0.0.1:$port: cannot listen: Address already in use" \
	"$rc $(grep -- --metrics "$out/bind.err")"
"$KILN" run $prog -w --metrics nonsense >/dev/null 2>"$out/bad.err"; rc=$?
check bad-spec "1 kiln run: --metrics 'nonsense' is not ADDR:PORT" "$rc $(cat "$out/bad.err")"

# ---- /metrics over HTTP, exact lines ----------------------------------------------------------
port=$(free_port)
if ! start_run "$out/a.out" "$out/a.err" $prog -w --pin "$pin" --metrics "127.0.0.1:$port"; then
	fail run-start "$(cat "$out/a.err")"
	exit 0
fi
url=http://127.0.0.1:$port/metrics
"$KILN" map set "$pin/maps/bytes" '{"addr": "10.1.2.3", "port": 443, "tag": "web"}' 1234
"$KILN" map set "$pin/maps/bytes" '{"addr": "192.168.0.9", "port": 53, "tag": "dns"}' 77
"$KILN" map set "$pin/maps/hits" 7 3
"$KILN" map set "$pin/maps/temps" 2 -5
"$KILN" map set "$pin/maps/pkts" 5 2        # 2 on every CPU: served summed
for kv in "0 1" "1 2" "3 4"; do "$KILN" map set "$pin/maps/lat" $kv; done
ncpu=$("$KILN" map get "$pin/maps/pkts" 5 --json | grep -o '"value":\[[0-9,]*\]' | tr -cd , | wc -c)
ncpu=$((ncpu + 1))
curl -s -D "$out/head" "$url" >"$out/m1"
check content-type "Content-Type: text/plain; version=0.0.4; charset=utf-8" "$(grep -i '^content-type' "$out/head" | tr -d '\r')"
check status-200 "HTTP/1.1 200 OK" "$(head -1 "$out/head" | tr -d '\r')"
check counter-struct-key "# HELP kiln_bytes u64 values of map bytes
# TYPE kiln_bytes counter
kiln_bytes{addr=\"10.1.2.3\",port=\"443\",tag=\"web\"} 1234
kiln_bytes{addr=\"192.168.0.9\",port=\"53\",tag=\"dns\"} 77" \
	"$(grep '^# [A-Z]* kiln_bytes ' "$out/m1"; grep '^kiln_bytes{' "$out/m1" | sort)"
check counter-int-key "# TYPE kiln_hits counter
kiln_hits{key=\"7\"} 3" "$(grep -E '^# TYPE kiln_hits |^kiln_hits' "$out/m1")"
check gauge-signed "# TYPE kiln_temps gauge
kiln_temps{key=\"2\"} -5" "$(grep -E '^# TYPE kiln_temps |^kiln_temps' "$out/m1")"
check percpu-summed "kiln_pkts{key=\"5\"} $((2 * ncpu))" "$(grep '^kiln_pkts{' "$out/m1")"
# kiln's (log2 x): 0 and 1 in [0, 1], 2..3, 8..15: cumulative 1, 3, 3, 7; sum from the lower
# bounds 0*1 + 2*2 + 8*4 = 36
check hist-type "# TYPE kiln_lat histogram" "$(grep '^# TYPE kiln_lat ' "$out/m1")"
check hist-buckets 'kiln_lat_bucket{le="1"} 1
kiln_lat_bucket{le="3"} 3
kiln_lat_bucket{le="7"} 3
kiln_lat_bucket{le="15"} 7
kiln_lat_bucket{le="31"} 7' "$(grep '^kiln_lat_bucket' "$out/m1" | head -5)"
check hist-tail 'kiln_lat_bucket{le="9223372036854775807"} 7
kiln_lat_bucket{le="+Inf"} 7
kiln_lat_sum 36
kiln_lat_count 7' "$(grep '^kiln_lat_' "$out/m1" | tail -4)"
# le 1, 3, 7, ... 2^63 - 1: 63 bounded buckets and +Inf
check hist-bucket-lines 64 "$(grep -c '^kiln_lat_bucket' "$out/m1")"
# read at scrape time
"$KILN" map set "$pin/maps/hits" 7 10
check rescrape 'kiln_hits{key="7"} 10' "$(curl -s "$url" | grep '^kiln_hits{')"
check not-found "404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/other")"

# ---- a real Prometheus scraping kiln ---------------------------------------------------------
if ! command -v prometheus >/dev/null; then
	echo "SKIP $SUITE/prometheus: prometheus is not installed (make deps installs it)"
else
	ppport=$(free_port)
	cat >"$out/prom.yml" <<-YML
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: kiln
	    static_configs:
	      - targets: ['127.0.0.1:$port']
	YML
	prometheus --config.file="$out/prom.yml" --storage.tsdb.path="$out/tsdb" \
		--web.listen-address="127.0.0.1:$ppport" >"$out/prom.log" 2>&1 & pp=$!
	# q EXPR: the query's result as "labels=value" lines, sorted (labels without job/instance)
	q() {
		curl -s --max-time 2 -G "http://127.0.0.1:$ppport/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
rows = []
for r in d.get("data", {}).get("result", []):
    m = {k: v for k, v in r["metric"].items() if k not in ("job", "instance")}
    rows.append(",".join("%s=%s" % kv for kv in sorted(m.items())) + " " + r["value"][1])
print("\n".join(sorted(rows)))'
	}
	# wait_q EXPR WANT: the query's answer once it is WANT, else the last one after 30 s
	wait_q() {
		local i got=
		for i in $(seq 150); do
			got=$(q "$1")
			[ "$got" == "$2" ] && break
			kill -0 $pp 2>/dev/null || break
			sleep 0.2
		done
		printf '%s' "$got"
	}
	want='__name__=kiln_bytes,addr=10.1.2.3,port=443,tag=web 1234
__name__=kiln_bytes,addr=192.168.0.9,port=53,tag=dns 77'
	check prom-struct-labels "$want" "$(wait_q kiln_bytes "$want")"
	check prom-int-key '__name__=kiln_hits,key=7 10' "$(wait_q kiln_hits '__name__=kiln_hits,key=7 10')"
	check prom-percpu "__name__=kiln_pkts,key=5 $((2 * ncpu))" "$(wait_q kiln_pkts "__name__=kiln_pkts,key=5 $((2 * ncpu))")"
	check prom-hist-count '__name__=kiln_lat_count 7' "$(wait_q kiln_lat_count '__name__=kiln_lat_count 7')"
	# the median of 7 is the 4th: in (7, 15]; Prometheus interpolates linearly in the bucket:
	# 7 + 8 * (3.5 - 3) / 4 = 8
	check prom-quantile ' 8' "$(wait_q 'histogram_quantile(0.5, kiln_lat_bucket)' ' 8')"
	check prom-up '__name__=up 1' "$(wait_q up '__name__=up 1')"
	kill -TERM $pp; wait $pp 2>/dev/null; pp=
fi

if stop_run; then pass sigint-bounded; else fail sigint-bounded "still running 2 s after SIGINT"; fi

# ---- under load: clients that would stall a server, while a flood of events runs ------------
# tests/metrics/flood.lisp sends a ring buffer record for every getresgid() call, which the
# paced tool makes RATE times a second for LOAD_S seconds (nothing else makes that call), and
# kiln run prints each. Two runs, alike but for the clients: a baseline with only the scrapes,
# and one where tests/metrics/pester.py also holds 500 idle connections, 10 that drip a request
# a byte every 0.5 s and 10 that send requests and never read the answers. In both: every
# scrape (every 0.25 s, a deadline of 1 s from connect to the answer's end) answers in time;
# SIGINT, sent while the clients are still there, ends kiln run within 1 s (timed to 10 ms);
# and with the clients kiln loses no more records than without them (drops at most the
# baseline's plus 1% of the calls). The server cuts every stalling connection at its 10 s
# deadline (not before 9.5 s, not after 11.5 s). Also: :PORT answers on 127.0.0.1 and [::1]; a
# comm that is not UTF-8 (set with prctl) is served escaped, and promtool parses the scrape.
RATE=20000
LOAD_S=12
pz=
trap '[ -n "$k" ] && kill -KILL $k 2>/dev/null; [ -n "$pp" ] && kill -KILL $pp 2>/dev/null; [ -n "$pz" ] && kill -KILL $pz 2>/dev/null; "$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" "$out"' EXIT

# wait_for SECONDS COMMAND...: 0 once COMMAND succeeds, 1 after SECONDS
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@"; do [ $SECONDS -ge $end ] && return 1; sleep 0.05; done
}

# sigint_ms: SIGINT to the kiln run in $k, and the ms until it exited (9999: still there after
# 3 s, then killed), printed
sigint_ms() {
	local t0 t1 i
	t0=$EPOCHREALTIME
	kill -INT $k
	for i in $(seq 300); do kill -0 $k 2>/dev/null || break; sleep 0.01; done
	t1=$EPOCHREALTIME
	if kill -0 $k 2>/dev/null; then kill -KILL $k; wait $k; k=; echo 9999; return; fi
	wait $k; k=
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }'
}

# load_run NAME PORT [--attack]: one run (kiln already started by the caller, in $k, with its
# output in $out/NAME.out): pester.py's clients, the flood, SIGINT. Sets lr_ms (SIGINT to exit),
# lr_made (calls made), lr_records and lr_drops (kiln's report); pester's stats in NAME.json.
load_run() {
	local name=$1 port=$2; shift 2
	lr_ms=9999 lr_made=0 lr_records=0 lr_drops=0
	python3 tests/metrics/pester.py 127.0.0.1 "$port" $LOAD_S "$out/$name.json" "$@" >"$out/$name.pester" 2>&1 & pz=$!
	if ! wait_for 30 grep -q ready "$out/$name.pester"; then
		fail "$name-clients" "pester.py not ready after 30 s: $(tail -c 300 "$out/$name.pester" | tr '\n' '|')"
		kill -KILL $pz; wait $pz 2>/dev/null; pz=
		lr_ms=$(sigint_ms)
		return 1
	fi
	lr_made=$("$BUILD/tests/paced" $RATE $LOAD_S)
	wait_for 20 test -f "$out/$name.json" || fail "$name-clients" "no stats from pester.py: $(cat "$out/$name.pester")"
	lr_ms=$(sigint_ms)
	kill -KILL $pz; wait $pz 2>/dev/null; pz=
	local rep
	rep=$(grep '^events: ' "$out/$name.out")
	lr_records=$(sed -n 's/.*records=\([0-9]*\).*/\1/p' <<<"$rep")
	lr_drops=$(sed -n 's/.*drops=\([0-9]*\).*/\1/p' <<<"$rep")
	rm -f "$out/$name.out"     # a line a record: megabytes
	return 0
}

# scrape_figures NAME: "N scrapes, F failed, p50 X ms, max Y ms" from NAME.json; "bad" lines
# for failed or late scrapes
scrape_figures() {
	[ -f "$out/$1.json" ] || { echo "no figures"; return; }
	python3 - "$out/$1.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	lat = d["scrapes"]
	ok = sorted(x for x in lat if x is not None)
	p50 = ok[len(ok) // 2] if ok else -1
	print("%d scrapes, %d failed, p50 %.1f ms, max %.1f ms" % (len(lat), lat.count(None), p50, ok[-1] if ok else -1))
	PY
}

port=$(free_port)
if ! start_run "$out/base.out" "$out/base.err" tests/metrics/flood.lisp -w --metrics "127.0.0.1:$port"; then
	fail load-start "$(cat "$out/base.err")"
	exit 0
fi
# a comm that is not UTF-8 in a label value: escaped as \xHH text, and promtool parses it
python3 tests/names/badcomm.py 1   # comm: kiln, the bytes FF FE, -bad
curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >"$out/bad.prom"
check label-not-utf8 'kiln_calls{comm="kiln\\xff\\xfe-bad"} 1' "$(grep -a -- '-bad"}' "$out/bad.prom")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$out/bad.prom" >"$out/promtool.out" 2>&1; rc=$?
	# exit 3 and lines of its own are lint (counters without _total); 1 is a parse error
	if [ $rc -ne 1 ] && ! grep -q 'error' "$out/promtool.out" && grep -qF 'kiln\\xff' "$out/bad.prom"; then pass promtool-parses
	else fail promtool-parses "exit $rc: $(cat "$out/promtool.out")"; fi
else
	echo "SKIP $SUITE/promtool-parses: promtool is not installed (make deps installs prometheus)"
fi
load_run base $port
base_ms=$lr_ms base_drops=$lr_drops base_records=$lr_records base_made=$lr_made
base_fig=$(scrape_figures base)

port=$(free_port)
if ! start_run "$out/attack.out" "$out/attack.err" tests/metrics/flood.lisp -w --metrics ":$port"; then
	fail load-start-attack "$(cat "$out/attack.err")"
	exit 0
fi
check dual-stack-ipv4 200 "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/metrics")"
if python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
	check dual-stack-ipv6 200 "$(curl -gs -o /dev/null -w '%{http_code}' --max-time 2 "http://[::1]:$port/metrics")"
else
	echo "SKIP $SUITE/dual-stack-ipv6: this machine has no IPv6 loopback"
fi
load_run attack $port --attack
attack_fig=$(scrape_figures attack)
echo "    baseline: $base_fig; SIGINT to exit $base_ms ms; records $base_records, drops $base_drops of $base_made calls"
echo "    attacked: $attack_fig; SIGINT to exit $lr_ms ms; records $lr_records, drops $lr_drops of $lr_made calls"
[ -f "$out/attack.json" ] && python3 - "$out/attack.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for kind, ages in sorted(d["cut"].items()):
	    print("    attacked: %-6s connections cut by the server: %d, after %s s" %
	          (kind, len(ages), "%.2f..%.2f" % (min(ages), max(ages)) if ages else "-"))
	PY
for run in base attack; do
	fig=$([ $run = base ] && echo "$base_fig" || echo "$attack_fig")
	if [[ $fig == *" 0 failed"* ]] && [ -f "$out/$run.json" ] && python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["scrapes"]; sys.exit(not (len(l) >= 20 and None not in l and max(l) < 1000))' "$out/$run.json"
	then pass "load-scrapes-$run ($fig)"; else fail "load-scrapes-$run" "$fig"; fi
done
if [ "$base_ms" -lt 1000 ]; then pass "load-sigint-base ($base_ms ms)"; else fail load-sigint-base "$base_ms ms"; fi
if [ "$lr_ms" -lt 1000 ]; then pass "load-sigint-attack ($lr_ms ms, 520 clients connected)"; else fail load-sigint-attack "$lr_ms ms"; fi
# every call reached kiln (as a record or a drop), in both runs
if [ $((base_records + base_drops)) -ge "$base_made" ] && [ $((lr_records + lr_drops)) -ge "$lr_made" ] && [ "$lr_made" -gt 0 ]
then pass load-flood-counted; else fail load-flood-counted "base $base_records+$base_drops of $base_made, attacked $lr_records+$lr_drops of $lr_made"; fi
if [ "$lr_made" -gt 0 ] && [ "$lr_drops" -le $((base_drops + lr_made / 100)) ]; then pass "load-drops ($lr_drops attacked, $base_drops baseline)"
else fail load-drops "$lr_drops drops with the clients, $base_drops without (of $lr_made calls)"; fi
# the deadline: every stalling kind cut, each after 9.5..11.5 s
got=$([ -f "$out/attack.json" ] && python3 - "$out/attack.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	print(" ".join("%s:%s" % (k, "ok" if v and 9.5 <= min(v) and max(v) <= 11.5 else "bad") for k, v in sorted(d["cut"].items())))
	PY
)
check load-deadline "drip:ok idle:ok noread:ok" "$got"
exit 0

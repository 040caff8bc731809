#!/usr/bin/env bash
# metrics.sh — `kiln run --metrics ADDR:PORT`: the maps as Prometheus text exposition, read at
# each scrape. The program (tests/metrics/flows.lisp) leaves its maps alone; the test fills
# them through --pin with `kiln map set`, so every value is known exactly. Checked: the exact
# lines of /metrics over HTTP (a struct key's labels: ipv4 address, port, char-array string;
# an integer key as label key; a per-CPU value summed over the CPUs; a log2 histogram's
# cumulative buckets, approximate _sum and _count), a change seen at the next scrape, 404 for
# another path, a bind failure's message, SIGINT stopping kiln run within 2 s; and a real
# Prometheus (Debian's prometheus package) scraping kiln every second: its query API returns
# the series with their labels and values, and histogram_quantile over the buckets.
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
exit 0

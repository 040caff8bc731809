#!/usr/bin/env bash
# probe.sh — `kiln probe` against the running kernel and against bpftool's own probe
# (`bpftool feature probe kernel --json` and `... macros`): the program and map types both
# know must agree exactly; the helpers of xdp, kprobe, tracepoint and socket_filter must be
# exactly those the verifier accepts a call to (asked one by one by tests/harness/
# helper_verdict, which shares no code with kiln), and agree with bpftool's lists, except
# where bpftool's libbpf 1.1 takes the newer verifier's "program of this type cannot use
# helper" for support (then bpftool lists more, and every extra one must be such a refusal);
# known facts of a 6.x kernel; --json is JSON; the macros and the JSON read back into the
# same output, bpftool's files read as bpftool's answers; a misspelt --prog-type is refused
# with the nearest names; --prog-type probes one type's helpers alone.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
tmp=$(mktemp -d /tmp/kiln-probe-$$.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
SUITE=probe
. "${ROOT:-$PWD}/tests/harness/report.sh"

if ! "$KILN" probe --json >"$tmp/k.json" 2>"$tmp/err"; then
	fail run "$(cat "$tmp/err")"
	exit 0
fi
if python3 -m json.tool "$tmp/k.json" >/dev/null 2>"$tmp/err"; then pass json-valid
else fail json-valid "$(cat "$tmp/err")"; fi
"$KILN" probe --macros >"$tmp/k.h"
"$KILN" probe >"$tmp/k.txt"

# ---- known facts of this kernel (6.x) ---------------------------------------------------
facts=$(python3 - "$tmp/k.json" <<'EOF'
import json, os, sys
k = json.load(open(sys.argv[1]))
def sysctl(p):
    try: return int(open(p).read())
    except Exception: return None
out = []
out.append("ringbuf=%s" % k["map_types"].get("have_ringbuf_map_type"))
out.append("xdp-prog=%s" % k["program_types"].get("have_xdp_prog_type"))
out.append("xdp-bpf_loop=%s" % ("bpf_loop" in k["helpers"]["xdp_available_helpers"]))
out.append("xdp-adjust-head=%s" % ("bpf_xdp_adjust_head" in k["helpers"]["xdp_available_helpers"]))
out.append("kprobe-adjust-head=%s" % ("bpf_xdp_adjust_head" in k["helpers"]["kprobe_available_helpers"]))
out.append("misc-bpf_loop=%s" % k["misc"]["have_bpf_loop_helper"])
out.append("misc-ringbuf=%s" % k["misc"]["have_ringbuf_map"])
out.append("btf=%s" % (k["misc"]["have_kernel_btf"] == os.access("/sys/kernel/btf/vmlinux", os.R_OK)))
out.append("jit=%s" % (k["system_config"].get("bpf_jit_enable") == sysctl("/proc/sys/net/core/bpf_jit_enable")))
out.append("unpriv=%s" % (k["system_config"].get("unprivileged_bpf_disabled") == sysctl("/proc/sys/kernel/unprivileged_bpf_disabled")))
print(" ".join(out))
EOF
)
check facts "ringbuf=True xdp-prog=True xdp-bpf_loop=True xdp-adjust-head=True kprobe-adjust-head=False misc-bpf_loop=True misc-ringbuf=True btf=True jit=True unpriv=True" "$facts"

# ---- the helpers, one by one, by the verifier's own word --------------------------------
for t in xdp kprobe tracepoint socket_filter; do
	# every helper name kiln or its macros mention, asked of the verifier directly
	names=$(grep -o "BPF__PROG_TYPE_${t}__HELPER_[a-z0-9_]*" "$tmp/k.h" | sed "s/.*__HELPER_//")
	if [ -z "$names" ]; then fail "verdict-$t" "no helper lines for $t in kiln's macros"; continue; fi
	# shellcheck disable=SC2086
	"$BUILD/tests/helper_verdict" "$t" $names >"$tmp/verdict.$t" 2>&1
	want=$(awk '$2 == "ok" { print $1 }' "$tmp/verdict.$t" | sort)
	got=$(python3 -c "import json,sys; print('\n'.join(sorted(json.load(open(sys.argv[1]))['helpers'][sys.argv[2]+'_available_helpers'])))" "$tmp/k.json" "$t")
	n=$(wc -l <<<"$want")
	if [ "$want" == "$got" ] && [ "$n" -gt 40 ]; then pass "verdict-$t"
	else fail "verdict-$t" "$(diff <(echo "$want") <(echo "$got") | head -5) ($n helpers)"; fi
done

# ---- against bpftool ---------------------------------------------------------------------
if ! command -v bpftool >/dev/null; then
	echo "SKIP probe/bpftool: bpftool is not installed"
	exit 0
fi
bpftool feature probe kernel --json >"$tmp/b.json" 2>/dev/null
bpftool feature probe macros >"$tmp/b.h" 2>/dev/null
for sec in program_types map_types; do
	out=$(python3 - "$tmp/k.json" "$tmp/b.json" "$sec" <<'EOF'
import json, sys
k, b, sec = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
both = set(k[sec]) & set(b[sec])
diff = sorted(x for x in both if k[sec][x] != b[sec][x])
missing = sorted(set(b[sec]) - set(k[sec]))
print("%d both; differ: %s; only bpftool: %s" % (len(both), diff, missing))
EOF
)
	case $out in
	[2-9][0-9]" both; differ: []; only bpftool: []") pass "bpftool-$sec" ;;
	*) fail "bpftool-$sec" "$out" ;;
	esac
done
for t in xdp kprobe tracepoint socket_filter; do
	out=$(python3 - "$tmp/k.json" "$tmp/b.json" "$tmp/b.h" "$t" "$tmp/verdict.$t" <<'EOF'
import json, re, sys
k, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
t = sys.argv[4]
# the helpers bpftool knows: every one its macros name, with 0 or 1
known = set(re.findall(r"__HELPER_(\w+) [01]", open(sys.argv[3]).read()))
K = set(k["helpers"][t + "_available_helpers"]) & known
B = set(b["helpers"][t + "_available_helpers"])
refused = {l.split()[0] for l in open(sys.argv[5]) if " refused: " in l}
# libbpf 1.1 (bpftool 7.1) takes "program of this type cannot use helper" for support:
# its kprobe programs then "have" bpf_xdp_adjust_head
broken = "bpf_xdp_adjust_head" in b["helpers"]["kprobe_available_helpers"]
if not broken:
    print("exact" if K == B else "differ: kiln only %s, bpftool only %s" % (sorted(K - B), sorted(B - K)))
elif not K <= B:
    print("kiln lists what bpftool does not: %s" % sorted(K - B))
elif not (B - K) <= refused or not B - K:
    print("bpftool's extras not all refused: %s" % sorted((B - K) - refused))
else:
    print("subset, %d extras all refused" % len(B - K))
EOF
)
	case $out in
	exact | "subset, "[1-9]*" extras all refused") pass "bpftool-helpers-$t" ;;
	*) fail "bpftool-helpers-$t" "$out" ;;
	esac
done
# kiln's macros hold every program and map type line of bpftool's, word for word
extra=$(grep -E '^#define (NO_)?HAVE_[A-Z0-9_]*_(PROG|MAP)_TYPE$' "$tmp/b.h" | grep -vxF -f "$tmp/k.h")
n=$(grep -cE '_(PROG|MAP)_TYPE$' "$tmp/b.h")
if [ -z "$extra" ] && [ "$n" -gt 50 ]; then pass bpftool-macros-types
else fail bpftool-macros-types "bpftool lines kiln lacks: $(head -3 <<<"$extra")"; fi

# ---- files read back ------------------------------------------------------------------------
"$KILN" probe --from "$tmp/k.h" --macros >"$tmp/k2.h" 2>&1
if cmp -s "$tmp/k.h" "$tmp/k2.h" && [ -s "$tmp/k.h" ]; then pass macros-round-trip
else fail macros-round-trip "$(diff "$tmp/k.h" "$tmp/k2.h" | head -5)"; fi
"$KILN" probe --from "$tmp/k.json" --json >"$tmp/k2.json" 2>&1
if cmp -s "$tmp/k.json" "$tmp/k2.json"; then pass json-round-trip
else fail json-round-trip "$(diff "$tmp/k.json" "$tmp/k2.json" | head -5)"; fi
"$KILN" probe --from "$tmp/k.json" --macros >"$tmp/k3.h" 2>&1
if cmp -s "$tmp/k.h" "$tmp/k3.h"; then pass json-to-macros
else fail json-to-macros "$(diff "$tmp/k.h" "$tmp/k3.h" | head -5)"; fi
"$KILN" probe --from "$tmp/k.h" >"$tmp/k2.txt" 2>&1
if cmp -s "$tmp/k.txt" "$tmp/k2.txt"; then pass macros-to-text
else fail macros-to-text "$(diff "$tmp/k.txt" "$tmp/k2.txt" | head -5)"; fi
# bpftool's macros header, as Cilium's ReadFeatureProbes reads it: bpftool's own answers
for f in b.h b.json; do
	"$KILN" probe --from "$tmp/$f" --json >"$tmp/r.json"
	out=$(python3 - "$tmp/r.json" "$tmp/b.json" <<'EOF'
import json, sys
r, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = [s for s in ("program_types", "map_types") if r.get(s) != b[s]]
for key, lst in b["helpers"].items():
    if sorted(r.get("helpers", {}).get(key, [])) != sorted(lst):
        bad.append(key)
for key, v in b["misc"].items():
    if key in ("have_large_insn_limit", "have_bounded_loops") and r.get("misc", {}).get(key) != v:
        bad.append(key)
print("same" if not bad else "differ: %s" % bad[:5])
EOF
)
	check "read-bpftool-$f" same "$out"
done
err=$("$KILN" probe --from "$tmp/nonexistent" 2>&1); rc=$?
check from-missing "1 kiln probe: open $tmp/nonexistent: No such file or directory" "$rc $err"
err=$("$KILN" probe --from README.md 2>&1); rc=$?
check from-not-a-probe "1 kiln probe: README.md: no probe results in it (neither bpftool's or kiln's macros nor their JSON)" "$rc $err"
printf '{"program_types":{"have_xdp_prog_type":true}' >"$tmp/short.json"
err=$("$KILN" probe --from "$tmp/short.json" 2>&1); rc=$?
check from-short-json "1 kiln probe: $tmp/short.json: the JSON ends early" "$rc $err"

# ---- --prog-type ------------------------------------------------------------------------
err=$("$KILN" probe --prog-type xpd 2>&1); rc=$?
check prog-type-misspelt "2 kiln probe: unknown program type 'xpd'; did you mean xdp?" "$rc $err"
err=$("$KILN" probe --prog-type sk_sb 2>&1); rc=$?
check prog-type-nearest "2 kiln probe: unknown program type 'sk_sb'; did you mean sk_skb or sk_msg?" "$rc $err"
err=$("$KILN" probe --prog-type qqqqqqqqqq 2>&1); rc=$?
check prog-type-far "2 kiln probe: unknown program type 'qqqqqqqqqq'; \`kiln probe\` lists the program types" "$rc $err"
one=$("$KILN" probe --prog-type xdp --json | python3 -c "import json,sys; h=json.load(sys.stdin)['helpers']; print(list(h), sorted(h['xdp_available_helpers']))")
all=$(python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['helpers']; print(['xdp_available_helpers'], sorted(h['xdp_available_helpers']))" "$tmp/k.json")
check prog-type-alone "$all" "$one"
# a kiln :type keyword and a number name program types too
check prog-type-keyword "sched_cls_available_helpers" "$("$KILN" probe --prog-type tc --json | python3 -c "import json,sys; print(*json.load(sys.stdin)['helpers'])")"
check prog-type-number "xdp_available_helpers" "$("$KILN" probe --prog-type 6 --json | python3 -c "import json,sys; print(*json.load(sys.stdin)['helpers'])")"
check prog-type-unprobed "  tracing: the program type is not available" "$("$KILN" probe --prog-type tracing | grep '^  tracing:')"
err=$("$KILN" probe --json --macros 2>&1); rc=$?
check two-formats "2 kiln probe: --json and --macros are two formats; choose one" "$rc $err"
# --full adds the helpers that write to the kernel log, which are otherwise left out
full=$("$KILN" probe --prog-type socket_filter --full --json | python3 -c "import json,sys; print('bpf_trace_printk' in json.load(sys.stdin)['helpers']['socket_filter_available_helpers'])")
plain=$(python3 -c "import json,sys; k=json.load(open(sys.argv[1])); print('bpf_trace_printk' in k['helpers']['socket_filter_available_helpers'], 'bpf_trace_printk' in k['helpers_not_probed'])" "$tmp/k.json")
check full "True False True" "$full $plain"

# ---- without CAP_BPF: the probe says so; a saved probe still reads -------------------------
if command -v capsh >/dev/null; then
	unpriv=(capsh --drop=cap_bpf,cap_sys_admin,cap_perfmon --)
	o=$("${unpriv[@]}" -c "exec $KILN probe" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q "^kiln probe: this user lacks the privilege to use BPF" <<<"$o"; then pass unprivileged
	else fail unprivileged "status $rc: $(head -1 <<<"$o")"; fi
	o=$("${unpriv[@]}" -c "exec $KILN probe --from $tmp/k.h --macros" 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$o" == "$(cat "$tmp/k.h")" ]; then pass unprivileged-from
	else fail unprivileged-from "status $rc: $(head -1 <<<"$o")"; fi
else
	fail unprivileged "capsh is missing (Debian package libcap2-bin; make deps installs it)"
fi

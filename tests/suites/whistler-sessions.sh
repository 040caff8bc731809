#!/usr/bin/env bash
# whistler-sessions.sh — the acceptance corpus of Whistler's own sessions: every Lisp block of
# Whistler's book (book/src/**), README and manual (doc/MANUAL.md) that loads programs from the
# host (with-bpf-session, with-bpf-object, open-bpf-object), read from the Whistler peer at test
# time (never kept in kiln), runs under `kiln run` and under Whistler (SBCL with Whistler's loader
# from the same checkout, as sessions.sh runs it), each in a sandbox of its own
# (tests/harness/sandbox_ns.sh: its own eth0, /sys/fs/cgroup and /tmp), on the same activity:
# - a program on "eth0" (xdp): 7 frames sent into eth0 from its veth peer;
# - a program on "/sys/fs/cgroup" (cgroup_skb/egress): 5 UDP datagrams sent from that cgroup;
# - a kprobe: none (this kernel has no kprobe events: both runs fail to attach, kiln with its
#   error at the attach);
# - the LSM hook userns_create (the manual's deny-unshare): `unshare -U true` is refused while
#   it runs (each run alone, interrupted as soon as that is seen: the hook is the machine's).
# A run that does not end by itself is interrupted (Ctrl-C) once the activity is done.
# Then, per block: both ran: their output must be the same (Whistler's loader progress lines
# dropped; each line of counts but the last has its numbers taken out, as the runs sample at
# their own moments; the last is the exact count); kiln could not run it but Whistler could:
# FAIL; neither could (a template, a kprobe here): PASS if kiln said why as
# file:line:col: error; kiln ran it and Whistler could not: PASS, said so. The closing line
# counts them, and gives both start-up times (ms from start to attached).
# First, kiln's own file of the loader API's attach calls, tests/sandbox/loader-attach.lisp, in a
# sandbox, on the same activity (it needs no peer). Without the peer, the corpus says SKIP;
# without SBCL, too (there is nothing to compare with), with why.
# Two blocks need a setup the page describes in prose: hello-ebpf's with-bpf-object loads
# count.bpf.o, compiled from the page's first block ("either way, you get a standard BPF ELF
# object"): here that block followed by (compile-to-elf "count.bpf.o"); cgroup-counter's loads
# /tmp/cgroup-count.bpf.o, which the page's "BPF source" block writes: that block first.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=whistler-sessions
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
. "${ROOT:-$PWD}/tests/harness/peers.sh"
. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
tmp=$(mktemp -d)
cgroot=$(cgroup2_root)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	[ -n "$cgroot" ] && rmdir "$cgroot/kiln-wsess-$$-"* 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

peer=1
peer_git "$WHISTLER_DIR" rev-parse -q --verify HEAD >/dev/null 2>&1 || [ -f "$WHISTLER_DIR/README.md" ] || peer=
for need in python3 unshare nsenter ip bpftool; do
	command -v $need >/dev/null || { echo "SKIP $SUITE: no $need on this machine"; exit 0; }
done
[ -n "$cgroot" ] || { echo "SKIP $SUITE: no cgroup v2 hierarchy mounted"; exit 0; }

# ---- the corpus: the blocks, extracted from the peer now --------------------------------
mkdir "$tmp/corpus" "$tmp/W"
if [ -z "$peer" ]; then :
elif [ -f "$WHISTLER_DIR/whistler.asd" ]; then cp -r "$WHISTLER_DIR/." "$tmp/W/"
else peer_git "$WHISTLER_DIR" archive HEAD | tar -x -C "$tmp/W"; fi
[ -n "$peer" ] && python3 - "$tmp/W" "$tmp/corpus" <<'EOF'
import os, re, sys
src, out = sys.argv[1], sys.argv[2]
pages = ['README.md', 'doc/MANUAL.md'] + sorted(
    os.path.join(d, f)[len(src) + 1:] for d, _, fs in os.walk(os.path.join(src, 'book/src'))
    for f in fs if f.endswith('.md'))
# the setups the pages describe in prose (see the head of this suite): page -> {block: prefix}
def setups(page, blocks):
    if page.endswith('start/hello-ebpf.md'):
        return {i: blocks[0] + '\n(compile-to-elf "count.bpf.o")\n' for i, b in enumerate(blocks) if 'count.bpf.o' in b and 'with-bpf-object' in b}
    if page.endswith('cookbook/cgroup-counter.md'):
        first = [b for b in blocks if 'compile-to-elf' in b]
        return {i: first[0] for i, b in enumerate(blocks) if 'with-bpf-object' in b and first}
    return {}
for page in pages:
    path = os.path.join(src, page)
    if not os.path.exists(path):
        continue
    blocks = re.findall(r'```lisp\n(.*?)```', open(path).read(), re.S)
    pre = setups(page, blocks)
    for i, b in enumerate(blocks):
        if not re.search(r'with-bpf-session|with-bpf-object|open-bpf-object', b):
            continue
        name = re.sub(r'^book/src/', '', page)[:-3].replace('/', '-') + '-%d' % i
        kind = ('xdp' if re.search(r':section "xdp"|attach-obj-xdp', b) else
                'cgroup' if 'cgroup_skb/egress' in b or 'attach-obj-cgroup' in b else
                'lsm' if ':section "lsm/' in b else 'kprobe' if ':section "kprobe/' in b else 'none')
        with open(os.path.join(out, name + '.lisp'), 'w') as f:
            f.write(pre.get(i, '') + b)
        with open(os.path.join(out, 'list'), 'a') as f:
            f.write('%s %s\n' % (name, kind))
EOF
[ -z "$peer" ] || [ -s "$tmp/corpus/list" ] || { fail corpus "no session blocks found in the Whistler peer"; exit 0; }

# ---- Whistler's runs: SBCL with Whistler's loader (FASLs compiled once, with a deadline) --
sbcl=(env XDG_CACHE_HOME="$tmp/cache" sbcl --noinform --non-interactive --eval '(require :asdf)'
	--eval "(push #p\"$tmp/W/\" asdf:*central-registry*)"
	--eval '(let ((*error-output* (make-broadcast-stream))) (asdf:load-system "whistler/loader"))'
	--eval '(in-package #:whistler-loader-user)')

now_ms() { date +%s%3N; }
# attached KIND PID CG: the run's program is on its hook (the sandbox's eth0, its cgroup)
attached() {
	case $1 in
	xdp) nsenter -t "$2" -n ip link show eth0 2>/dev/null | grep -q ' xdp' ;;
	cgroup) bpftool cgroup show "$3" 2>/dev/null | grep -q egress ;;
	lsm) ! unshare -U true 2>/dev/null ;;
	*) return 1 ;;
	esac
}
# activity KIND PID CG: the same for both runs
activity() {
	case $1 in
	xdp) nsenter -t "$2" -n python3 -c '
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("p0", 0))
for i in range(7): s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + b"kiln" * 12)
' ;;
	cgroup) nsenter -t "$2" -n sh -c 'echo $$ > "$1/cgroup.procs" && exec python3 -c "
import socket
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind((\"127.0.0.1\", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5): s.sendto(b\"x\", r.getsockname())
"' sh "$3" ;;
	esac
}
want_count() { case $1 in xdp) echo 7 ;; cgroup) echo 5 ;; esac; }

# start WHO NAME KIND: run NAME under WHO (kiln, whistler) in a new sandbox; pid in $p, cgroup
# in $cg, start time in $t0
start() {
	local who=$1 n=$2
	cg=$cgroot/kiln-wsess-$$-$n-$who
	mkdir -p "$cg" "$tmp/$n.$who.d"
	cp "$tmp/corpus/$n.lisp" "$tmp/$n.lisp"
	t0=$(now_ms)
	if [ "$who" = kiln ]; then
		bash tests/harness/sandbox_ns.sh "$cg" "$tmp/$n.$who.d" "$tmp" "$KILN" run "$tmp/$n.lisp" \
			>"$tmp/$n.$who.out" 2>"$tmp/$n.$who.err" &
	else
		bash tests/harness/sandbox_ns.sh "$cg" "$tmp/$n.$who.d" "$tmp" "${sbcl[@]}" --load "$tmp/$n.lisp" \
			>"$tmp/$n.$who.out" 2>"$tmp/$n.$who.err" &
	fi
	p=$!
	pids+=("$p")
}
# settle WHO KIND: wait (15 s) for the run in $p to attach or end; its attach time in ms (or -)
# in att_WHO
settle() {
	local i a=-
	for i in $(seq 300); do
		if attached "$2" "$p" "$cg"; then a=$(( $(now_ms) - t0 )); break; fi
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	printf -v "att_$1" '%s' "$a"
}
# finish WHO: wait (15 s) for the run in $p to end, then Ctrl-C it, then kill it; status in st_WHO
finish() {
	local i s
	for i in $(seq 300); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
	kill -0 "$p" 2>/dev/null && kill -INT "$p"
	ended "$p" || { kill -KILL "$p"; ended "$p"; }
	s=$st
	printf -v "st_$1" '%s' "$s"
	rmdir "$cg" 2>/dev/null
}
# the output compared: Whistler's loader progress and SBCL's compiler notes dropped; in every
# line but the last holding digits, the digits taken out
norm() {
	grep -vE '^(;|Created map [^ ]+: fd=|Loaded [^ ]+: [0-9]+ insns|Compiled [0-9]+ programs? \()' "$1" |
		awk '{ l[NR] = $0; if ($0 ~ /[0-9]/) last = NR } END { for (i = 1; i <= NR; i++) { s = l[i]; if (i != last) gsub(/[0-9]+/, "N", s); print s } }'
}
ran() { [ "$1" = 0 ] || [ "$1" = 130 ]; }   # ended by itself, or by our Ctrl-C (a forever loop)

# ---- kiln's own file of the loader API's attach calls, in a sandbox: tests/sandbox/ -------
n=loader-attach
cg=$cgroot/kiln-wsess-$$-$n
mkdir -p "$cg" "$tmp/$n.d"
bash tests/harness/sandbox_ns.sh "$cg" "$tmp/$n.d" "$tmp" "$KILN" run "$PWD/tests/sandbox/$n.lisp" >"$tmp/$n.out" 2>"$tmp/$n.err" &
k=$!
pids+=("$k")
if wait_text "$tmp/$n.out" attached; then
	activity xdp "$k" "$cg"
	activity cgroup "$k" "$cg"
	if wait_text "$tmp/$n.out" detached; then
		left=$(nsenter -t "$k" -n ip link show eth0 | grep -c ' xdp'; nsenter -t "$k" -n bpftool net show dev eth0 | grep -c count_tc)
		check "$n/detached" "0 0" "$(echo $left)"
		nsenter -t "$k" -m touch "$tmp/$n.d/run/checked"
	fi
	ended || kill -KILL "$k"
	check "$n/exit" 0 "$st"
	check "$n/output" "#<ATTACHMENT xdp on eth0>
#<ATTACHMENT tc ingress on eth0>
#<ATTACHMENT cgroup_skb/egress on /sys/fs/cgroup>
attached
xdp 7, tc 7, cgroup egress 5
detached
kprobe: bpf-error
a kretprobe of a kprobe section: refused
closed: no object" "$(sed 's/ (tcx)>$/>/' "$tmp/$n.out")"   # a tcx link, or a clsact filter
else
	fail "$n/start" "$(cat "$tmp/$n.err")"
	kill -KILL "$k"
fi
rmdir "$cg" 2>/dev/null

# without SBCL (or Whistler's loader not loading in it) the corpus has nothing to be compared
# with: it says SKIP, and why
why=
if [ -z "$peer" ]; then
	peer_skip "$SUITE/corpus" "no Whistler checkout at $WHISTLER_DIR"
	exit 0
elif ! command -v sbcl >/dev/null; then why="no sbcl to run Whistler (make deps installs it)"
elif ! timeout 300 "${sbcl[@]}" >"$tmp/warm" 2>&1; then
	why="Whistler's loader did not load in SBCL: $(grep -v '^;' "$tmp/warm" | grep . | head -3 | tr '\n' ' ')"
fi
if [ -n "$why" ]; then
	echo "SKIP $SUITE/corpus: $why"
	exit 0
fi

# the sandbox's own start-up (namespaces, mounts, veth), in the times below too
mkdir "$tmp/base.d"; t0=$(now_ms); bash tests/harness/sandbox_ns.sh "$cgroot" "$tmp/base.d" "$tmp" true; base=$(( $(now_ms) - t0 ))
same=0 both_fail=0 kiln_fail=0 differ=0 only_kiln=0 times=
while read -r n kind; do
	if [ "$kind" = lsm ]; then   # the hook is the machine's: one run at a time
		start kiln "$n"; settle kiln "$kind"; finish kiln
		start whistler "$n"; settle whistler "$kind"; finish whistler
	else
		start kiln "$n"; pk=$p cgk=$cg t0k=$t0
		start whistler "$n"; pw=$p cgw=$cg t0w=$t0
		p=$pk cg=$cgk t0=$t0k; settle kiln "$kind"
		p=$pw cg=$cgw t0=$t0w; settle whistler "$kind"
		[ "$att_kiln" != - ] && activity "$kind" "$pk" "$cgk"
		[ "$att_whistler" != - ] && activity "$kind" "$pw" "$cgw"
		p=$pk cg=$cgk; finish kiln
		p=$pw cg=$cgw; finish whistler
	fi
	[ "$att_kiln" != - ] && times+=" $n $att_kiln/$att_whistler;"
	# Whistler's error: the condition's type and the message SBCL prints after it
	said=$(cat "$tmp/$n.whistler.err" "$tmp/$n.whistler.out" | awk '/^Unhandled / { t = $2; getline; getline; gsub(/^ +/, ""); print t ": " $0; exit }' | cut -c1-140)
	kerr=$(head -c 300 "$tmp/$n.kiln.err" | tr '\n' ' ')
	if ran "$st_kiln" && [ "$kind" != kprobe ] && { [ "$att_kiln" != - ] || [ "$kind" = none ]; }; then
		if ! ran "$st_whistler"; then
			pass "$n (kiln ran it; Whistler cannot: status $st_whistler, $said)"
		check "$n/kiln-count" "$(want_count "$kind")" "$(grep '[0-9]' "$tmp/$n.kiln.out" | tail -1 | grep -oE '[0-9]+' | tail -1)"; only_kiln=$((only_kiln + 1))
		elif [ "$(norm "$tmp/$n.kiln.out")" == "$(norm "$tmp/$n.whistler.out")" ]; then
			last=$(grep '[0-9]' "$tmp/$n.kiln.out" | tail -1 | grep -oE '[0-9]+' | tail -1)
			if [ -n "$(want_count "$kind")" ] && [ "$last" != "$(want_count "$kind")" ]; then
				fail "$n" "the same under both, but the last count is '$last', not $(want_count "$kind")"; differ=$((differ + 1))
			else
				pass "$n (the same under both)"; same=$((same + 1))
			fi
		else
			fail "$n" "kiln and Whistler differ: $(diff <(norm "$tmp/$n.kiln.out") <(norm "$tmp/$n.whistler.out") | head -8 | tr '\n' ' ')"
			differ=$((differ + 1))
		fi
	elif ran "$st_whistler" && [ "$att_whistler" != - ] || { [ "$kind" = none ] && [ "$st_whistler" = 0 ]; }; then
		fail "$n" "Whistler runs it, kiln cannot (status $st_kiln): $kerr"; kiln_fail=$((kiln_fail + 1))
	elif [ "$st_kiln" = 1 ] && grep -qE "^([^ ]*$n\.lisp:[0-9]+:[0-9]+: error: |kiln run: )" "$tmp/$n.kiln.err"; then
		# kiln's error at the form (file:line:col), or the kernel's refusal of a load
		pass "$n (neither can run it: kiln: $(grep -m1 -oE '(error: |kiln run: ).*' "$tmp/$n.kiln.err" | cut -c1-140); Whistler: ${said:-status $st_whistler})"
		both_fail=$((both_fail + 1))
	else
		fail "$n" "neither runs it, and kiln said no file:line:col error (status $st_kiln): $kerr"
		kiln_fail=$((kiln_fail + 1))
	fi
done <"$tmp/corpus/list"
# ---- the kprobe sessions under kiln, with a kprobe PMU of the shim's -------------------------
# This kernel has no kprobe events, so neither run above attaches them. Under
# tests/shim/callshim.c (a kprobe PMU of its own, its perf event and link answered with
# made-up fds) kiln's run of each goes on past the attach: the perf event of the function its
# section names, the link, the session's own loop until Ctrl-C, and the link detached and
# closed as it ends (status 0 or 130; or an error of the session's own at a later form).
shim=${BUILD:-$PWD/build}/tests/callshim.so
pmu=$tmp/shimroot/sys/bus/event_source/devices/kprobe
mkdir -p "$pmu/format"
echo 4242 >"$pmu/type"
echo config:0 >"$pmu/format/retprobe"
while read -r n kind; do
	[ "$kind" = kprobe ] || continue
	if [ ! -f "$shim" ]; then echo "SKIP $SUITE/$n/shim: no $shim (make test-bins)"; continue; fi
	# the function: bpf:attach's target (as Whistler's), else the section's
	fn=$(grep -o '(bpf:attach [^ ]* "[^"]*"' "$tmp/corpus/$n.lisp" | head -1 | sed 's|.* "||; s|"$||')
	[ -n "$fn" ] || fn=$(grep -o '"kprobe/[^"]*"' "$tmp/corpus/$n.lisp" | head -1 | sed 's|"kprobe/||; s|"$||')
	log=$tmp/$n.shim.log
	env LD_PRELOAD="$shim" CALLSHIM_LOG="$log" CALLSHIM_ROOT="$tmp/shimroot" CALLSHIM_PERF=ok CALLSHIM_LINK=ok 		"$KILN" run "$tmp/corpus/$n.lisp" >"$tmp/$n.shim.out" 2>"$tmp/$n.shim.err" &
	k=$!
	pids+=("$k")
	touch "$log"
	if ! wait_text "$log" BPF_LINK_CREATE; then
		fail "$n/shim" "no attach (status $(ended; echo $st)): $(head -c 300 "$tmp/$n.shim.err")"
		kill -KILL "$k" 2>/dev/null
		continue
	fi
	for i in $(seq 50); do [ -s "$tmp/$n.shim.out" ] && break; kill -0 "$k" 2>/dev/null || break; sleep 0.05; done
	kill -INT "$k" 2>/dev/null
	ended || { kill -KILL "$k"; ended; }
	if ! grep -qF "perf_event_open type=4242 config=0 config1=\"$fn\"" "$log"; then
		fail "$n/shim" "no kprobe perf event on $fn: $(grep perf_event_open "$log" | head -2 | tr '\n' ' ')"
	elif ! grep -q 'BPF_LINK_DETACH\|close fd=[0-9]* (made-up link)' "$log"; then
		fail "$n/shim" "the link was not detached at the end"
	elif [ "$st" = 0 ] || [ "$st" = 130 ] || { [ "$st" = 1 ] && grep -q "$n\.lisp:[0-9]*:[0-9]*: error: " "$tmp/$n.shim.err"; }; then
		pass "$n/shim (kprobe on $fn attached, $(grep -c . "$tmp/$n.shim.out") lines printed, detached; status $st$( [ "$st" = 1 ] && echo ": $(grep -m1 -o 'error: .*' "$tmp/$n.shim.err" | cut -c1-100)"))"
	else
		fail "$n/shim" "status $st: $(head -c 300 "$tmp/$n.shim.err")"
	fi
done <"$tmp/corpus/list"

total=$(wc -l <"$tmp/corpus/list")
echo "INFO $SUITE: $total sessions from Whistler's book, README and manual: $same the same under both, $only_kiln run by kiln only, $both_fail run by neither, $differ differ, $kiln_fail not run by kiln"
echo "INFO $SUITE: ms from start to attached (the sandbox's own $base ms included), kiln/Whistler:$times"

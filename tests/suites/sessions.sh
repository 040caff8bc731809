#!/usr/bin/env bash
# sessions.sh — acceptance for kiln's host side (src/host/): Whistler's five session examples
# run unchanged under `kiln run`, read from a Whistler checkout (a peer: $KILN_PEERS/Whistler,
# tests/harness/peers.sh; without one each says SKIP: Whistler's files are never part of kiln), against
# activity this suite makes, and print the values of that activity:
# - fork-tracker: a fork of a known child by a known parent is in the dump after Ctrl-C,
#   which reaches the example's handler-case; "N forks recorded." counts the lines printed;
# - runqlat (kiln programs inside eval-when): the histogram kiln run prints at Ctrl-C;
# - cgroup-skb-session and cgroup-skb-count attach to "/sys/fs/cgroup", which they hard-code:
#   each runs in a mount namespace where that path is a cgroup v2 directory this suite
#   created, and counts exactly the UDP datagrams a process of that cgroup sends;
# - ffi-call-tracker: a uprobe on libffi's ffi_call; python3's ctypes calls a signature and
#   comm no other process uses, a known number of times.
# After each run nothing of the session stays: its links and programs are gone, the cgroup has
# no program attached.
# Whistler's own run (SBCL, Whistler's loader from the same checkout, extracted into a temporary
# directory) runs each example beside kiln's, started and attached before the same activity,
# and Ctrl-C'd with it: the lines that do not depend on other processes are the same (each
# example's filter below drops the rows other processes made). Whistler's loader also prints its
# own progress to stdout (";; load-program", "Created map", "Loaded", "Compiled N program"),
# which kiln does not: those are dropped from Whistler's side. Where Whistler's run does not
# attach (runqlat is a file of programs only; a missing sbcl) the comparison says SKIP with what
# it printed.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
SUITE=sessions
. "${ROOT:-$PWD}/tests/harness/report.sh"
. "${ROOT:-$PWD}/tests/harness/run.sh"
. "${ROOT:-$PWD}/tests/harness/peers.sh"
. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
WH=$WHISTLER_DIR
tmp=$(mktemp -d)
cgs=()
cleanup() {
	[ -n "${k:-}" ] && kill -KILL "$k" 2>/dev/null
	[ -n "${w:-}" ] && kill -KILL "$w" 2>/dev/null
	local i
	for ((i = ${#cgs[@]} - 1; i >= 0; i--)); do rmdir "${cgs[i]}" 2>/dev/null; done   # children first
	# the cgroup runs' own (made in background subshells, which $cgs does not see), children first
	[ -n "${cgroot:-}" ] && rmdir "$cgroot/kiln-sessions-$$-"*/whistler "$cgroot/kiln-sessions-$$-"* 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# the example's text from the checkout (a bare mirror or a work tree)
names="fork-tracker runqlat cgroup-skb-count cgroup-skb-session ffi-call-tracker"
for n in $names; do
	if ! whistler_file "examples/$n.lisp" >"$tmp/$n.lisp" || [ ! -s "$tmp/$n.lisp" ]; then
		for m in $names; do peer_skip "$SUITE/$m" "no Whistler checkout at $WH"; done
		exit 0
	fi
done

# ---- Whistler's own runs: SBCL with Whistler's loader, read from the same checkout -------
# whistler is empty when they run, else why not. ASDF compiles the loader's FASLs on the first
# load: into $tmp/cache (XDG_CACHE_HOME), once here, with a deadline.
W=$tmp/whistler
sbcl=(env XDG_CACHE_HOME="$tmp/cache" sbcl --noinform --non-interactive --eval '(require :asdf)'
	--eval "(push #p\"$W/\" asdf:*central-registry*)"
	--eval '(let ((*error-output* (make-broadcast-stream))) (asdf:load-system "whistler/loader"))')
whistler=
if ! command -v sbcl >/dev/null; then
	whistler="no sbcl to run Whistler (make deps installs it)"
else
	mkdir "$W"
	if [ -f "$WH/whistler.asd" ]; then cp -r "$WH/." "$W/"
	else peer_git "$WH" archive HEAD | tar -x -C "$W"; fi
	if ! timeout 120 "${sbcl[@]}" >"$tmp/warm" 2>&1; then
		whistler="Whistler's loader did not load in SBCL: $(grep -v '^;' "$tmp/warm" | grep . | head -3 | tr '\n' ' ')"
	fi
fi
# whistler_start NAME OUT ERR CMD...: CMD (Whistler's run, or the namespace that execs it) in
# the background, its pid in $w (none when Whistler's runs are off)
whistler_start() {
	w=
	[ -n "$whistler" ] && return
	local n=$1 o=$2 e=$3; shift 3
	"$@" >"$o" 2>"$e" &
	w=$!
}
# whistler_ready NAME TEXT FILE OTHER: 0 once Whistler's run in $w has printed TEXT in FILE (its
# stdout or stderr, OTHER the other one); else SKIP NAME's comparison with what it printed,
# stop it, and 1
whistler_ready() {
	local n=$1 said
	if [ -n "$whistler" ]; then echo "SKIP $SUITE/$n/whistler: $whistler"; return 1; fi
	if wait_text "$3" "$2" "$w"; then return 0; fi
	kill -0 "$w" 2>/dev/null && kill -KILL "$w"
	wait "$w"
	st=$?
	said=$(cat "$3" "$4" | grep -v '^;' | grep . | head -3 | tr '\n' ' ')
	echo "SKIP $SUITE/$n/whistler: Whistler's run (status $st) did not say '$2'; it printed: ${said:-nothing}"
	w=
	return 1
}
# whistler_own: Whistler's output without its loader's own progress lines, which kiln does not print
whistler_own() {
	grep -vE '^(;; load-program |Created map [^ ]+: fd=|Loaded [^ ]+: [0-9]+ insns|Compiled [0-9]+ programs? \()'
}
# same_as_whistler NAME FILTER...: Whistler's stderr is kiln's, and its stdout, through
# whistler_own and FILTER (which drops the rows of other processes), is kiln's through FILTER
same_as_whistler() {
	local n=$1; shift
	check "$n/whistler-stderr" "$(cat "$tmp/w.err")" "$(cat "$tmp/err")"
	check "$n/whistler-stdout" "$(whistler_own <"$tmp/w.out" | "$@")" "$("$@" <"$tmp/out")"
}

# interrupted NAME STDERR ARGS...: `kiln run` the example with ARGS until it has printed STDERR
# (what it says before waiting for Ctrl-C), make its activity (activity_NAME), Ctrl-C, then:
# it ends with status 0, said exactly STDERR, and its links are gone; verify_NAME checks the
# printed values. Whistler's run starts with kiln's, sees the same activity, and
# compare_NAME compares the two.
interrupted() {
	local n=$1 said=$2 links; shift 2
	"$KILN" run "$tmp/$n.lisp" "$@" >"$tmp/out" 2>"$tmp/err" &
	k=$!
	whistler_start "$n" "$tmp/w.out" "$tmp/w.err" "${sbcl[@]}" --load "$tmp/$n.lisp" --end-toplevel-options "$@"
	if ! wait_text "$tmp/err" "${said##*$'\n'}"; then
		fail "$n/start" "$(cat "$tmp/err")"
		kill -KILL $k; k=; [ -n "$w" ] && kill -KILL "$w"; w=; return
	fi
	whistler_ready "$n" "${said##*$'\n'}" "$tmp/w.err" "$tmp/w.out" || w=
	links=$(fd_ids "$k" link)
	"activity_${n//-/_}"
	[ -n "$w" ] && kill -INT "$w"
	kill -INT "$k"
	if ! ended; then
		fail "$n/exit" "still running 5 s after SIGINT"
		kill -KILL $k; k=; return
	fi
	k=
	check "$n/exit-status" 0 "$st"
	check "$n/stderr" "$said" "$(cat "$tmp/err")"
	if [ -n "$links" ] && gone link $links; then pass "$n/links-gone"
	else fail "$n/links-gone" "links '$links' after the session"; fi
	"verify_${n//-/_}"
	if [ -n "$w" ]; then
		if ended "$w"; then check "$n/whistler-exit-status" 0 "$st"; "compare_${n//-/_}"
		else fail "$n/whistler-exit" "Whistler's run still running 5 s after SIGINT"; kill -KILL "$w"; fi
		w=
	fi
}

# ---- fork-tracker: Ctrl-C reaches handler-case, the map dump has our fork ----------------
activity_fork_tracker() {    # a parent whose pid we know forks a child whose pid we know
	local pc
	pc=$(bash -c 'sleep 0 & echo "$$ $!"; wait')
	parent=${pc% *} child=${pc#* }
}
verify_fork_tracker() {
	local want rows
	want=$(printf '%10d  %10d' "$child" "$parent")
	if grep -qxF -- "$want" "$tmp/out"; then pass "fork-tracker/fork-seen"
	else fail "fork-tracker/fork-seen" "no line '$want' in $(head -c 300 "$tmp/out")"; fi
	check "fork-tracker/header" "$(printf '%-10s  %-10s\n%-10s  %-10s' "CHILD PID" "PARENT PID" "---------" "----------")" \
		"$(grep -A1 '^CHILD PID' "$tmp/out")"
	rows=$(grep -cE '^ +[0-9]+  +[0-9]+$' "$tmp/out")
	check "fork-tracker/count-line" "$rows forks recorded." "$(tail -1 "$tmp/out")"
}
fork_rows() {   # other processes' forks dropped, our fork kept; the count line without its count
	awk -v keep="$(printf '%10d  %10d' "$child" "$parent")" '!/^ +[0-9]+  +[0-9]+$/ || $0 == keep' |
		sed -E 's/^[0-9]+ forks recorded\.$/N forks recorded./'
}
compare_fork_tracker() { same_as_whistler fork-tracker fork_rows; }
interrupted fork-tracker "Compiling and loading BPF program...
Attaching to tracepoint/sched/sched_process_fork...
Tracing process forks. Press Ctrl-C to dump map."

# ---- runqlat: kiln programs in eval-when, run as kiln run runs them --------------------
n=runqlat
whistler_start "$n" "$tmp/w.out" "$tmp/w.err" "${sbcl[@]}" --load "$tmp/$n.lisp"
if start_run "$tmp/out" "$tmp/err" "$tmp/$n.lisp"; then
	progs=$(fd_ids "$k" prog)
	# Whistler's run: compared if it attaches (says what kiln run says once it has)
	if whistler_ready "$n" running "$tmp/w.err" "$tmp/w.out"; then
		fail "$n/whistler" "Whistler's run says 'running' now: compare its histogram here"
		kill -KILL "$w"
	fi
	w=
	# some scheduling: short sleeps wake and wait on a run queue
	for i in $(seq 20); do sleep 0.01; done
	if stop_run; then
		# the hist map: slots 0..25, at least one wake-up counted
		total=$(awk '$2 == "=>" && $1 ~ /^[0-9]+$/ && $1 < 26 { s += $3 } END { print s + 0 }' "$tmp/out")
		if [ "$total" -gt 0 ]; then pass "$n/histogram ($total wake-ups)"
		else fail "$n/histogram" "no counts: $(head -c 300 "$tmp/out")"; fi
		if [ -n "$progs" ] && gone prog $progs; then pass "$n/progs-gone"
		else fail "$n/progs-gone" "programs '$progs' after the run"; fi
	else
		fail "$n/stop" "still running after SIGINT"
	fi
else
	fail "$n/start" "$(cat "$tmp/err")"
fi

# ---- the cgroup examples: "/sys/fs/cgroup" is a cgroup of ours in a mount namespace ----
cgroot=$(cgroup2_root)
send_udp() {   # CGROUP N: a process in CGROUP sends N datagrams to a socket of its own
	sh -c 'echo $$ > "$1/cgroup.procs" && exec python3 -c "
import socket, sys
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind((\"127.0.0.1\", 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])): s.sendto(b\"x\", r.getsockname())
" "$2"' sh "$1" "$2"
}
# in_cgroup_ns CGROUP DIR CMD...: CMD where /sys/fs/cgroup is CGROUP and what it writes to
# /tmp goes to DIR, a directory of this run's, in a namespace of its own (cgroup_ns.sh): so
# the /tmp/cgroup-skb-count.bpf.o that cgroup-skb-count writes and reads back is a file of
# its own, which kiln's and Whistler's runs, and other runs on the machine, do not share
in_cgroup_ns() {
	local cg=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	bash "${ROOT:-$PWD}/tests/harness/cgroup_ns.sh" "$cg" "$dir" "$tmp" "$@"
}
cg_session() {   # NAME SENT READY-LINE LINE-PREFIX
	local n=$1 sent=$2 ready=$3 prefix=$4 cg="$cgroot/kiln-sessions-$$-$1" kk src
	mkdir "$cg" && cgs+=("$cg")
	in_cgroup_ns "$cg" "$tmp/$n.tmp" "$KILN" run "$tmp/$n.lisp" >"$tmp/$n.out" 2>"$tmp/$n.err" &
	kk=$!
	k=$kk
	# Whistler's run attaches (with flags 0: no other program on the same cgroup) to a child of
	# kiln's cgroup, where the datagrams are sent: kiln's program (a link, multi) sees them too
	src=$cg
	if [ -z "$whistler" ]; then
		src=$cg/whistler
		mkdir "$src" && cgs+=("$src")
	fi
	whistler_start "$n" "$tmp/$n.w.out" "$tmp/$n.w.err" in_cgroup_ns "$src" "$tmp/$n.w.tmp" \
		"${sbcl[@]}" --load "$tmp/$n.lisp"
	if ! wait_text "$tmp/$n.out" "$ready"; then
		fail "$n/start" "$(cat "$tmp/$n.err" "$tmp/$n.out")"
		kill -KILL $kk; [ -n "$w" ] && kill -KILL "$w"
		wait
		rmdir "$src" "$cg" 2>/dev/null
		return
	fi
	whistler_ready "$n" "$ready" "$tmp/$n.w.out" "$tmp/$n.w.err" || w=
	send_udp "$src" "$sent"
	local i
	for i in $(seq 300); do kill -0 $kk 2>/dev/null || break; sleep 0.05; done   # 10 lines, one a second
	wait $kk
	check "$n/exit-status" 0 "$?"
	local lines last
	lines=$(grep -c "^  $prefix: [0-9]*\$" "$tmp/$n.out")
	last=$(grep "^  $prefix: " "$tmp/$n.out" | tail -1)
	check "$n/ten-lines" 10 "$lines"
	check "$n/count" "  $prefix: $sent" "$last"
	# nondecreasing, from 0 before our packets
	if grep "^  $prefix: " "$tmp/$n.out" | awk -F': ' 'NR > 1 && $2 < p { bad = 1 } { p = $2 } END { exit bad }'
	then pass "$n/monotonic"; else fail "$n/monotonic" "$(tr '\n' ' ' <"$tmp/$n.out")"; fi
	local left
	left=$(bpftool cgroup show "$cg" 2>&1 | grep -c count_egress)
	check "$n/detached" 0 "$left"
	if [ -n "$w" ]; then
		# Whistler's ten lines come later (SBCL starts slower): up to 15 s
		for i in $(seq 300); do kill -0 "$w" 2>/dev/null || break; sleep 0.05; done
		if ended "$w"; then
			check "$n/whistler-exit-status" 0 "$st"
			# the counts of the lines before the last one depend on when each run read them
			check "$n/whistler-stdout" "$(whistler_own <"$tmp/$n.w.out" | sed '$!s/: [0-9]*$/: N/')" \
				"$(sed '$!s/: [0-9]*$/: N/' "$tmp/$n.out")"
			check "$n/whistler-stderr" "$(cat "$tmp/$n.w.err")" "$(cat "$tmp/$n.err")"
			left=$(bpftool cgroup show "$src" 2>&1 | grep -c count_egress)
			check "$n/whistler-detached" 0 "$left"
		else
			fail "$n/whistler-exit" "Whistler's run still running 15 s after its start"
			kill -KILL "$w"
		fi
		rmdir "$src"
	fi
	rmdir "$cg"
}
if [ -z "$cgroot" ]; then
	echo "SKIP $SUITE/cgroup-skb-session: no cgroup v2 hierarchy mounted"
	echo "SKIP $SUITE/cgroup-skb-count: no cgroup v2 hierarchy mounted"
elif ! command -v unshare >/dev/null || ! command -v python3 >/dev/null; then
	echo "SKIP $SUITE/cgroup-skb: unshare and python3 are needed"
elif ! grep -qw overlay /proc/filesystems && ! modprobe overlay 2>/dev/null; then
	echo "SKIP $SUITE/cgroup-skb: no overlayfs in this kernel to give the examples a /tmp of their own"
else
	# both at once (ten seconds each), in cgroups and namespaces of their own
	cg_session cgroup-skb-session 5 "Counting egress packets on /sys/fs/cgroup..." packets &
	p1=$!
	cg_session cgroup-skb-count 7 "Attached to /sys/fs/cgroup (egress). Counting packets..." "egress packets" &
	p2=$!
	wait $p1 $p2
fi

# ---- ffi-call-tracker: a uprobe on libffi's ffi_call ---------------------------------
n=ffi-call-tracker
comm="kffi$$"
comm=${comm:0:15}
activity_ffi_call_tracker() {   # labs declared u16(s64, u8, s16): only this call has it, 7 times, as $comm
	python3 -c '
import ctypes, sys
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)
f = libc.labs
f.argtypes = [ctypes.c_int64, ctypes.c_uint8, ctypes.c_int16]
f.restype = ctypes.c_uint16
for i in range(7): f(-5, 1, 2)
' "$comm"
}
verify_ffi_call_tracker() {
	local want
	want=$(printf '%10d  %-16s  %s' 7 "$comm" "u16(s64, u8, s16) [unix64]")
	if grep -qxF -- "$want" "$tmp/out"; then pass "$n/calls-counted"
	else fail "$n/calls-counted" "no line '$want' in $(head -c 400 "$tmp/out")"; fi
	check "$n/header" "$(printf '%-10s  %-16s  %s' COUNT COMM SIGNATURE)" "$(grep '^COUNT' "$tmp/out")"
}
ffi_rows() {   # the rows of other comms dropped
	awk -v c="$comm" '!/^ *[0-9]+  / || $2 == c'
}
compare_ffi_call_tracker() { same_as_whistler "$n" ffi_rows; }
lib=$(ldconfig -p 2>/dev/null | awk '$1 == "libffi.so.8" && /x86-64/ { print $NF; exit }')
if [ -z "$lib" ]; then
	echo "SKIP $SUITE/$n: no libffi.so.8 on this machine"
elif ! python3 -c 'import ctypes' 2>/dev/null; then
	echo "SKIP $SUITE/$n: no python3 ctypes to make ffi calls"
else
	interrupted "$n" "Compiling and loading BPF program...
Attaching uprobe to ffi_call in $lib...
Tracing ffi_call. Press Ctrl-C to dump stats." "$lib"
fi

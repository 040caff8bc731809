#!/usr/bin/env bash
# trace-whistler.sh — Whistler's bpftrace examples (examples/bpftrace/*.bt, read from its
# checkout at test time, a peer: tests/harness/peers.sh; SKIP without one) under kiln
# trace and bpftrace 0.17. Each must compile (--dry-run). Those on tracepoints run under both
# tracers at once, all eight tracers together, while this suite makes known activity (a dd of
# DIRECT_READS synchronous O_DIRECT reads); then both are stopped with SIGINT and kiln's
# output must have bpftrace's lines: the same lines before the maps (attaching, BEGIN's
# printf), the same map names, every map line in one of bpftrace's shapes, and per script:
#   syscount.bt        @[pid] of the dd: the same count in both (both saw its whole life)
#   softirqs.bt        @[vec]: vectors 0..9; every vector bpftrace counted 10 times or more
#                      is in kiln's output too
#   runqlat.bt         @usecs: a histogram with counts in both
#   biolatency-tp.bt   @usecs: at least DIRECT_READS - 1 block requests in kiln's histogram, or
#                      bpftrace's count less one where it counted fewer
# Those on kprobes (this kernel has no kprobe events) must be refused at attach by both,
# kiln with its reason. Not copied into kiln: Whistler's files stay in its repository.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=trace-whistler
. "$PWD/tests/harness/report.sh"
. "$PWD/tests/harness/peers.sh"
src=$WHISTLER_DIR
BPFTRACE=${BPFTRACE:-$(type -P bpftrace)}
DIRECT_READS=64

list_examples() {   # a work tree, or a bare/mirror git directory
	if [ -d "$src/examples/bpftrace" ]; then
		(cd "$src/examples/bpftrace" && ls -- *.bt)
	else
		peer_git "$src" ls-tree --name-only HEAD examples/bpftrace/ 2>/dev/null |
			sed -n 's|^examples/bpftrace/\(.*\.bt\)$|\1|p'
	fi
}
read_example() { whistler_file "examples/bpftrace/$1"; }
examples=$(list_examples)
if [ -z "$examples" ]; then
	peer_skip "$SUITE/examples" "no Whistler checkout with examples/bpftrace at '$src'"
	exit 0
fi
if [ -z "$BPFTRACE" ]; then
	echo "SKIP $SUITE/examples: bpftrace is not installed (make deps installs Debian's 0.17)"
	exit 0
fi
tmp=$(mktemp -d "$BUILD/trace-whistler.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

NOTIFY=__BPFTRACE_NOTIFY_PROBES_ATTACHED
kprobe_pmu=/sys/bus/event_source/devices/kprobe/type

# ---- every example compiles; sorted by the probes it uses --------------------------------
live=() refused=()
n=0
for f in $examples; do
	n=$((n + 1))
	read_example "$f" >"$tmp/$f"
	if ! err=$("$KILN" trace --dry-run "$tmp/$f" 2>&1); then
		fail "compile/$f" "$(head -3 <<<"$err" | tr '\n' ' ')"
		continue
	fi
	pass "compile/$f"
	if grep -Eq '^[[:space:]]*(kprobe|kretprobe|k|kr):' "$tmp/$f"; then
		refused+=("$f")
	else
		live+=("$f")
	fi
done
check examples-count 8 "$n"

# ---- kprobes: refused at attach by both here ---------------------------------------------
for f in "${refused[@]}"; do
	if [ -e "$kprobe_pmu" ]; then
		echo "SKIP $SUITE/kprobe/$f: this kernel has kprobe events; only their refusal (none here) is checked"
		continue
	fi
	timeout 20 "$KILN" trace "$tmp/$f" >"$tmp/$f.k.out" 2>"$tmp/$f.k.err"
	krc=$?
	timeout 20 "$BPFTRACE" "$tmp/$f" >"$tmp/$f.b.out" 2>"$tmp/$f.b.err"
	brc=$?
	if [ $krc -eq 1 ] && grep -q 'no kprobe PMU' "$tmp/$f.k.err" &&
		[ $brc -ne 0 ] && grep -q 'Error attaching probe' "$tmp/$f.b.err"; then
		pass "kprobe/$f"
	else
		fail "kprobe/$f" "want both refused at attach; kiln status $krc: $(tail -1 "$tmp/$f.k.err"); bpftrace status $brc: $(tail -1 "$tmp/$f.b.err")"
	fi
done

# ---- tracepoints: both tracers at once, on the same activity -----------------------------
dd if=/dev/zero of="$tmp/direct" bs=4096 count=$DIRECT_READS conv=fsync 2>/dev/null
# Not under timeout(1): GNU timeout passes a signal on to its command and then to its whole
# process group, so the tracer gets SIGINT twice, and kiln trace takes a second one as "exit
# at once" (status 130, no maps). The deadline is ours (stop_all).
declare -A status=()
for f in "${live[@]}"; do
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$KILN" trace "$tmp/$f" >"$tmp/$f.k.out" 2>"$tmp/$f.k.err" &
	pids+=($!) status[$!]=$f.k
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$BPFTRACE" "$tmp/$f" >"$tmp/$f.b.out" 2>"$tmp/$f.b.err" &
	pids+=($!) status[$!]=$f.b
done
attached() {   # $1: the script; kiln says it on stdout, bpftrace 0.17 on stderr
	grep -q "$NOTIFY" "$tmp/$1.k.err" && grep -q "$NOTIFY" "$tmp/$1.b.err"
}
all_attached() {
	local f
	for f in "${live[@]}"; do attached "$f" || return 1; done
}
end=$((SECONDS + 20))
until all_attached || [ $SECONDS -ge $end ]; do sleep 0.05; done
ready=1
for f in "${live[@]}"; do
	if ! attached "$f"; then
		fail "attach/$f" "not attached in 20 s: kiln: $(tail -2 "$tmp/$f.k.err"); bpftrace: $(tail -2 "$tmp/$f.b.err")"
		ready=0
	fi
done
if [ $ready -eq 0 ]; then
	exit 0      # the trap kills the tracers
fi
# synchronous direct reads of a file written before: each one a block request issued and
# completed while traced (direct writes to a new file may go through the page cache)
dd if="$tmp/direct" of=/dev/null bs=4096 count=$DIRECT_READS iflag=direct 2>/dev/null &
dd=$!
wait $dd
ddrc=$?
check dd-status 0 "$ddrc"
sleep 0.2   # the last completions' tracepoints reach the maps; nothing below waits on them
# SIGINT to every tracer; those still running 15 s later are killed (and fail on status).
# bpftrace 0.17 may miss a SIGINT that does not interrupt its epoll_wait (seen under load:
# killed, no maps): still running 5 s later, it gets SIGTERM, on which it prints its maps too
for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null; done
end=$((SECONDS + 15))
nudge=$((SECONDS + 5))
for p in "${pids[@]}"; do
	termed=0
	while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $end ]; do
		if [ $termed -eq 0 ] && [ $SECONDS -ge $nudge ] && [[ ${status[$p]} == *.b ]]; then
			kill -TERM "$p" 2>/dev/null
			termed=1
		fi
		sleep 0.05
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p"
	echo $? >"$tmp/${status[$p]}.rc"
done
pids=()

before_maps() { grep -v "$NOTIFY" "$1" | sed '/^$/,$d'; }    # attaching, BEGIN's lines
map_lines() { grep -v "$NOTIFY" "$1" | sed '1,/^$/d' | grep -v '^$'; }
map_names() { map_lines "$1" | grep -o '^@[A-Za-z0-9_]*' | uniq; }
# the maps each script prints whatever the timing (runqlat's @qtime and biolatency-tp's
# @start hold what is in flight when the tracer stops: one may print them, the other not)
declare -A maps=([syscount.bt]=@ [softirqs.bt]=@ [runqlat.bt]=@usecs [biolatency-tp.bt]=@usecs)
script_maps() { grep -o '@[A-Za-z0-9_]*' "$1" | sort -u; }
# a line of a map as bpftrace prints it: @m: V, @m[K]: V, a histogram's header (`@m: `,
# with bpftrace's space) or one of
# its buckets ([N], [A, B), with count and a 52-column bar)
shape='^(@[A-Za-z0-9_]*(\[[^]]*\])?: -?[0-9]+|@[A-Za-z0-9_]*: ?|\[[^]]*(\]|\)) +[0-9]+ \|[@ ]{52}\|)$'
hist_total() {   # file, map: the sum of that histogram's bucket counts
	map_lines "$1" | awk -v m="$2:" '{ sub(/ +$/, "") } $0 == m { on = 1; next } /^@/ { on = 0 }
		on && /^\[/ { sub(/^[^]\)]*[]\)] +/, ""); t += $1 } END { print t + 0 }'
}
for f in "${live[@]}"; do
	k=$tmp/$f.k.out b=$tmp/$f.b.out
	check "$f/status" "0 0" "$(cat "$tmp/$f.k.rc") $(cat "$tmp/$f.b.rc")"
	check "$f/lines-before-maps" "$(before_maps "$b")" "$(before_maps "$k")"
	# the maps kiln printed: the script's, and those that must print in both
	kn=$(map_names "$k") bn=$(map_names "$b")
	stray=$(comm -23 <(sort -u <<<"$kn") <(script_maps "$tmp/$f") | tr '\n' ' ')
	if [ -z "$stray" ] && grep -qx -- "${maps[$f]:-@}" <<<"$kn" && grep -qx -- "${maps[$f]:-@}" <<<"$bn"; then
		pass "$f/map-names"
	else
		fail "$f/map-names" "kiln printed '$(tr '\n' ' ' <<<"$kn")', bpftrace '$(tr '\n' ' ' <<<"$bn")', both should print ${maps[$f]:-@}; kiln's stderr: $(tail -2 "$tmp/$f.k.err")"
	fi
	bad=$(map_lines "$k" | grep -Ev "$shape" | head -3)
	bbad=$(map_lines "$b" | grep -Ev "$shape" | head -3)
	if [ -z "$(map_lines "$k")" ] || [ -n "$bad" ] || [ -n "$bbad" ]; then
		fail "$f/map-lines" "lines not in bpftrace's shapes: kiln: '$bad'; bpftrace: '$bbad'; kiln printed $(map_lines "$k" | wc -l) map lines"
	else
		pass "$f/map-lines"
	fi
	case $f in
	syscount.bt)
		kc=$(sed -n "s/^@\[$dd\]: //p" "$k") bc=$(sed -n "s/^@\[$dd\]: //p" "$b")
		if [ -n "$bc" ] && [ "$bc" -gt 0 ]; then
			check "$f/dd-syscalls" "$bc" "$kc"
		else
			fail "$f/dd-syscalls" "bpftrace did not count the dd (pid $dd): '$bc'"
		fi
		;;
	softirqs.bt)
		kkeys=$(sed -n 's/^@\[\([0-9]*\)\]: [0-9]*$/\1/p' "$k" | sort)
		want=$(sed -n 's/^@\[\([0-9]*\)\]: \([0-9]*\)$/\1 \2/p' "$b" | awk '$2 >= 10 { print $1 }' | sort)
		missing=$(comm -23 <(echo "$want") <(echo "$kkeys") | tr '\n' ' ')
		badk=$(grep -Ev '^[0-9]$' <<<"$kkeys" | tr '\n' ' ')
		kl=$(tr '\n' ' ' <<<"$kkeys") wl=$(tr '\n' ' ' <<<"$want")
		if [ -n "$want" ] && [ -z "$missing" ] && [ -z "$badk" ]; then
			pass "$f/vectors (${kl% })"
		else
			fail "$f/vectors" "kiln's vectors '$kl', bpftrace's counted 10 times or more '$wl'; missing in kiln '$missing'; not a vector '$badk'"
		fi
		;;
	runqlat.bt)
		kt=$(hist_total "$k" @usecs) bt=$(hist_total "$b" @usecs)
		if [ "$kt" -gt 0 ] && [ "$bt" -gt 0 ]; then
			pass "$f/usecs ($kt and $bt wake-ups)"
		else
			fail "$f/usecs" "histogram totals kiln $kt, bpftrace $bt"
		fi
		;;
	biolatency-tp.bt)
		kt=$(hist_total "$k" @usecs) bt=$(hist_total "$b" @usecs)
		# bpftrace 0.17 is asked for some only: now and then it counts one of the dd's less;
		# on a loaded machine both have counted 63 of the 64 (a request whose issue and
		# completion straddle an attach), so kiln may miss one too, no more. Once (a CI run)
		# both counted 53 and 53: fewer of the reads reached the device as requests of their
		# own, which bpftrace's count shows; kiln then needs at least bpftrace's, less one.
		want=$((DIRECT_READS - 1))
		[ "$bt" -gt 0 ] && [ $((bt - 1)) -lt "$want" ] && want=$((bt - 1))
		if [ "$kt" -ge "$want" ] && [ "$kt" -gt 0 ] && [ "$bt" -gt 0 ]; then
			pass "$f/usecs ($kt and $bt block requests, $DIRECT_READS of them the dd's reads)"
		else
			fail "$f/usecs" "want at least $want requests in kiln's (the dd's $DIRECT_READS reads, or bpftrace's count, less one), some in bpftrace's; kiln $kt, bpftrace $bt"
		fi
		;;
	*)
		echo "SKIP $SUITE/$f/activity: no check of its own written for this example"
		;;
	esac
done

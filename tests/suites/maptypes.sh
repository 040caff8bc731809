#!/usr/bin/env bash
# maptypes.sh — every map type in kiln's table (src/compiler/tables.c, read here so that a type
# added without a case fails): tests/lib/maptypes.lisp declares one of each; the object loads
# (the kernel made each with the type asked for: `kiln map dump`'s header names it), every map
# dumps without error, and the command line writes and reads back what user space can write:
# integers in hash and array kinds (per-CPU values on every CPU), an lpm-trie prefix, a
# program into a prog-array, maps into maps of maps, a cgroup into a cgroup-array, ifindexes
# into devmaps, a queue size into a cpumap, a listening socket into a sockmap and sockhash and a
# SO_REUSEPORT UDP socket into a reuseport sockarray (each listed back as its cookie), records into a user ring buffer. Local storage: storage.sh;
# queue, stack, bloom: keyless.sh.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
pin=/sys/fs/bpf/kiln-maptypes-$$
holder=
trap '"$KILN" unload "$pin" >/dev/null 2>&1; rm -rf "$pin" 2>/dev/null; [ -n "$holder" ] && kill $holder 2>/dev/null' EXIT
SUITE=maptypes
. "${ROOT:-$PWD}/tests/harness/report.sh"

src=tests/lib/maptypes.lisp
types=$(sed -n 's/^MAP_TYPE("\([a-z-]*\)",.*/\1/p' src/kfacts/map_types.def)
n=0 missing=
for t in $types; do
	n=$((n + 1))
	grep -Eq "^\(defmap m-$t :type :$t[ )]" "$src" || missing="$missing $t"
done
if [ "$n" -ge 30 ] && [ -z "$missing" ]; then pass "every-type-declared ($n types)"
else fail every-type-declared "$n types in src/kfacts/map_types.def; not in $src:$missing"; fi

if ! out=$("$KILN" load "$src" --pin "$pin" 2>&1); then
	fail load "$out"
	exit 0
fi
m=$pin/maps
bad=
for t in $types; do
	name=m_${t//-/_}
	kt=${t//-/_}
	out=$("$KILN" map dump "$m/$name" 2>&1) || { bad="$bad $t(dump: $out)"; continue; }
	# the kernel keeps 15 characters of a map's name
	head -1 <<<"$out" | grep -q "^map ${name:0:15} ($kt, id " || bad="$bad $t(header: $(head -1 <<<"$out"))"
done
if [ -z "$bad" ]; then pass "every-type-loads-and-dumps"; else fail every-type-loads-and-dumps "$bad"; fi

# plain data: set, get back
for t in hash array percpu-hash percpu-array lru-hash lru-percpu-hash; do
	name=m_${t//-/_}
	"$KILN" map set "$m/$name" 3 5 || { fail "$t-set" "status $?"; continue; }
	got=$("$KILN" map get "$m/$name" 3 --json)
	case $t in
	percpu-*|lru-percpu-*)   # one value per possible CPU, each set
		if grep -Eq '^\{"map":"'"${name:0:15}"'","key":3,"value":\[5(,5)*\]\}$' <<<"$got"; then pass "$t-set-get"
		else fail "$t-set-get" "$got"; fi ;;
	*) check "$t-set-get" "{\"map\":\"$name\",\"key\":3,\"value\":5}" "$got" ;;
	esac
done
"$KILN" map set "$m/m_lpm_trie" 10.0.0.0/8 7
check lpm-trie-set-get "7" "$("$KILN" map get "$m/m_lpm_trie" 10.0.0.0/8 | sed 's/.*=> //')"

# a user ring buffer takes records (tests/unit/test_mapprogs.c drains them in a program)
ok=0
for v in 1 2 0x0102030405060708090a0b0c0d0e0f10; do "$KILN" map push "$m/m_user_ringbuf" $v && ok=$((ok + 1)); done
err=$("$KILN" map push "$m/m_user_ringbuf" 0x$(printf '%08192d' 0) 2>&1); rc=$?
if [ $ok = 3 ] && [ $rc = 1 ] && grep -q 'does not fit' <<<"$err"; then pass user-ringbuf-push
else fail user-ringbuf-push "$ok of 3 pushed; too big: status $rc: $err"; fi

# fd-valued maps, by what they hold
"$KILN" map set "$m/m_prog_array" 1 "$pin/progs/pass"
pid=$("$KILN" map dump "$m/m_prog_array" --json | sed -n 's/.*"key":1,"value":{"prog_id":\([0-9]*\)}.*/\1/p')
want=$(bpftool -j prog show pinned "$pin/progs/pass" 2>/dev/null | sed -n 's/^{"id":\([0-9]*\),.*/\1/p')
if [ -n "$pid" ] && [ "$pid" = "$want" ]; then pass prog-array-holds-the-program
else fail prog-array-holds-the-program "dump says '$pid', bpftool '$want'"; fi
inner=$("$KILN" map list --json | sed -n 's/.*"id":\([0-9]*\),"name":"m_inner".*/\1/p' | head -1)
for t in array-of-maps hash-of-maps; do
	name=m_${t//-/_}
	"$KILN" map set "$m/$name" 2 "$m/m_inner"
	got=$("$KILN" map get "$m/$name" 2 --json)
	if [ -n "$inner" ] && grep -q "\"value\":{\"map_id\":[0-9]*}" <<<"$got"; then pass "$t-holds-a-map"
	else fail "$t-holds-a-map" "$got (m_inner id '$inner')"; fi
done
. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
cg=$(cgroup2_root)
if [ -n "$cg" ]; then
	if "$KILN" map set "$m/m_cgroup_array" 0 "$cg"; then pass cgroup-array-set
	else fail cgroup-array-set "status $?"; fi
else
	echo "SKIP maptypes/cgroup-array-set: no cgroup2 hierarchy mounted"
fi
lo=$(cat /sys/class/net/lo/ifindex)
for t in devmap devmap-hash; do
	name=m_${t//-/_}
	"$KILN" map set "$m/$name" 1 "$lo"
	check "$t-ifindex" "  1 => ifindex $lo" "$("$KILN" map get "$m/$name" 1)"
done
"$KILN" map set "$m/m_cpumap" 0 192
check cpumap-qsize "  0 => qsize 192" "$("$KILN" map get "$m/m_cpumap" 0)"

# sockets another process holds, into a sockmap, a sockhash and a reuseport sockarray
fifo=$(mktemp -u); mkfifo "$fifo"
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1); u.bind(("127.0.0.1", 0))
print(s.fileno(), u.fileno(), flush=True)
sys.stdin.read()' <"$fifo" >"$fifo.fd" &
holder=$!
exec 7>"$fifo"
fd=
for _ in $(seq 100); do read -r fd ufd <"$fifo.fd" 2>/dev/null; [ -n "$fd" ] && break; sleep 0.05; done
for t in sockmap sockhash reuseport-sockarray; do
	[ $t = reuseport-sockarray ] && fd=$ufd
	name=m_${t//-/_}
	if [ -n "$fd" ] && "$KILN" map set "$m/$name" 1 "$holder:$fd"; then
		got=$("$KILN" map dump "$m/$name" --json)
		if grep -Eq '^\{"map":"'"${name:0:15}"'","key":1,"value":\{"cookie":[1-9][0-9]*\}\}$' <<<"$got"; then pass "$t-socket"
		else fail "$t-socket" "$got"; fi
	else
		fail "$t-socket" "holder fd '$fd'"
	fi
done
exec 7>&-
wait "$holder" 2>/dev/null; holder=
rm -f "$fifo" "$fifo.fd"

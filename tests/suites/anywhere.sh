#!/usr/bin/env bash
# anywhere.sh — a fresh clone works anywhere:
# - kiln mounts what it needs: in a private mount namespace with tracefs and bpffs unmounted,
#   `kiln compile` of a program that reads a tracepoint format mounts tracefs, `kiln load
#   --pin` mounts bpffs, each saying so once on stderr; nothing is said when they are there;
#   threads compiling at once (test_concurrency) mount it once; a process that may not mount
#   gets the error saying what to mount;
# - tests/harness/cgroup_ns.sh (Whistler's cgroup examples): the command sees the machine's /tmp
#   and its cgroup at /sys/fs/cgroup, and what it writes to /tmp stays in the namespace;
# - the peers (tests/harness/peers.sh): found as clones, bare mirrors or symlinks to either,
#   never through the repository around an empty peers directory; tests/run's closing line
#   counts the "no peer" SKIPs;
# - cgroup2_root is where mountinfo says cgroup v2 is mounted;
# - no path of a developer's machine in the repository's files, no doc citing a file outside it.
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}" || exit 1
KILN=${KILN:-$PWD/kiln}
BUILD=${BUILD:-$PWD/build}
SUITE=anywhere
. "${ROOT:-$PWD}/tests/harness/report.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- kiln mounts tracefs and bpffs where they are missing ----------------------------------
# (in the namespace: unmounted, then kiln runs; a bpffs mounted there goes with the namespace)
pin=/sys/fs/bpf/kiln-anywhere-$$
unshare -m --propagation private bash -c '
	tmp=$1 kiln=$2 pin=$3 build=$4
	for m in /sys/kernel/debug/tracing /sys/kernel/tracing /sys/kernel/debug /sys/fs/bpf; do
		while mountpoint -q "$m"; do umount "$m" || exit 9; done
	done
	mountpoint -q /sys/kernel/tracing && echo "tracefs-before mounted" >"$tmp/ns.log" || echo "tracefs-before none" >"$tmp/ns.log"
	"$kiln" compile examples/tcpconnect.lisp -o "$tmp/tc.o" >"$tmp/c1.out" 2>"$tmp/c1.err"; echo "compile $?" >>"$tmp/ns.log"
	findmnt -n -o FSTYPE /sys/kernel/tracing >>"$tmp/ns.log"
	"$kiln" compile examples/tcpconnect.lisp -o "$tmp/tc2.o" >"$tmp/c2.out" 2>"$tmp/c2.err"; echo "again $?" >>"$tmp/ns.log"
	umount /sys/kernel/tracing
	"$kiln" load examples/tcpconnect.lisp --pin "$pin" >"$tmp/l.out" 2>"$tmp/l.err"; echo "load $?" >>"$tmp/ns.log"
	findmnt -n -o FSTYPE /sys/kernel/tracing >>"$tmp/ns.log"
	findmnt -n -o FSTYPE /sys/fs/bpf >>"$tmp/ns.log"
	ls "$pin/progs" | wc -l >>"$tmp/ns.log"
	"$kiln" unload "$pin" >/dev/null 2>&1; echo "unload $?" >>"$tmp/ns.log"
	umount /sys/kernel/tracing
	# threads compiling tracepoint programs at once: one mount between them
	"$build/tests/unit/test_concurrency" >"$tmp/threads.out" 2>&1; echo "threads $?" >>"$tmp/ns.log"
	findmnt -n -t tracefs | wc -l >>"$tmp/ns.log"
	umount /sys/kernel/tracing
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	if command -v setpriv >/dev/null && "${nobody[@]}" test -x "$kiln" -a -r examples/tcpconnect.lisp; then
		"${nobody[@]}" "$kiln" compile examples/tcpconnect.lisp -o /dev/null >/dev/null 2>"$tmp/u.err"
		echo "unprivileged $?" >>"$tmp/ns.log"
	fi
' sh "$tmp" "$KILN" "$pin" "$BUILD"
rc=$?
if [ $rc -eq 9 ]; then
	echo "SKIP $SUITE/mounts: cannot unmount tracefs or bpffs in a private mount namespace"
else
	mt="kiln: mounted tracefs at /sys/kernel/tracing: nothing was mounted there"
	mb="kiln: mounted bpffs at /sys/fs/bpf: nothing was mounted there"
	check mounts/unmounted "tracefs-before none" "$(sed -n 1p "$tmp/ns.log")"
	check mounts/compile "compile 0" "$(sed -n 2p "$tmp/ns.log")"
	check mounts/compile-said "$mt" "$(cat "$tmp/c1.err")"
	check mounts/tracefs-mounted tracefs "$(sed -n 3p "$tmp/ns.log")"
	if [ -s "$tmp/tc.o" ] && cmp -s "$tmp/tc.o" "$tmp/tc2.o"; then pass mounts/same-object
	else fail mounts/same-object "the object compiled after the mount differs from the next one"; fi
	check mounts/mounted-says-nothing "again 0|" "$(sed -n 4p "$tmp/ns.log")|$(cat "$tmp/c2.err")"
	check mounts/load "load 0" "$(sed -n 5p "$tmp/ns.log")"
	check mounts/load-said "$mt"$'\n'"$mb" "$(grep '^kiln: mounted' "$tmp/l.err")"
	check mounts/load-mounted "tracefs bpf" "$(sed -n '6,7p' "$tmp/ns.log" | tr '\n' ' ' | sed 's/ $//')"
	progs=$(sed -n 8p "$tmp/ns.log")
	if [ "${progs:-0}" -gt 0 ]; then pass "mounts/pinned ($progs programs)"
	else fail mounts/pinned "nothing under $pin/progs: $(cat "$tmp/l.err")"; fi
	check mounts/unload "unload 0" "$(sed -n 9p "$tmp/ns.log")"
	check mounts/threads "threads 0|1" "$(sed -n 10,11p "$tmp/ns.log" | tr '\n' '|' | sed 's/|$//')"
	if [ -f "$tmp/u.err" ]; then
		check mounts/unprivileged "unprivileged 1" "$(sed -n 12p "$tmp/ns.log")"
		if grep -q 'no tracefs at /sys/kernel/tracing .*could not mount one (as root: mount -t tracefs' "$tmp/u.err" &&
			! grep -q '^kiln: mounted' "$tmp/u.err"; then pass mounts/unprivileged-error
		else fail mounts/unprivileged-error "$(cat "$tmp/u.err")"; fi
	else
		echo "SKIP $SUITE/mounts/unprivileged: no setpriv, or user nobody cannot read this clone"
	fi
fi
# and outside the namespace, nothing changed
if mountpoint -q /sys/kernel/tracing && mountpoint -q /sys/fs/bpf && [ ! -e "$pin" ]; then pass mounts/outside-untouched
else fail mounts/outside-untouched "tracefs or bpffs no longer mounted here, or $pin left"; fi

# ---- cgroup_ns.sh: /tmp read-through, written in the namespace only ------------------------
. "${ROOT:-$PWD}/tests/harness/cgroup2.sh"
cgroot=$(cgroup2_root)
if [ -n "$cgroot" ] && grep -qw overlay /proc/filesystems; then
	cg=$cgroot/kiln-anywhere-$$
	mkdir "$cg"
	mkdir "$tmp/ns" "$tmp/keep"
	seen=$(bash tests/harness/cgroup_ns.sh "$cg" "$tmp/ns" "$tmp/keep" sh -c '
		echo x >/tmp/kiln-anywhere-'$$'.o && cat /tmp/kiln-anywhere-'$$'.o &&
		test -x "$1" && echo kiln-seen && echo k >"$2/kept" && stat -c %i /sys/fs/cgroup' sh "$KILN" "$tmp/keep" 2>&1)
	check cgroup-ns/inside "x|kiln-seen|$(stat -c %i "$cg")" "$(tr '\n' '|' <<<"$seen" | sed 's/|$//')"
	rmdir "$cg"
	if [ ! -e "/tmp/kiln-anywhere-$$.o" ]; then pass cgroup-ns/tmp-private
	else rm -f "/tmp/kiln-anywhere-$$.o"; fail cgroup-ns/tmp-private "the namespace's write reached /tmp"; fi
	check cgroup-ns/keep-real k "$(cat "$tmp/keep/kept" 2>&1)"
	check cgroup-ns/dir-left-empty "" "$(ls -A "$tmp/ns")"
else
	echo "SKIP $SUITE/cgroup-ns: no cgroup v2 mounted or no overlayfs"
fi

# ---- cgroup2_root: mountinfo's cgroup2 mount ---------------------------------------------
want=$(awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
check cgroup2-root "$want" "$(cgroup2_root)"

# ---- the peers: one setting, clones, bare mirrors and symlinks; never the repo around ------
peers_env() {   # DIR CMD: CMD with KILN_PEERS=DIR and no finer override
	(unset WHISTLER_DIR BPFTRACE_SRC; KILN_PEERS=$1; . tests/harness/peers.sh; eval "$2")
}
g=(git -c user.name=kiln -c user.email=kiln@localhost -c init.defaultBranch=main)
"${g[@]}" init -q "$tmp/wsrc" && mkdir "$tmp/wsrc/examples" && echo '(whistler)' >"$tmp/wsrc/examples/x.lisp" &&
	"${g[@]}" -C "$tmp/wsrc" add -A && "${g[@]}" -C "$tmp/wsrc" commit -qm w
"${g[@]}" init -q "$tmp/bsrc" && echo t >"$tmp/bsrc/t" && "${g[@]}" -C "$tmp/bsrc" add -A &&
	"${g[@]}" -C "$tmp/bsrc" commit -qm b && "${g[@]}" -C "$tmp/bsrc" tag v0.17.0
git clone -q --bare "$tmp/wsrc" "$tmp/mirrors/w.git" && git clone -q --bare "$tmp/bsrc" "$tmp/mirrors/b.git"
mkdir -p "$tmp/links" "$tmp/clones" "$PWD/peers"
ln -s "$tmp/mirrors/w.git" "$tmp/links/Whistler" && ln -s "$tmp/mirrors/b.git" "$tmp/links/bpftrace"
git clone -q "$tmp/wsrc" "$tmp/clones/Whistler" && git clone -q "$tmp/bsrc" "$tmp/clones/bpftrace"
for kind in links clones; do
	check "peers/$kind-whistler" '(whistler)' "$(peers_env "$tmp/$kind" 'whistler_file examples/x.lisp')"
	check "peers/$kind-bpftrace-tag" yes "$(peers_env "$tmp/$kind" 'bpftrace_has_tag && echo yes')"
done
# an empty peers directory inside kiln's own work tree: git must not find kiln's repository
mkdir -p "$tmp/empty/Whistler" "$tmp/empty/bpftrace"
e=$(mktemp -d "$PWD/peers/.anywhere-empty.XXXXXX")
mkdir "$e/Whistler" "$e/bpftrace"
check peers/empty-in-repo "none" "$(peers_env "$e" 'whistler_file examples/xdp-count.lisp || bpftrace_has_tag || echo none')"
rm -rf "$e"
rmdir "$PWD/peers" 2>/dev/null   # (only if this suite made it: make peers' checkouts stay)
check peers/default "$PWD/peers/Whistler $PWD/peers/bpftrace" \
	"$(unset KILN_PEERS WHISTLER_DIR BPFTRACE_SRC; . tests/harness/peers.sh; echo "$WHISTLER_DIR $BPFTRACE_SRC")"
check peers/skip-line "SKIP a/b: no peer: why (set KILN_PEERS=DIR (DIR/Whistler, DIR/bpftrace) or run \`make peers\`)" \
	"$(. tests/harness/peers.sh; peer_skip a/b why)"
printf '%s\n' "PASS x/y" "SKIP sessions/a: no peer: w" "SKIP trace/k: no kprobes" "SKIP trace-tools/suite: no peer: b" \
	"SKIP case-whistler/c: no peer: w" >"$tmp/log"
note=$(bash tests/harness/peers_note.sh "$tmp/log")
if [[ $note == "*** 3 cross-checks against the peers "*"(in: case-whistler sessions trace-tools)"*"KILN_PEERS=DIR"*"make peers"* ]]
then pass peers/closing-line; else fail peers/closing-line "$note"; fi
check peers/no-closing-line "" "$(printf 'PASS x\nSKIP a/b: lacks\n' >"$tmp/log2"; bash tests/harness/peers_note.sh "$tmp/log2")"

# ---- no path of a developer's machine, no doc citing a file outside the repository --------
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files)
else
	files=$(find . -path ./build -prune -o -path ./peers -prune -o -type f -print | grep -v '^\./\.git/')
fi
dev='(^|[^a-z0-9_.])/(wo''rk|ho''me|ro''ot)/|\.mir''ror/'
# binary files too (a regression object's DWARF holds the directory it was built in)
hits=$(grep -laE "$dev" $files 2>/dev/null | tr '\n' ' ')
check no-developer-paths "" "$hits"
outside=$(grep -nE '`(\.\./|shar''ed/)[^`]*`' README.md docs/*.md | head -3)
check docs-cite-only-the-repo "" "$outside"
exit 0

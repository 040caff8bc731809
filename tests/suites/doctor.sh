#!/usr/bin/env bash
# doctor.sh — `kiln doctor` against facts this suite reads itself, never against what this
# machine is known to have: lockdown from securityfs, the kprobe and uprobe PMUs from sysfs
# (and the build options from /proc/config.gz), the JIT and unprivileged sysctls, kernel BTF,
# the mount table, the memlock limit, the capabilities in /proc/self/status, the active LSMs,
# an fentry program loaded by `kiln check`. Then degraded: a mount namespace without bpffs
# and tracefs (doctor reports them with their mount commands and mounts nothing), a 64 KB
# memlock limit (the verdict agrees with whether a 2 MB map loads under it), and a process
# without capabilities (capabilities and bpf() "no" with their fixes, exit status 1).
set -u
export LC_ALL=C
cd "${ROOT:-$(dirname "$0")/../..}"
KILN=${KILN:-$PWD/kiln}
tmp=$(mktemp -d /tmp/kiln-doctor-$$.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
SUITE=doctor
. "${ROOT:-$PWD}/tests/harness/report.sh"

# field NAME KEY [FILE]: one check's status, found or fix from doctor's JSON
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[3]))
c = [c for c in d["checks"] if c["name"] == sys.argv[1]]
print(c[0][sys.argv[2]] if c else "NO-SUCH-CHECK")' "$1" "$2" "${3:-$tmp/d.json}"
}
# want NAME STATUS: the check's status is STATUS, and it has a fix exactly when not yes
want() {
	local st fix
	st=$(field "$1" status "${3:-$tmp/d.json}"); fix=$(field "$1" fix "${3:-$tmp/d.json}")
	if [ "$st" != "$2" ]; then fail "$1${4:-}" "status '$st', want '$2' ($(field "$1" found "${3:-$tmp/d.json}"))"
	elif [ "$st" = yes ] && [ "$fix" != None ]; then fail "$1${4:-}" "a fix on a yes: $fix"
	elif [ "$st" != yes ] && [ "$fix" = None ]; then fail "$1${4:-}" "status $st without a fix"
	else pass "$1${4:-}"; fi
}
has() {   # name, text, wanted substring
	[[ $2 == *"$3"* ]] && pass "$1" || fail "$1" "no '$3' in '$2'"
}

"$KILN" doctor --json >"$tmp/d.json" 2>"$tmp/err"; rc=$?
if ! python3 -m json.tool "$tmp/d.json" >/dev/null 2>&1; then
	fail json "not JSON (rc $rc): $(head -c 300 "$tmp/d.json") $(cat "$tmp/err")"
	exit 0
fi
pass json
"$KILN" doctor >"$tmp/d.txt" 2>&1; trc=$?
check exit-text-json "$rc" "$trc"
check ok-is-exit "$([ $rc -eq 0 ] && echo True || echo False)" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ok"])' "$tmp/d.json")"
# the text says the same: one line a check with its status, a fix line under each warn and no
check text-lines "$(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print(c["status"], c["name"])
    if c["status"] != "yes": print("fix")' "$tmp/d.json")" \
	"$(awk '/^(yes|warn|no) / {print $1, $2} /^ +fix: / {print "fix"}' "$tmp/d.txt")"
check no-stderr "" "$(cat "$tmp/err")"

# ---- each check against the fact ---------------------------------------------------------
has kernel "$(field kernel found)" "$(uname -r)"
mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)
case "$mode" in
none) want lockdown yes ;;
integrity | confidentiality) want lockdown warn; has lockdown-mode "$(field lockdown found)" "$mode" ;;
*) want lockdown warn; has lockdown-unknown "$(field lockdown fix)" "mount -t securityfs" ;;
esac
for k in kprobe uprobe; do
	if [ -r "/sys/bus/event_source/devices/$k/type" ]; then want "${k}s" yes
	else
		want "${k}s" warn
		opt=CONFIG_${k^^}_EVENTS
		has "${k}s-fix" "$(field "${k}s" fix)" "$opt=y"
		if [ -r /proc/config.gz ]; then
			zcat /proc/config.gz | grep -q "^$opt=" && s="$opt is set" || s="$opt is not set"
			has "${k}s-config" "$(field "${k}s" found)" "$s"
		fi
	fi
done
jit=$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)
if [ -z "$jit" ]; then want jit warn
elif [ "$jit" = 1 ]; then want jit yes
else want jit warn; has jit-fix "$(field jit fix)" "sysctl net.core.bpf_jit_enable=1"; fi
[ -n "$jit" ] && has jit-value "$(field jit found)" "bpf_jit_enable = $jit"
up=$(cat /proc/sys/kernel/unprivileged_bpf_disabled 2>/dev/null)
[ -n "$up" ] && has unprivileged-value "$(field unprivileged found)" "unprivileged_bpf_disabled = $up"
[ -r /sys/kernel/btf/vmlinux ] && want btf yes || want btf warn
mnt() {   # type dir [file]: whether the mount table shows type mounted at dir
	awk -v t="$1" -v d="$2" '$3 == t && $2 == d {f=1} END {exit !f}' "${3:-/proc/self/mounts}"
}
if mnt bpf /sys/fs/bpf; then want bpffs yes; else want bpffs warn; fi
if [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]; then want tracefs yes
else want tracefs warn; fi
if mnt debugfs /sys/kernel/debug; then want debugfs yes; has debugfs-at "$(field debugfs found)" "mounted at /sys/kernel/debug"
elif mnt tracefs /sys/kernel/tracing; then want debugfs yes; has debugfs-unneeded "$(field debugfs found)" "not mounted"
else want debugfs warn; fi
grep -qw bpf /sys/kernel/security/lsm 2>/dev/null && want bpf-lsm yes || want bpf-lsm warn
# capabilities: the effective set this shell passes on (bit 39 CAP_BPF, 21 CAP_SYS_ADMIN)
eff=$((16#$(awk '/^CapEff:/ {print $2}' /proc/self/status)))
for cap in BPF:39 PERFMON:38 NET_ADMIN:12 SYS_ADMIN:21; do
	n=${cap#*:} name=CAP_${cap%:*}
	found=$(field capabilities found)
	lacking=${found#*lacking: }; [ "$lacking" = "$found" ] && lacking=""
	haveit=${found%%; lacking*}
	if (( eff >> n & 1 )); then has "cap-$name" "$haveit" "$name"
	else has "cap-$name" "${lacking:-$found}" "$name"; fi
done
if (( eff >> 21 & 1 || (eff >> 39 & 1 && eff >> 38 & 1 && eff >> 12 & 1) )); then want capabilities yes
elif (( eff >> 39 & 1 )); then want capabilities warn
elif [ "$up" = 0 ]; then want capabilities warn
else want capabilities no; fi
if (( eff >> 39 & 1 || eff >> 21 & 1 )); then want 'bpf()' yes; fi
# fentry: the verdict agrees with whether kiln loads an fentry program at all
if "$KILN" check tests/attach/fentry.lisp >"$tmp/fe.out" 2>&1; then want fentry yes
else want fentry warn; fi
# memlock: the limit as `ulimit -l` gives it
ml=$(ulimit -l); [ "$ml" = unlimited ] || ml="$ml KB"
has memlock-value "$(field memlock found)" "$ml"

# ---- a 64 KB memlock limit: the verdict is whether a 2 MB map loads under it -------------
cat >"$tmp/big.lisp" <<'EOF'
(defmap big :type :array :key u32 :value u64 :max-entries 262144)
(defprog touch (:type :xdp)
  (incf (getmap big 7))
  XDP_PASS)
EOF
prlimit --memlock=65536:65536 "$KILN" doctor --json >"$tmp/m.json" 2>&1
has memlock-low-value "$(field memlock found "$tmp/m.json")" "64 KB (hard 64 KB)"
if prlimit --memlock=65536:65536 "$KILN" test-run "$tmp/big.lisp" >"$tmp/big.out" 2>&1; then
	# it loads: the kernel does not count maps against the limit (or libbpf may raise it), and
	# doctor must not cry wolf
	want memlock yes "$tmp/m.json" -low
	f=$(field memlock found "$tmp/m.json")
	[[ $f == *"not used"* || $f == *"raised to unlimited"* ]] && pass memlock-low-why \
		|| fail memlock-low-why "neither unused nor raised: $f"
else
	want memlock no "$tmp/m.json" -low
	has memlock-low-fix "$(field memlock fix "$tmp/m.json")" "ulimit -l unlimited"
fi
prlimit --memlock=65536:65536 "$KILN" doctor >"$tmp/m.txt" 2>&1
has memlock-low-text "$(grep -A1 '^[a-z]* *memlock ' "$tmp/m.txt" | tr -s ' \n' ' ')" "64 KB"

# ---- a mount namespace without bpffs and tracefs: both told, with their mount commands ------
if unshare -m --propagation private true 2>/dev/null; then
	unshare -m --propagation private bash -c '
		for d in /sys/fs/bpf /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
			while awk -v d="$d" "\$2 == d {f=1} END {exit !f}" /proc/self/mounts; do umount -l "$d" || break; done
		done
		cp /proc/self/mounts "$2/before"
		"$1" doctor --json >"$2/ns.json" 2>"$2/ns.err"; echo $? >"$2/ns.rc"
		"$1" doctor >"$2/ns.txt" 2>&1
		cp /proc/self/mounts "$2/after"' - "$KILN" "$tmp"
	if mnt bpf /sys/fs/bpf "$tmp/before" || mnt tracefs /sys/kernel/tracing "$tmp/before"; then
		echo "SKIP doctor/ns-bpffs: bpffs or tracefs could not be unmounted in a mount namespace"
	else
		want bpffs warn "$tmp/ns.json" -unmounted
		check bpffs-unmounted-fix "sudo mount -t bpf bpf /sys/fs/bpf" "$(field bpffs fix "$tmp/ns.json")"
		want tracefs warn "$tmp/ns.json" -unmounted
		check tracefs-unmounted-fix "sudo mount -t tracefs tracefs /sys/kernel/tracing" "$(field tracefs fix "$tmp/ns.json")"
		# neither is essential; and doctor mounted nothing (kiln's other commands would)
		check unmounted-exit "$rc" "$(cat "$tmp/ns.rc")"
		check unmounted-nothing-mounted "$(cat "$tmp/before")" "$(cat "$tmp/after")"
		check unmounted-no-notice "" "$(cat "$tmp/ns.err")"
		has unmounted-text "$(grep -A2 '^warn  bpffs' "$tmp/ns.txt" | tr -s ' \n' ' ')" "fix: sudo mount -t bpf bpf /sys/fs/bpf"
	fi
else
	echo "SKIP doctor/ns-bpffs: unshare -m is refused here (no CAP_SYS_ADMIN for mount namespaces)"
fi

# ---- no capabilities: bpf() and capabilities no, with their fixes; exit status 1 ------------
nocaps() { setpriv --bounding-set=-all --inh-caps=-all -- "$@"; }
if nocaps true 2>/dev/null; then
	eff=$(nocaps awk '/^CapEff:/ {print $2}' /proc/self/status)
	nocaps "$KILN" doctor --json >"$tmp/c.json" 2>"$tmp/c.err"; crc=$?
	nocaps "$KILN" doctor >"$tmp/c.txt" 2>&1
	check nocaps-effective 0000000000000000 "$eff"
	if [ "$up" = 0 ]; then
		want capabilities warn "$tmp/c.json" -nocaps
	else
		want capabilities no "$tmp/c.json" -nocaps
		want 'bpf()' no "$tmp/c.json" -nocaps
		want unprivileged no "$tmp/c.json" -nocaps
		check nocaps-exit 1 "$crc"
		check nocaps-ok False "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ok"])' "$tmp/c.json")"
	fi
	has nocaps-fix "$(field capabilities fix "$tmp/c.json")" "setcap cap_bpf,cap_perfmon,cap_net_admin"
	has nocaps-found "$(field capabilities found "$tmp/c.json")" "none of CAP_BPF"
	# the facts read from files are there without privilege too
	[ -r /sys/bus/event_source/devices/uprobe/type ] && want uprobes yes "$tmp/c.json" -nocaps
	check nocaps-lockdown "$(field lockdown status)" "$(field lockdown status "$tmp/c.json")"
	has nocaps-text "$(tail -1 "$tmp/c.txt")" "checks:"
else
	echo "SKIP doctor/nocaps: setpriv cannot drop the capability bounding set here"
fi

# ---- usage, help --------------------------------------------------------------------------
"$KILN" doctor extra >/dev/null 2>&1; check usage-extra 2 $?
"$KILN" doctor --bogus >/dev/null 2>&1; check usage-bogus 2 $?
has help "$("$KILN" doctor --help)" "usage: kiln doctor [--json]"
exit 0

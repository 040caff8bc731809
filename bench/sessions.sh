#!/usr/bin/env bash
# sessions.sh — start-up of `kiln run` on Whistler's five session examples: the time from
# starting kiln to the first line it prints, and to the line each prints once its program is
# compiled, loaded and attached (fork-tracker, ffi-call-tracker: "Tracing ..."; the cgroup
# ones: "Attached"/"Counting"; runqlat, a kiln program in eval-when: kiln run's "running").
# Median of N rounds (default 5). Then Ctrl-C (the cgroup examples run in a mount namespace
# where /sys/fs/cgroup is a cgroup of this script's, as tests/suites/sessions.sh does).
#   bash bench/sessions.sh [ROUNDS]
# Whistler's files are read from $WHISTLER_DIR or the fetched mirror, never copied.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KILN=${KILN:-$ROOT/kiln}
WH=${WHISTLER_DIR:-/work/.mirror/atgreen+Whistler/repo}
rounds=${1:-5}
tmp=$(mktemp -d)
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/kiln-bench-$$
mkdir "$cg"
trap 'rmdir "$cg" 2>/dev/null; rm -rf "$tmp" /tmp/cgroup-skb-count.bpf.o' EXIT
lib=$(ldconfig -p | awk '$1 == "libffi.so.8" && /x86-64/ { print $NF; exit }')
for n in fork-tracker runqlat cgroup-skb-count cgroup-skb-session ffi-call-tracker; do
	if [ -f "$WH/examples/$n.lisp" ]; then cp "$WH/examples/$n.lisp" "$tmp/"
	else git -C "$WH" show "HEAD:examples/$n.lisp" >"$tmp/$n.lisp" || exit 1; fi
done
python3 - "$KILN" "$tmp" "$cg" "$lib" "$rounds" <<'PY'
import os, selectors, signal, statistics, subprocess, sys, time
kiln, tmp, cg, lib, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
ns = ["unshare", "-m", "sh", "-c", 'mount --bind "$1" /sys/fs/cgroup && exec "$2" run "$3"', "sh", cg, kiln]
runs = [
    ("fork-tracker", [kiln, "run", f"{tmp}/fork-tracker.lisp"], "Tracing process forks"),
    ("runqlat", [kiln, "run", f"{tmp}/runqlat.lisp"], "running"),
    ("cgroup-skb-count", ns + [f"{tmp}/cgroup-skb-count.lisp"], "Attached to"),
    ("cgroup-skb-session", ns + [f"{tmp}/cgroup-skb-session.lisp"], "Counting egress"),
    ("ffi-call-tracker", [kiln, "run", f"{tmp}/ffi-call-tracker.lisp", lib], "Tracing ffi_call"),
]
def once(cmd, ready):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    sel.register(p.stderr, selectors.EVENT_READ)
    first = done = None
    buf = b""
    while done is None and time.monotonic() - t0 < 20:
        for key, _ in sel.select(timeout=1):
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                continue
            now = time.monotonic() - t0
            if first is None:
                first = now
            buf += data
            if ready.encode() in buf:
                done = now
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill(); p.communicate()
    return first, done
print(f"{'example':<20} {'first line':>12} {'attached':>12}   (median of {rounds}, ms)")
for name, cmd, ready in runs:
    firsts, dones = [], []
    for _ in range(rounds):
        f, d = once(cmd, ready)
        if f is not None: firsts.append(f * 1000)
        if d is not None: dones.append(d * 1000)
    fm = f"{statistics.median(firsts):10.1f}" if firsts else "         -"
    dm = f"{statistics.median(dones):10.1f}" if dones else "         -"
    print(f"{name:<20} {fm:>12} {dm:>12}")
PY

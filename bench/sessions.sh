#!/usr/bin/env bash
# sessions.sh — start-up of `kiln run` on Whistler's five session examples, beside Whistler's
# own run of each (SBCL with Whistler's loader, from the same checkout): the time from starting
# the process to the first line it prints, and to the line each prints once its program is
# compiled, loaded and attached (fork-tracker, ffi-call-tracker: "Tracing ..."; the cgroup
# ones: "Attached"/"Counting"; runqlat, a kiln program in eval-when: kiln run's "running" —
# under SBCL it only defines its maps and program and ends, printing nothing: "-").
# Median of N rounds (default 5), kiln's and Whistler's runs interleaved. Then Ctrl-C (the
# cgroup examples run in a mount namespace where /sys/fs/cgroup is a cgroup of this script's,
# one for each side, and /tmp is theirs to write, tests/harness/cgroup_ns.sh, as
# tests/suites/sessions.sh does).
#   bash bench/sessions.sh [ROUNDS]
# Whistler's files are read from its checkout (a peer: tests/harness/peers.sh), extracted into a
# temporary directory, never kept; ASDF compiles its FASLs there once before the rounds (that
# compile is not timed: SBCL's start-up is the load of the compiled loader). Without sbcl only
# kiln is measured.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KILN=${KILN:-$ROOT/kiln}
. "$ROOT/tests/harness/peers.sh"
. "$ROOT/tests/harness/cgroup2.sh"
WH=$WHISTLER_DIR
rounds=${1:-5}
tmp=$(mktemp -d)
cgroot=$(cgroup2_root)
if [ -z "$cgroot" ]; then echo "sessions.sh: no cgroup v2 hierarchy mounted" >&2; exit 1; fi
cg=$cgroot/kiln-bench-$$ wcg=$cgroot/kiln-bench-$$-whistler
mkdir "$cg" "$wcg"
trap 'rmdir "$cg" "$wcg" 2>/dev/null; rm -rf "$tmp"' EXIT
lib=$(ldconfig -p | awk '$1 == "libffi.so.8" && /x86-64/ { print $NF; exit }')
for n in fork-tracker runqlat cgroup-skb-count cgroup-skb-session ffi-call-tracker; do
	if ! whistler_file "examples/$n.lisp" >"$tmp/$n.lisp" || [ ! -s "$tmp/$n.lisp" ]; then
		echo "sessions.sh: no Whistler checkout at '$WH' ($PEERS_HOW)" >&2
		exit 1
	fi
done
W=$tmp/whistler
if command -v sbcl >/dev/null; then
	mkdir "$W"
	if [ -f "$WH/whistler.asd" ]; then cp -r "$WH/." "$W/"
	else peer_git "$WH" archive HEAD | tar -x -C "$W"; fi
	export XDG_CACHE_HOME=$tmp/cache
	if ! timeout 120 sbcl --noinform --non-interactive --eval '(require :asdf)' \
		--eval "(push #p\"$W/\" asdf:*central-registry*)" \
		--eval '(asdf:load-system "whistler/loader")' >"$tmp/warm" 2>&1; then
		echo "Whistler's loader did not load in SBCL: $(grep -v '^;' "$tmp/warm" | grep . | head -3)"
		W=
	fi
else
	echo "no sbcl: only kiln is measured"
	W=
fi
python3 - "$KILN" "$tmp" "$cg" "$wcg" "$lib" "$rounds" "$W" "$ROOT/tests/harness/cgroup_ns.sh" <<'PY'
import os, selectors, signal, statistics, subprocess, sys, time
kiln, tmp, cg, wcg, lib, rounds, W, cgroup_ns = sys.argv[1:6] + [int(sys.argv[6])] + sys.argv[7:9]
def ns(cgroup):   # /sys/fs/cgroup is cgroup, and what the run writes to /tmp goes to a dir of tmp's
    d = os.path.join(tmp, "ns-" + os.path.basename(cgroup))
    os.makedirs(d, exist_ok=True)
    return ["bash", cgroup_ns, cgroup, d, tmp]
sbcl = ["sbcl", "--noinform", "--non-interactive", "--eval", "(require :asdf)",
        "--eval", f'(push #p"{W}/" asdf:*central-registry*)',
        "--eval", '(let ((*error-output* (make-broadcast-stream))) (asdf:load-system "whistler/loader"))']
def wh(n, *args):
    return sbcl + ["--load", f"{tmp}/{n}.lisp", "--end-toplevel-options", *args]
runs = [   # name, kiln's command, Whistler's, the line said once attached
    ("fork-tracker", [kiln, "run", f"{tmp}/fork-tracker.lisp"], wh("fork-tracker"), "Tracing process forks"),
    ("runqlat", [kiln, "run", f"{tmp}/runqlat.lisp"], wh("runqlat"), "running"),
    ("cgroup-skb-count", ns(cg) + [kiln, "run", f"{tmp}/cgroup-skb-count.lisp"],
     ns(wcg) + wh("cgroup-skb-count"), "Attached to"),
    ("cgroup-skb-session", ns(cg) + [kiln, "run", f"{tmp}/cgroup-skb-session.lisp"],
     ns(wcg) + wh("cgroup-skb-session"), "Counting egress"),
    ("ffi-call-tracker", [kiln, "run", f"{tmp}/ffi-call-tracker.lisp", lib],
     wh("ffi-call-tracker", lib), "Tracing ffi_call"),
]
def once(cmd, ready):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    sel.register(p.stderr, selectors.EVENT_READ)
    first = done = None
    buf = b""
    while done is None and sel.get_map() and time.monotonic() - t0 < 20:
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
def med(xs):
    return f"{statistics.median(xs):8.1f}" if xs else "       -"
print(f"{'example':<20} {'kiln first':>10} {'attached':>9}   {'Whistler first':>14} {'attached':>9}"
      f"   (median of {rounds}, ms)")
for name, kcmd, wcmd, ready in runs:
    t = {"kf": [], "kd": [], "wf": [], "wd": []}
    for _ in range(rounds):
        for side, cmd in (("k", kcmd), ("w", wcmd if W else None)):
            if cmd is None:
                continue
            f, d = once(cmd, ready)
            if f is not None: t[side + "f"].append(f * 1000)
            if d is not None: t[side + "d"].append(d * 1000)
    print(f"{name:<20} {med(t['kf']):>10} {med(t['kd']):>9}   {med(t['wf']):>14} {med(t['wd']):>9}")
PY

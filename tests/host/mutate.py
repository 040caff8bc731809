#!/usr/bin/env python3
"""mutate.py — the host side never crashes: seeded mutations of tests/host/*.lisp (a token
deleted, replaced, doubled, or a bracket, a number, a format string put in its place) run under
`kiln run`; each must end with status 0 or 1, or be stopped by the deadline (a mutation may
loop forever). Prints PASS/FAIL lines for host.sh.  usage: mutate.py KILN N SEED"""
import glob, os, random, re, subprocess, sys, tempfile

kiln, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
# not the sessions (a mutation could attach and loop) nor the files that wait for Ctrl-C
files = sorted(f for f in glob.glob("tests/host/*.lisp")
               if not os.path.basename(f).startswith(("interrupt", "session", "err-compile")))
srcs = {f: open(f).read() for f in files}
token = re.compile(r'"[^"]*"|[^\s()]+|[()]')
pool = [t for s in srcs.values() for t in token.findall(s)]
extra = ["(", ")", "nil", "-1", "999999999999", '"~{~a"', '"~"', "#(", "'", "(loop)", "(sleep 0)", "&rest", "&key"]
crashes = []
with tempfile.TemporaryDirectory() as d:
    for i in range(n):
        f = rng.choice(files)
        t = srcs[f]
        m = rng.choice(list(token.finditer(t)))
        r = rng.choice(["", rng.choice(pool), m.group(0) + " " + rng.choice(pool), rng.choice(extra)])
        p = os.path.join(d, f"m{i}.lisp")
        with open(p, "w") as out:
            out.write(t[:m.start()] + r + t[m.end():])
        try:
            rc = subprocess.run([kiln, "run", p], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                timeout=2).returncode
        except subprocess.TimeoutExpired:
            rc = 0
        if rc not in (0, 1):
            crashes.append(f"{f} with {m.group(0)!r} at {m.start()} -> {r!r}: status {rc}")
if crashes:
    print(f"FAIL host/mutations: {len(crashes)} of {n} ended otherwise: " + "; ".join(crashes[:3]))
else:
    print(f"PASS host/mutations ({n}, seed {seed})")

# trace_run.py — bench/trace.sh's timer and summary.
#
#   python3 trace_run.py run NAME SIDE ROUND CMD...   one run, one raw row on stdout
#   python3 trace_run.py summary RAW JSON ROUNDS      the table, and the JSON file
#
# A run starts CMD (kiln trace or bpftrace, the whole process) with
# __BPFTRACE_NOTIFY_PROBES_ATTACHED set, through bench/trace_exec.c ($TRACE_EXEC), which
# reads the clock just before it forks and reports the tracer's pid and, once it ended, its
# peak RSS (wait4's ru_maxrss; neither tracer forks). The start-up time runs from that clock
# to the moment the line of that name is read: kiln trace prints it on stdout after
# attaching, bpftrace 0.17 on stderr (src/bpftrace.cpp), so both streams are one pipe.
# Then, while the tracer still runs, the BPF programs it holds are found by their ids in
# /proc/PID/fdinfo (only the programs this process made, never the machine's) and their
# xlated lengths read with bpftool, but those named in $SKIP_PROGS (bench/trace.sh names
# kiln's BEGIN and END programs there, which kiln keeps loaded while it traces, whereas
# bpftrace 0.17 has closed its BEGIN program once it ran and loads END at the end); then
# SIGINT, and its output is drained until it ends. Rows:
#   R ROUND NAME SIDE MS RSS_KB INSNS PROGS     (INSNS and PROGS "-" when the tracer had
#                                               exited before its programs could be read,
#                                               or held none but BEGIN and END)
#   F ROUND NAME SIDE REASON...                 (it did not attach; its last output line)
# and bench/trace.sh's "L start|end LOADAVG" lines.
import json, math, os, re, select, signal, subprocess, sys, time

NOTIFY = b"__BPFTRACE_NOTIFY_PROBES_ATTACHED\n"
START = re.compile(rb"TRACE_EXEC_START (\d+) (\d+)\n")
END = re.compile(rb"TRACE_EXEC_END (\d+) (-?\d+)\n")
EXEC = os.environ.get("TRACE_EXEC", "build/bench/trace_exec")     # bench/trace_exec.c
ATTACH_TIMEOUT = float(os.environ.get("ATTACH_TIMEOUT", "60"))


def prog_ids(pid):
    """ids of the BPF programs whose fds process PID holds (links name their program
    too: counted once)"""
    ids = set()
    d = f"/proc/{pid}/fdinfo"
    try:
        names = os.listdir(d)
    except OSError:
        return None
    for n in names:
        try:
            with open(f"{d}/{n}") as f:
                text = f.read()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("prog_id:"):
                ids.add(int(line.split()[1]))
    return ids


def insns_of(ids, skip):
    """the kernel's xlated instructions of those programs but the ones named in skip, how
    many those were, and whether every id was still loaded"""
    total = counted = 0
    for i in sorted(ids):
        r = subprocess.run(["bpftool", "prog", "show", "id", str(i), "-j"],
                           capture_output=True, text=True)
        try:
            info = json.loads(r.stdout)
        except ValueError:
            return 0, 0, False
        if "bytes_xlated" not in info:
            return 0, 0, False
        if info.get("name") in skip:
            continue
        total += info["bytes_xlated"] // 8
        counted += 1
    return total, counted, True


def run(name, side, rnd, argv):
    skip = set(os.environ.get("SKIP_PROGS", "").split())
    env = dict(os.environ)
    env["__BPFTRACE_NOTIFY_PROBES_ATTACHED"] = "1"
    r, w = os.pipe()
    acts = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, w, 1), (os.POSIX_SPAWN_DUP2, w, 2),
            (os.POSIX_SPAWN_CLOSE, r)]
    spawner = os.posix_spawn(EXEC, [EXEC] + argv, env, file_actions=acts)
    os.close(w)
    out, seen, pid, start_ns = b"", None, None, None
    deadline = time.monotonic() + ATTACH_TIMEOUT
    while seen is None or pid is None:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            break
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
        if seen is None and NOTIFY in out:
            seen = time.monotonic_ns()
        m = START.search(out)
        if m and pid is None:
            start_ns, pid = int(m.group(1)), int(m.group(2))
    attached_ms = (seen - start_ns) / 1e6 if seen is not None and pid is not None else None
    insns = progs = "-"
    if attached_ms is not None:
        ids = prog_ids(pid)
        if ids:
            n, counted, whole = insns_of(ids, skip)
            if whole and counted:      # all still loaded: the tracer had not exited
                insns, progs = n, counted
    if pid is not None:
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:     # it had ended (exit() in BEGIN) and was reaped
            pass
    # drain until the spawner closes the pipe (END, maps, then its own line), then reap it;
    # a tracer that does not end in 10 s is killed
    end = time.monotonic() + 10
    while True:
        ready, _, _ = select.select([r], [], [], max(0, end - time.monotonic()))
        if not ready:
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
            end = time.monotonic() + 10
            continue
        chunk = os.read(r, 65536)
        if not chunk:
            break
        out += chunk
    os.close(r)
    os.waitpid(spawner, 0)
    m = END.search(out)
    if attached_ms is None or not m:
        text = START.sub(b"", END.sub(b"", out)).decode(errors="replace")
        last = [l for l in text.splitlines() if l.strip()]
        print(f"F {rnd} {name} {side} {last[-1] if last else 'no output'}")
        return
    print(f"R {rnd} {name} {side} {attached_ms:.3f} {m.group(1).decode()} {insns} {progs}")


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return None
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def summary(raw, out, rounds):
    vals, order, failed, load = {}, [], {}, {}
    for line in open(raw):
        f = line.split()
        if not f:
            continue
        if f[0] == "L":
            load[f[1]] = " ".join(f[2:])
            continue
        if f[0] == "F":
            failed.setdefault(f[2], f"{f[3]}: {' '.join(f[4:])}")
            continue
        if f[0] != "R":
            continue
        name, side = f[2], f[3]
        if name not in order:
            order.append(name)
        for m, v in zip(("ms", "rss_kb", "insns", "progs"), f[4:8]):
            if v != "-":
                vals.setdefault((name, side, m), []).append(float(v))
    metrics = ("ms", "rss_kb", "insns")
    rows, ratios = [], {m: [] for m in metrics}
    totals = {m: [0.0, 0.0] for m in metrics}
    for name in order:
        if name in failed:
            continue
        row = {"script": name}
        for side in ("kiln", "bpftrace"):
            row[side] = {m: median(vals.get((name, side, m), []))
                         for m in metrics + ("progs",)}
            row[side]["runs"] = len(vals.get((name, side, "ms"), []))
        if not row["kiln"]["runs"] or not row["bpftrace"]["runs"]:
            continue
        for m in metrics:
            k, b = row["kiln"][m], row["bpftrace"][m]
            row[m + "_ratio"] = k / b if k is not None and b else None
            if row[m + "_ratio"] is not None:
                ratios[m].append(row[m + "_ratio"])
                totals[m][0] += k
                totals[m][1] += b
        rows.append(row)

    def fmt(v, d=1):
        return "-" if v is None else f"{v:.{d}f}"

    print(f"{'script':<16} {'start-up ms k/b':>17} {'ratio':>6} {'speed-up':>8} "
          f"{'RSS MB k/b':>13} {'ratio':>6} {'insns k/b':>13} {'ratio':>6}")
    for row in rows:
        k, b = row["kiln"], row["bpftrace"]
        su = 1 / row["ms_ratio"] if row["ms_ratio"] else None
        print(f"{row['script']:<16} {fmt(k['ms']) + '/' + fmt(b['ms']):>17} "
              f"{fmt(row['ms_ratio'], 3):>6} {fmt(su) + 'x':>8} "
              f"{fmt(k['rss_kb'] and k['rss_kb'] / 1024) + '/' + fmt(b['rss_kb'] and b['rss_kb'] / 1024):>13} "
              f"{fmt(row['rss_kb_ratio'], 3):>6} "
              f"{fmt(k['insns'], 0) + '/' + fmt(b['insns'], 0):>13} {fmt(row['insns_ratio'], 3):>6}")
    summ = {}
    print()
    print(f"{'metric':<8} {'kiln total':>12} {'bpftrace total':>15} {'totals':>7} "
          f"{'geomean':>8} {'median':>7} {'scripts':>7}")
    for m in metrics:
        r = ratios[m]
        geo = math.exp(sum(math.log(x) for x in r) / len(r)) if r else None
        tk, tb = totals[m]
        summ[m] = {"kiln_total": tk, "bpftrace_total": tb,
                   "ratio_of_totals": tk / tb if tb else None,
                   "geomean": geo, "median": median(r), "scripts": len(r)}
        print(f"{m:<8} {tk:>12.1f} {tb:>15.1f} {fmt(summ[m]['ratio_of_totals'], 3):>7} "
              f"{fmt(geo, 3):>8} {fmt(summ[m]['median'], 3):>7} {len(r):>7}")
    if ratios["ms"]:
        print(f"start-up: kiln trace is {1 / summ['ms']['geomean']:.1f}x faster than bpftrace "
              f"(geometric mean; {1 / summ['ms']['median']:.1f}x median; target >= 20x)")
    print(f"(medians of {rounds} runs each, kiln and bpftrace taking turns; start-up: spawn to "
          f"__BPFTRACE_NOTIFY_PROBES_ATTACHED; RSS: peak of the whole run; insns: xlated, "
          f"the programs it held while tracing, BEGIN and END left out; ratios kiln/bpftrace)")
    print("load average (1, 5, 15 min) at the start: %s, at the end: %s" %
          (load.get("start", "?"), load.get("end", "?")))
    for name, why in failed.items():
        print(f"not measured: {name}: {why}")
    with open(out, "w") as f:
        json.dump({"rounds": rounds, "load_average": load, "scripts": rows, "summary": summ,
                   "not_measured": failed}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "summary":
        summary(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("usage: trace_run.py run NAME SIDE ROUND CMD... | summary RAW JSON ROUNDS")

# tests/trace/rtcase.py — one case of bpftrace's runtime suite (tests/runtime/* of its source
# tree): reading a file of cases, and running one case with {{BPFTRACE}} standing for a
# tracer command. Used by runtime.py (the v0.17.0 suite, judged against bpftrace 0.17 run
# here) and runtime026.py (the v0.26.1 suite, judged against its own EXPECT lines).
#
# A file holds cases separated by blank lines; a case is lines "FIELD value" (NAME, RUN,
# EXPECT a regular expression, TIMEOUT seconds, REQUIRES a shell condition, BEFORE/AFTER
# commands, ENV, ARCH, MIN_KERNEL/MAX_KERNEL, REQUIRES_FEATURE, WILL_FAIL; PROG P stands for
# RUN {{BPFTRACE}} -e 'P'). As bpftrace's own runner does, the timeout starts once the tracer
# says its probes are attached (__BPFTRACE_NOTIFY_PROBES_ATTACHED, printed when that variable
# is set), AFTER starts then too, and a case that outlives its timeout is stopped with SIGTERM
# and passes if its output matches anyway. A non-zero exit fails unless the case says WILL_FAIL.
import os, platform, re, select, signal, subprocess, time

ATTACH_TIMEOUT = 5.0
NOTIFY = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
# the fields that may appear more than once, each kept as a list
LISTS = ("REQUIRES", "EXPECT", "EXPECT_REGEX", "EXPECT_NONE", "EXPECT_REGEX_NONE",
         "EXPECT_FILE", "EXPECT_JSON", "SETUP", "CLEANUP", "REQUIRES_FEATURE", "ENV", "BEFORE",
         "ARG")


def parse(text, suite):
    """The cases of one file, each a dict of its fields (lower-case keys; LISTS as lists)."""
    tests, block = [], []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("#"):
            continue
        if line.strip():
            block.append(line)
        if (not line.strip() or i == len(lines) - 1) and block:
            tests.append(fields(block, suite))
            block = []
    return [t for t in tests if t is not None]


def fields(block, suite):
    t = {"suite": suite, "env": {}, "will_fail": False, "features": [], "order": []}
    for k in LISTS:
        t.setdefault(k.lower(), [])
    for item in block:
        key, _, val = item.partition(" ")
        val = val.strip()
        if key == "REQUIRES_FEATURE":
            t["features"] += val.split()
        elif key == "ENV":
            for e in val.split():
                k, v = e.split("=", 1)
                t["env"][k] = v
        elif key == "WILL_FAIL":
            t["will_fail"] = True
        elif key == "TIMEOUT":
            t["timeout"] = float(val)
        elif key in LISTS:
            t[key.lower()].append(val)
            t["order"].append((key, val))
        else:
            t[key.lower()] = val
    t.setdefault("timeout", 5.0)
    if "prog" in t:             # a program alone runs as `{{BPFTRACE}} -e 'PROG'`
        t["run"] = "{{BPFTRACE}} -e '%s'" % t["prog"]
    if "run" not in t or "name" not in t:
        return None
    arch = t.get("arch")
    if arch and platform.machine().lower() not in [a.strip() for a in arch.split("|")]:
        return None
    return t


def kernel_tuple(s):
    return tuple(int(x) for x in re.findall(r"\d+", s)[:3])


# REQUIRES_FEATURE names and the line of `bpftrace --info` that says the feature is there
INFO_LINES = {
    "loop": "Loop support: yes", "probe_read_kernel": "probe_read_kernel: yes",
    "btf": "btf: yes", "kfunc": "kfunc: yes", "dpath": "dpath: yes",
    "uprobe_refcount": "uprobe refcount (depends on Build:bcc bpf_attach_uprobe refcount): yes",
    "signal": "send_signal: yes", "iter:task": "iter:task: yes",
    "iter:task_file": "iter:task_file: yes", "libpath_resolv": "bcc library path resolution: yes",
    "dwarf": "libdw (DWARF support): yes", "kprobe_multi": "kprobe_multi: yes",
    "skboutput": "skboutput: yes", "aot": None,
}


def features_of(info):
    """{feature: bool} from the text of `bpftrace --info`."""
    return {f: (line is not None and line in info) for f, line in INFO_LINES.items()}


def skip_reason(t, env, features, cwd=None):
    kv = kernel_tuple(platform.release())
    if t.get("min_kernel") and kv < kernel_tuple(t["min_kernel"]):
        return "kernel older than " + t["min_kernel"]
    if t.get("max_kernel") and kv > kernel_tuple(t["max_kernel"]):
        return "kernel newer than " + t["max_kernel"]
    for f in t["features"]:
        want = not f.startswith("!")
        if features is not None and features.get(f.lstrip("!"), False) != want:
            return "feature %s" % f
    for req in t["requires"]:
        if subprocess.call(req, shell=True, stdout=subprocess.DEVNULL, cwd=cwd,
                           stderr=subprocess.DEVNULL, env=env) != 0:
            return "unmet condition: " + req
    return None


def locks_of(t):
    """What a case holds while it runs, so cases sharing it run one at a time: each program
    its BEFORE lines start (found again by name with pidof) and each fixed /tmp path."""
    keys = set()
    for b in t["before"]:
        keys |= {os.path.basename(w) for w in b.split()}
    for field in [t["run"]] + t["before"] + [t.get("after", "")]:
        keys |= set(re.findall(r"/tmp/[\w.-]+", field))
    return sorted(keys)


def before_pid(before, child, end):
    """The pid of the process named child that BEFORE started (in BEFORE's session, so never
    one of the same name started by someone else), waiting until end; None if none came."""
    while time.time() < end and before.poll() is None:
        out = subprocess.run(["pidof", child], capture_output=True, text=True).stdout.split()
        for pid in out:
            try:
                if os.getsid(int(pid)) == before.pid:
                    return pid
            except OSError:
                pass
        time.sleep(0.05)
    return None


def start_before(t, cwd, end):
    """Starts each BEFORE command; returns (processes, the last one's pid or None, why)."""
    procs, pid = [], None
    for b in t["before"]:
        p = subprocess.Popen(b, shell=True, cwd=cwd, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        pid = before_pid(p, os.path.basename(b.split()[-1]), end)
        if pid is None:
            return procs, None, "BEFORE did not start: " + b
    return procs, pid, ""


def own_tracer(cmd, tracer, sid):
    """cmd with `pidof bpftrace` and `pkill [-SIG] bpftrace` aimed at this case's own tracer
    (the processes of its session sid named as the tracer's executable), never at another
    case's or another test's bpftrace running on the machine at the same time."""
    name = os.path.basename(tracer.split()[0])[:15]
    cmd = re.sub(r"\bpidof bpftrace\b", "pgrep -s %d -x %s" % (sid, name), cmd)
    return re.sub(r"\bpkill( -\S+)? bpftrace\b", lambda m: "pkill%s -s %d -x %s" % (m.group(1) or "", sid, name), cmd)


def run_one(t, tracer, cwd, features=None, extra_env=None, judge=None):
    """Runs case t with {{BPFTRACE}} as tracer; returns (passed, why, output, exit status):
    passed is None when the case cannot run here (why says what is missing)."""
    env = {"PATH": os.environ["PATH"], NOTIFY: "1", "test": t["name"]}
    env.update(extra_env or {})
    env.update(t["env"])
    reason = skip_reason(t, env, features, cwd)
    if reason:
        return None, reason, "", None
    cmd = t["run"].replace("{{BPFTRACE}}", tracer)
    after = None
    befores, pid, why = start_before(t, cwd, time.time() + t["timeout"])
    if why:
        for b in befores:
            kill(b)
        return False, why, "", None
    if pid is not None:
        cmd = cmd.replace("{{BEFORE_PID}}", pid)
    p = subprocess.Popen(cmd, shell=True, cwd=cwd, env=env, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, timed_out, attached = b"", False, False
    deadline = time.time() + t.get("attach_timeout", ATTACH_TIMEOUT)
    fd = p.stdout.fileno()
    while True:
        chunk = read_some(fd, deadline)
        if chunk is None:
            timed_out = True
            break
        if not chunk:
            break
        out += chunk
        if not attached and (NOTIFY + "\n").encode() in out:
            attached = True
            deadline = time.time() + t["timeout"]
            if t.get("after"):
                after = subprocess.Popen(own_tracer(t["after"], tracer, p.pid), shell=True, cwd=cwd,
                                         start_new_session=True,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if timed_out and p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        end = time.time() + 2      # what it prints as it ends (END, maps)
        while True:
            chunk = read_some(fd, end)
            if not chunk:
                break
            out += chunk
    kill(p)
    p.stdout.close()
    for b in befores + [after]:
        kill(b)
    text = out.decode("utf-8", "replace")
    return (judge or judge017)(t, text, timed_out, p.returncode)


def judge017(t, text, timed_out, rc):
    """v0.17's verdict: EXPECT (its last line) a regular expression the output matches."""
    shown = [l for l in text.split("\n") if l.strip() and NOTIFY not in l]
    first = shown[0][:160] if shown else "(no output)"
    expect = t.get("expect")
    if isinstance(expect, list):
        expect = expect[-1] if expect else None
    if timed_out:
        if expect is not None and re.search(expect, text):
            return True, "", text, rc
        return False, "timed out after %gs without the expected output: %s" % (
            t["timeout"], first), text, rc
    if rc != 0 and not t["will_fail"]:
        return False, "exit status %d: %s" % (rc, first), text, rc
    if expect is not None and re.search(expect, text, re.M):
        return True, "", text, rc
    return False, "output does not match /%s/: %s" % (expect, first), text, rc


def read_some(fd, deadline):
    """Bytes from fd, b"" at its end, None once the deadline has passed."""
    left = deadline - time.time()
    if left <= 0:
        return None
    r, _, _ = select.select([fd], [], [], left)
    return os.read(fd, 65536) if r else None


def kill(p):
    if p is not None and p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if p is not None:
        p.wait()


def run_all(cases, fn, jobs):
    """fn(case) for every case, `jobs` at a time, in the cases' order in the result. Cases that
    share a lock (locks_of) form one chain run in order by one worker, so none waits holding a
    worker; the longest chains (by their TIMEOUTs) start first. Cases that take the first
    exec on the machine as theirs (a probe on execve) run alone at the end: another case's
    exec would be the one they see."""
    import concurrent.futures
    parent = list(range(len(cases)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    owner = {}
    for i, t in enumerate(cases):
        for k in locks_of(t):
            if k in owner:
                parent[root(i)] = root(owner[k])
            else:
                owner[k] = i
    chains, alone = {}, []
    for i in range(len(cases)):
        if re.search(r"sys_enter_execve|sys_exit_execve", cases[i]["run"]):
            alone.append(i)
        else:
            chains.setdefault(root(i), []).append(i)
    order = sorted(chains.values(), key=lambda c: -sum(cases[i]["timeout"] + 1 for i in c))
    results = [None] * len(cases)

    def chain(idx):
        for i in idx:
            results[i] = fn(cases[i])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for f in [pool.submit(chain, c) for c in order]:
            f.result()
    chain(alone)
    return results

#!/usr/bin/env python3
# tests/trace/runtime.py — kiln's runner for bpftrace's runtime test files (tests/runtime/* of
# a bpftrace source tree, read from a git mirror at test time, never copied into kiln).
#
#   runtime.py --mirror GITDIR --tag v0.17.0 --kiln KILN [--bpftrace BPFTRACE] FILE...
#
# Each file holds tests separated by blank lines; a test is lines "FIELD value" (NAME, RUN,
# EXPECT a regular expression, TIMEOUT seconds, REQUIRES a shell condition, BEFORE/AFTER
# commands, ENV, ARCH, MIN_KERNEL/MAX_KERNEL, REQUIRES_FEATURE, WILL_FAIL; PROG P stands for
# RUN {{BPFTRACE}} -e 'P'). Every test runs twice, with {{BPFTRACE}}
# standing for bpftrace and then for `kiln trace`; kiln is judged only on the tests bpftrace
# itself passes on this machine, since many depend on bpftrace's build tree (testprogs/) or
# on kernel features this machine lacks. The files' relative paths (runtime/scripts/...) are
# resolved in a scratch copy of tests/runtime made with `git archive`.
#
# As bpftrace's own runner does: the timeout starts once the tracer says its probes are
# attached (__BPFTRACE_NOTIFY_PROBES_ATTACHED, which both print when that variable is set),
# AFTER starts then too, and a test that outlives its timeout is stopped with SIGTERM and
# passes if its output matches anyway. A non-zero exit fails unless the test says WILL_FAIL.
# Prints one line per test kiln fails, then the two counts; exits 0 (the caller asserts).
import argparse, hashlib, json, os, platform, re, select, shutil, signal, subprocess, sys, tarfile, tempfile, time, io

ATTACH_TIMEOUT = 5.0
NOTIFY = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"


def parse(text, suite):
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
    t = {"suite": suite, "requires": [], "env": {}, "will_fail": False, "features": []}
    for item in block:
        parts = item.split()
        key, val = parts[0], " ".join(parts[1:])
        if key == "REQUIRES":
            t["requires"].append(val)
        elif key == "REQUIRES_FEATURE":
            t["features"] += val.split()
        elif key == "ENV":
            for e in val.split():
                k, v = e.split("=", 1)
                t["env"][k] = v
        elif key == "WILL_FAIL":
            t["will_fail"] = True
        elif key == "TIMEOUT":
            t["timeout"] = int(val)
        else:
            t[key.lower()] = val
    if "prog" in t:             # a program alone runs as `{{BPFTRACE}} -e 'PROG'`
        t["run"] = "{{BPFTRACE}} -e '%s'" % t["prog"]
    if "run" not in t:
        return None
    arch = t.get("arch")
    if arch and platform.machine().lower() not in [a.strip() for a in arch.split("|")]:
        return None
    return t


def kernel_tuple(s):
    return tuple(int(x) for x in re.findall(r"\d+", s)[:3])


def skip_reason(t, env):
    kv = kernel_tuple(platform.release())
    if t.get("min_kernel") and kv < kernel_tuple(t["min_kernel"]):
        return "kernel older than " + t["min_kernel"]
    if t.get("max_kernel") and kv > kernel_tuple(t["max_kernel"]):
        return "kernel newer than " + t["max_kernel"]
    for req in t["requires"]:
        if subprocess.call(req, shell=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env) != 0:
            return "unmet condition: " + req
    return None


def run_one(t, tracer, cwd):
    """Runs test t with {{BPFTRACE}} as tracer; returns (passed, why)."""
    env = {"PATH": os.environ["PATH"], NOTIFY: "1", "test": t["name"]}
    env.update(t["env"])
    reason = skip_reason(t, env)
    if reason:
        return None, reason
    cmd = t["run"].replace("{{BPFTRACE}}", tracer)
    before = after = None
    if t.get("before"):
        before = subprocess.Popen(t["before"], shell=True, cwd=cwd, start_new_session=True,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        child = os.path.basename(t["before"].split()[-1])
        end = time.time() + t["timeout"]
        while subprocess.call(["pidof", child], stdout=subprocess.DEVNULL) != 0:
            if time.time() > end or before.poll() is not None:
                kill(before)
                return False, "BEFORE did not start: " + t["before"]
            time.sleep(0.05)
        if "{{BEFORE_PID}}" in cmd:
            pid = subprocess.run(["pidof", child], capture_output=True, text=True).stdout.split()[0]
            cmd = cmd.replace("{{BEFORE_PID}}", pid)
    p = subprocess.Popen(cmd, shell=True, cwd=cwd, env=env, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, timed_out = b"", False
    deadline = time.time() + ATTACH_TIMEOUT
    attached = False
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
                after = subprocess.Popen(t["after"], shell=True, cwd=cwd, start_new_session=True,
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
    p.wait()
    kill(before)
    kill(after)
    text = out.decode("utf-8", "replace")
    shown = [l for l in text.split("\n") if l.strip() and NOTIFY not in l]
    first = shown[0] if shown else "(no output)"
    if timed_out:
        if re.search(t["expect"], text):
            return True, ""
        return False, "timed out after %ss without the expected output: %s" % (t["timeout"], first)
    if p.returncode != 0 and not t["will_fail"]:
        return False, "exit status %d: %s" % (p.returncode, first)
    if re.search(t["expect"], text, re.M):
        return True, ""
    return False, "output does not match /%s/: %s" % (t["expect"], first)


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
        p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirror", required=True)
    ap.add_argument("--tag", default="v0.17.0")
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--bpftrace", default="bpftrace")
    ap.add_argument("--bpftrace-cache", help="a JSON file of bpftrace's results, read and written:"
                    " a second run on the same machine (the ASan run) does not run bpftrace again")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    cache, version = {}, ""
    if a.bpftrace_cache:
        version = subprocess.run([a.bpftrace, "--version"], capture_output=True, text=True).stdout.strip()
        try:
            with open(a.bpftrace_cache) as fh:
                cache = json.load(fh)
        except (OSError, ValueError):
            cache = {}
    retried = []
    work = tempfile.mkdtemp(prefix="kiln-runtime-")
    try:
        tar = subprocess.run(["git", "-C", a.mirror, "archive", a.tag, "tests/runtime"],
                             capture_output=True, check=True).stdout
        tarfile.open(fileobj=io.BytesIO(tar)).extractall(work)
        cwd = os.path.join(work, "tests")
        ref_pass = kiln_pass = skipped = 0
        fails = []
        for f in a.files:
            with open(os.path.join(cwd, "runtime", f)) as fh:
                tests = parse(fh.read(), f)
            for t in tests:
                # bpftrace's result: from the cache (same test text, same bpftrace), or run,
                # and run again once when it fails (on a loaded machine a timing test can)
                key = "%s.%s %s %s" % (f, t["name"], version,
                                       hashlib.sha1(json.dumps(t, sort_keys=True).encode()).hexdigest())
                if key in cache:
                    ok = cache[key]
                else:
                    ok, why = run_one(t, a.bpftrace, cwd)
                    if ok is False:
                        ok, why = run_one(t, a.bpftrace, cwd)
                    cache[key] = ok
                if ok is None:
                    skipped += 1
                    continue
                if not ok:
                    continue
                ref_pass += 1
                ok, why = run_one(t, a.kiln + " trace", cwd)
                if not ok:   # a second try, said aloud: a test that needs one is flaky
                    ok, why2 = run_one(t, a.kiln + " trace", cwd)
                    if ok:
                        retried.append("%s.%s: %s" % (f, t["name"], why))
                if ok:
                    kiln_pass += 1
                else:
                    fails.append("%s.%s: %s" % (f, t["name"], why))
        if a.bpftrace_cache:
            with open(a.bpftrace_cache, "w") as fh:
                json.dump(cache, fh, indent=0, sort_keys=True)
        for l in fails:
            print("kiln fails " + l)
        for l in retried:
            print("kiln passed on a second try " + l)
        print("bpftrace 0.17: %d passed; kiln trace: %d passed of the tests bpftrace passes"
              " (%d skipped: unmet REQUIRES or kernel version)" % (ref_pass, kiln_pass, skipped))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

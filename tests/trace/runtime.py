#!/usr/bin/env python3
# tests/trace/runtime.py — kiln's runner for bpftrace v0.17's runtime suite (tests/runtime/* of
# its source tree, read from a git mirror at test time, never copied into kiln).
#
#   runtime.py --mirror GITDIR [--tag v0.17.0] --kiln KILN [--bpftrace BPFTRACE]
#              [--testprogs DIR] [--jobs N] [--exclude FILE] [--bpftrace-cache JSON] FILE...
#
# Every case (rtcase.py reads and runs one) runs with {{BPFTRACE}} standing for bpftrace, then,
# if bpftrace passes it here, for `KILN trace --dialect 0.17`: kiln is judged only on the cases
# bpftrace itself passes on this machine, since many need kernel features this one lacks.
# With BPFTRACE_RUNTIME_TEST_EXECUTABLE set in the environment (bpftrace's own runner's
# setting: a directory holding `bpftrace`, or the file itself), {{BPFTRACE}} is that instead of
# `KILN trace`: a symlink named bpftrace to kiln (which then behaves as `kiln trace`), so the
# cases that print the tracer's own name (comm) see "bpftrace" too.
# The files' relative paths (runtime/scripts/..., ./testprogs/x) are resolved in a scratch copy
# of tests/runtime made with `git archive`, with --testprogs DIR's testprogs/ and testlibs/
# (tests/trace/testprogs.sh builds them) linked beside it, where the suite's build tree has them.
# Cases run --jobs at a time (most wait on a probe or a timeout, not on a CPU); cases that
# start the same program or write the same /tmp path run one after another (rtcase.run_all).
# --exclude names a file of lines "FILE.NAME why" (cases kiln is not judged on, said aloud),
# unless {{BPFTRACE}} is a symlink named bpftrace (BPFTRACE_RUNTIME_TEST_EXECUTABLE).
# Prints a table per file (cases, bpftrace's passes, kiln's passes), one line per case kiln
# fails with why, and the totals; exits 0 (the caller asserts).
import argparse, hashlib, io, json, os, shutil, subprocess, sys, tarfile
import tempfile
sys.dont_write_bytecode = True   # (no __pycache__ left in the tree)
import btsrc, rtcase   # (beside this file)


CACHE_FORM = "r2"   # changed when the runner judges bpftrace's cases differently


def tracer_cmd(kiln):
    """What {{BPFTRACE}} stands for when kiln runs a case."""
    exe = os.environ.get("BPFTRACE_RUNTIME_TEST_EXECUTABLE")
    if exe:
        if os.path.isdir(exe):
            exe = os.path.join(exe, "bpftrace")
        return os.path.abspath(exe) + " --dialect 0.17"
    return kiln + " trace --dialect 0.17"


def read_excludes(path):
    out = {}
    if path:
        with open(path) as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith("#"):
                    key, _, why = line.partition(" ")
                    out[key] = why.strip()
    return out


def scratch(a, work):
    tar = subprocess.run(["git", "-C", a.mirror, "archive", a.tag, "tests/runtime"],
                         capture_output=True, check=True).stdout
    tarfile.open(fileobj=io.BytesIO(tar)).extractall(work)
    cwd = os.path.join(work, "tests")
    if a.testprogs:
        for d in ("testprogs", "testlibs"):
            os.symlink(os.path.abspath(os.path.join(a.testprogs, d)), os.path.join(cwd, d))
    return cwd


def judge_case(t, key, a, cwd, cache, features, kiln):
    """(bpftrace's result, kiln's result or None, why kiln failed, kiln needed a 2nd try)."""
    if key in cache:
        ref = cache[key]
    else:   # run again once when it fails (on a loaded machine a timing case can)
        ref = rtcase.run_one(t, a.bpftrace, cwd, features)[0]
        if ref is False:
            ref = rtcase.run_one(t, a.bpftrace, cwd, features)[0]
    if not ref:
        return ref, None, "", False
    ok, why = rtcase.run_one(t, kiln, cwd)[:2]
    if ok:
        return ref, True, "", False
    ok2 = rtcase.run_one(t, kiln, cwd)[0]   # a second try, said aloud when it passes
    return ref, bool(ok2), why, bool(ok2)


def main():
    ap = argparse.ArgumentParser()
    btsrc.add_args(ap)
    ap.add_argument("--bpftrace-cache", help="a JSON file of bpftrace's results, read and written:"
                    " a second run on the same machine (the ASan run) does not run bpftrace again")
    ap.add_argument("--testprogs", help="a directory holding the built testprogs/ and testlibs/")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--exclude", help="a file of lines 'FILE.NAME why'")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    info = subprocess.run([a.bpftrace, "--info"], capture_output=True, text=True)
    features = rtcase.features_of(info.stdout + info.stderr)
    version = subprocess.run([a.bpftrace, "--version"], capture_output=True, text=True).stdout.strip()
    cache = {}
    if a.bpftrace_cache:
        try:
            with open(a.bpftrace_cache) as fh:
                cache = json.load(fh)
        except (OSError, ValueError):
            cache = {}
    # through a symlink named bpftrace, the cases on the tracer's name are judged too
    excludes = {} if os.environ.get("BPFTRACE_RUNTIME_TEST_EXECUTABLE") else read_excludes(a.exclude)
    kiln = tracer_cmd(a.kiln)
    work = tempfile.mkdtemp(prefix="kiln-runtime-")
    try:
        cwd = scratch(a, work)
        cases, progs = [], os.path.abspath(a.testprogs or "")
        for f in a.files:
            with open(os.path.join(cwd, "runtime", f)) as fh:
                for t in rtcase.parse(fh.read(), f):
                    # the key: the case's text, bpftrace's version, the testprogs built and
                    # how the runner judges (CACHE_FORM)
                    t["key"] = "%s.%s %s %s %s" % (f, t["name"], version, CACHE_FORM, hashlib.sha1(
                        (json.dumps(t, sort_keys=True) + progs).encode()).hexdigest())
                    cases.append(t)
        out = rtcase.run_all(cases, lambda t: None if "%s.%s" % (t["suite"], t["name"]) in excludes
                             else judge_case(t, t["key"], a, cwd, cache, features, kiln), a.jobs)
        report(a, [(t["suite"], t, t["key"], r) for t, r in zip(cases, out)], excludes, cache)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(a, results, excludes, cache):
    table, fails, retried = {}, [], []
    tot = [0, 0, 0, 0, 0]   # cases, skipped, excluded, bpftrace passes, kiln passes
    for f, t, key, r in results:
        row = table.setdefault(f, [0, 0, 0, 0, 0])
        row[0] += 1
        name = "%s.%s" % (f, t["name"])
        if r is None:
            row[2] += 1
            continue
        ref, ok, why, second = r
        cache[key] = ref
        if ref is None:
            row[1] += 1
        elif ref:
            row[3] += 1
            if ok:
                row[4] += 1
                if second:
                    retried.append(name)
            else:
                fails.append("%s: %s" % (name, why))
    if a.bpftrace_cache:
        with open(a.bpftrace_cache, "w") as fh:
            json.dump(cache, fh, indent=0, sort_keys=True)
    print("%-16s %6s %8s %8s %9s %5s" % ("file", "cases", "skipped", "excluded", "bpftrace", "kiln"))
    for f in a.files:
        row = table.get(f, [0, 0, 0, 0, 0])
        print("%-16s %6d %8d %8d %9d %5d" % ((f,) + tuple(row)))
        tot = [x + y for x, y in zip(tot, row)]
    print("%-16s %6d %8d %8d %9d %5d" % (("total",) + tuple(tot)))
    for f, t, key, r in results:
        if r is None:
            print("excluded %s.%s: %s" % (f, t["name"], excludes.get("%s.%s" % (f, t["name"]))))
    for l in fails:
        print("kiln fails " + l)
    for l in retried:
        print("kiln passed on a second try " + l)
    print("bpftrace 0.17: %d passed; kiln trace: %d passed of the tests bpftrace passes"
          " (%d skipped: unmet REQUIRES, feature or kernel version; %d excluded)"
          % (tot[3], tot[4], tot[1], tot[2]))


if __name__ == "__main__":
    main()

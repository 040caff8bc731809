#!/usr/bin/env python3
# tests/trace/runtime026.py — kiln's runner for bpftrace v0.26's runtime suite (tests/runtime/*
# at tag v0.26.1, read from the git mirror at test time, never copied into kiln). bpftrace
# 0.26 is not installed here, so each case is judged against its own expectations:
#
#   runtime026.py --mirror GITDIR [--tag v0.26.1] --kiln KILN [--testprogs DIR] [--jobs N]
#                 FILE...
#
# What v0.26's format adds to v0.17's (rtcase.py reads the fields they share):
#   EXPECT T        a whole line of the output is T (leading and trailing blanks aside);
#   EXPECT_NONE T   no line is; EXPECT_REGEX R / EXPECT_REGEX_NONE R: R matches / does not
#                   match (multi-line mode); all the EXPECT lines of a case must hold;
#   EXPECT_FILE F   the output, blank lines at either end aside, is F's text (after what the
#                   tracer prints before it says its probes are attached); with
#                   LOCALIZE_TIMESTAMPS S, F is a strftime format read at local time S;
#   EXPECT_JSON F   the output is F's JSON value (.ndjson: one value a line); PROG then runs
#                   with -q -f json;
#   PROG / EXPECT / EXPECT_REGEX continue on lines indented past the field's name;
#   RETURN_CODE N   the exit status wanted (default 0); WILL_FAIL: any but 0;
#   SETUP / CLEANUP commands run before and after, and must succeed;
#   SKIP_IF_ENV_HAS K=V; several BEFORE lines; NEW_PIDNS (BEFOREs and RUN in a new pid
#   namespace: not run here, counted as skipped with that reason); TIMEOUT starts at attach.
# Cases this kernel cannot run are skipped, each with the reason (KERNEL_SKIPS: no kprobes,
# fentry under lockdown, no hardware counters or breakpoints), never counted as passed.
# Prints a table per file (cases, skipped, kiln's passes), one line per case kiln fails with
# why, and the totals; exits 0 (the caller asserts).
import argparse, json, os, re, subprocess, sys, time
sys.dont_write_bytecode = True
import btsrc, rtcase, runtime


def parse(text, suite):
    """v0.26's cases: rtcase's fields, with continuation lines and the newer directives."""
    joined, prev = [], ""
    for line in text.split("\n"):
        if prev and line[:len(prev) + 1].isspace() and line.strip() and \
                prev in ("PROG", "EXPECT", "EXPECT_REGEX"):
            joined[-1] += "\0" + line[len(prev) + 1:]   # a newline once the case is read
            continue
        joined.append(line)
        prev = line.split(" ", 1)[0] if line.strip() and not line.startswith("#") else prev
        if not line.strip():
            prev = ""
    cases = []
    for t in rtcase.parse("\n".join(joined), suite):
        for k in ("prog", "run"):
            if k in t:
                t[k] = t[k].replace("\0", "\n")
        t["order"] = [(k, v.replace("\0", "\n")) for k, v in t["order"]]
        t["expects"] = [(MODES[k], v) for k, v in t["order"] if k in MODES]
        exact = any(m in ("file", "json") for m, _ in t["expects"])
        if "prog" in t:
            t["run"] = "{{BPFTRACE}} %s-e '%s'" % (
                "-q -f json " if t["expects"] and t["expects"][0][0] == "json" else "",
                t["prog"].replace("'", "'\\''"))
        t["exact"] = exact
        t["attach_timeout"] = 10.0
        t["return_code"] = int(t.get("return_code", 0))
        cases.append(t)
    return cases


# each EXPECT field and how it is judged (holds below)
MODES = {"EXPECT": "text", "EXPECT_NONE": "text_none", "EXPECT_REGEX": "regex",
         "EXPECT_REGEX_NONE": "regex_none", "EXPECT_FILE": "file", "EXPECT_JSON": "json"}


def holds(mode, want, out, t, cwd):
    try:
        if mode in ("text", "text_none"):
            hit = re.search(r"^\s*%s\s*$" % re.escape(want), out, re.M)
            return bool(hit) == (mode == "text")
        if mode in ("regex", "regex_none"):
            return bool(re.search(want, out, re.M)) == (mode == "regex")
        with open(os.path.join(cwd, want)) as fh:
            body = fh.read().strip()
        if mode == "file":
            if int(t.get("localize_timestamps", -1)) >= 0:
                body = time.strftime(body, time.localtime(int(t["localize_timestamps"])))
            return out.strip() == body
        lines = out.strip().splitlines()
        if want.endswith(".ndjson"):
            want_lines = body.splitlines()
            return len(lines) == len(want_lines) and all(
                json.loads(a) == json.loads(b) for a, b in zip(lines, want_lines))
        return len(lines) == 1 and json.loads(lines[0]) == json.loads(body)
    except (OSError, ValueError, re.error):
        return False


def judge026(cwd):
    def judge(t, text, timed_out, rc):
        if t["exact"] and rtcase.NOTIFY + "\n" in text:   # what comes after the attach
            text = text.split(rtcase.NOTIFY + "\n", 1)[1]
        out = "\n".join(l for l in text.split("\n") if l != rtcase.NOTIFY)
        shown = [l for l in out.split("\n") if l.strip()]
        first = shown[0][:160] if shown else "(no output)"
        if not timed_out:
            if t["will_fail"] and rc == 0:
                return False, "exit status 0, a failure wanted: " + first, text, rc
            if not t["will_fail"] and rc != t["return_code"]:
                return False, "exit status %d, %d wanted: %s" % (rc, t["return_code"], first), text, rc
        for mode, want in t["expects"]:
            if not holds(mode, want, out, t, cwd):
                return False, "%s%s %s: %s" % ("timed out, " if timed_out else "", mode,
                                               want[:80].replace("\n", "\\n"), first), text, rc
        return True, "", text, rc
    return judge


def kernel_facts():
    """What this kernel lacks, each a reason a case cannot run here."""
    facts = {}
    tr = "/sys/kernel/tracing"
    if not os.path.exists(os.path.join(tr, "kprobe_events")):
        facts["kprobe"] = "this kernel has no kprobes (no kprobe_events in tracefs)"
    try:
        with open("/sys/kernel/security/lockdown") as fh:
            if "[none]" not in fh.read():
                facts["fentry"] = "fentry/fexit are refused under lockdown"
    except OSError:
        pass
    if not os.path.exists("/sys/bus/event_source/devices/cpu"):
        facts["hardware"] = "no hardware performance counters (no cpu PMU: a virtual CPU)"
    return facts


# the probe types each fact rules out, as they are written in a program (long and short names)
PROBES = {
    "kprobe": r"kprobe|kretprobe|k|kr",
    "fentry": r"fentry|fexit|kfunc|kretfunc|f|fr",
    "hardware": r"hardware|h",
}


def kernel_skip(t, facts):
    text = t["run"] + " " + t.get("prog", "")
    for fact, why in facts.items():
        if re.search(r"(?<![\w$@.%%-])(%s):" % PROBES[fact], text):
            return why
        if any(f.lstrip("!").startswith(fact) for f in t["features"]):
            return why   # REQUIRES_FEATURE fentry, kprobe_multi, kprobe_session
    return None


def run_case(t, tracer, cwd, facts):
    """(verdict: True, False or None for skipped, why)."""
    why = kernel_skip(t, facts)
    if why:
        return None, why
    if t.get("new_pidns") is not None:
        return None, "NEW_PIDNS (a new pid namespace) is not run by kiln's runner"
    k, _, v = t.get("skip_if_env_has", "").partition("=")
    if k and os.environ.get(k, "") == v:
        return None, "SKIP_IF_ENV_HAS " + t["skip_if_env_has"]
    for s in t["setup"]:
        if subprocess.call(s, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) != 0:
            return False, "SETUP failed: " + s
    try:
        ok, why = rtcase.run_one(t, tracer, cwd, None, judge=judge026(cwd))[:2]
    finally:
        for c in t["cleanup"]:
            if subprocess.call(c, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL) != 0 and ok:
                ok, why = False, "CLEANUP failed: " + c
    return ok, why


def judge_case(t, cwd, facts, tracer):
    ok, why = run_case(t, tracer, cwd, facts)
    if ok is False:       # once more: on a loaded machine a timing case can fail
        ok2, _ = run_case(t, tracer, cwd, facts)
        if ok2:
            return True, why, True
    return ok, why, False


def main():
    ap = argparse.ArgumentParser()
    btsrc.add_args(ap)
    ap.set_defaults(tag="v0.26.1")
    ap.add_argument("--testprogs")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    exe = os.environ.get("BPFTRACE_RUNTIME_TEST_EXECUTABLE")   # as runtime.py: the symlink
    if exe and os.path.isdir(exe):
        exe = os.path.join(exe, "bpftrace")
    tracer = os.path.abspath(exe) if exe else a.kiln + " trace"
    facts = kernel_facts()
    work = runtime.tempfile.mkdtemp(prefix="kiln-runtime026-")
    try:
        cwd = runtime.scratch(a, work)
        cases = []
        for f in a.files:
            with open(os.path.join(cwd, "runtime", f)) as fh:
                cases += parse(fh.read(), f)
        out = rtcase.run_all(cases, lambda t: judge_case(t, cwd, facts, tracer), a.jobs)
        report(a.files, [(t["suite"], t, r) for t, r in zip(cases, out)])
    finally:
        runtime.shutil.rmtree(work, ignore_errors=True)


def report(files, results):
    table, fails, skips, retried = {}, [], {}, []
    for f, t, (ok, why, second) in results:
        row = table.setdefault(f, [0, 0, 0])
        row[0] += 1
        name = "%s.%s" % (f, t["name"])
        if ok is None:
            row[1] += 1
            skips.setdefault(why, []).append(name)
        elif ok:
            row[2] += 1
            if second:
                retried.append(name)
        else:
            fails.append("%s: %s" % (name, why))
    tot = [0, 0, 0]
    print("%-16s %6s %8s %5s" % ("file", "cases", "skipped", "kiln"))
    for f in files:
        row = table.get(f, [0, 0, 0])
        print("%-16s %6d %8d %5d" % ((f,) + tuple(row)))
        tot = [x + y for x, y in zip(tot, row)]
    print("%-16s %6d %8d %5d" % (("total",) + tuple(tot)))
    for why, names in sorted(skips.items()):
        print("skipped %d: %s" % (len(names), why))
    for l in fails:
        print("kiln fails " + l)
    for l in retried:
        print("kiln passed on a second try " + l)
    print("bpftrace 0.26 suite: %d cases, %d skipped; kiln trace: %d passed" % tuple(tot))


if __name__ == "__main__":
    main()

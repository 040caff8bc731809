#!/usr/bin/env python3
# tests/trace/tools.py — bpftrace v0.17.0's own tools (tools/*.bt, read from a git mirror at
# test time, never copied into kiln) run unchanged under `kiln trace` and under bpftrace 0.17
# at the same time, on activity this script makes and controls exactly.
#
#   tools.py --mirror GITDIR --kiln KILN [--bpftrace BPFTRACE] [--tag v0.17.0] [TOOL...]
#
# For each tool: `kiln trace --dry-run` first (a refusal is "SKIP trace-tools/TOOL: <what kiln
# prints>", so a tool starts running here as soon as kiln can compile it); then both tracers
# start on the tool, each with __BPFTRACE_NOTIFY_PROBES_ATTACHED set, and once both have
# printed that line (a bpftrace that fails first is a SKIP with its error) a child process
# under a name of this run's own makes the activity; once both show it (or, for tools that
# only print maps, once it is over) both get SIGINT. The two outputs are then compared:
#   - the event lines of our activity (told apart by our pid, comm, path or device) must be
#     equal as multisets (the order of two CPUs' lines is the batches'), with only the columns that legitimately differ masked (times since each tracer
#     started, wall-clock stamps, latencies; each tool says which), and must not be empty;
#   - every other line (Attaching N probes..., BEGIN's and END's text, map printouts) must be
#     equal too; map printouts are compared on the keys our activity controls (other
#     processes' entries are left out), with measured values (latencies, samples) masked;
#   - lines of other processes are left out: other tests may run at the same time.
# Tools that only sample (cpuwalk, loads, pidpersec, runqlen) compare the shapes of their lines.
# Prints PASS/FAIL/SKIP lines (with a diff under a FAIL) and a summary; exits 0.
import argparse, atexit, base64, collections, os, re, select, shutil, signal, subprocess, sys, tempfile, threading, time
sys.dont_write_bytecode = True   # (no __pycache__ left in the tree)
import btsrc   # (beside this file)
from concurrent.futures import ThreadPoolExecutor

NOTIFY = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
ATTACH_TIMEOUT = 30.0   # bpftrace runs clang on tools that #include headers
ATTACH_MORE = 60.0      # and then, while bpftrace is still starting (not exited)
LOST = re.compile(r"^Lost \d+ events$")   # both tracers' line for records their buffer dropped
SEEN_TIMEOUT = 10.0
STOP_TIMEOUT = 30.0     # bpftrace names user addresses at exit (ssl*), slow on a loaded machine
TAG = os.getpid() % 100000
HHMMSS = r"\d\d:\d\d:\d\d"

# What each activity child runs first: its comm becomes argv[1] (prctl PR_SET_NAME), so its
# lines are told apart from everything else on the machine.
PRELUDE = """import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)
"""


def child_argv(name, code, args):
    """python running code as a child named name. (The code is passed as one line, so that
    execsnoop's lines of these children are one line each.)"""
    line = "import base64; exec(base64.b64decode('%s'))" % base64.b64encode((PRELUDE + code).encode()).decode()
    return [sys.executable, "-c", line, name, *map(str, args)]


def child(name, code, *args, timeout=20):
    """Run python code in a child named name; its pid."""
    p = subprocess.Popen(child_argv(name, code, args))
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise RuntimeError("activity %s did not finish in %d s" % (name, timeout))
    if p.returncode:
        raise RuntimeError("activity %s exited with status %d" % (name, p.returncode))
    return p.pid


def held(name, code, *args):
    """Like child(), but the child then waits for its standard input to close (run_tool closes
    it once both tracers have stopped): what the tracers print of its addresses resolves."""
    p = subprocess.Popen(child_argv(name, code + "\nprint('done', flush=True)\nsys.stdin.read()\n", args),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if p.stdout.readline() != "done\n":
        p.stdin.close()
        p.wait()
        raise RuntimeError("activity %s exited with status %s" % (name, p.returncode))
    return p


def comm(tag):
    return ("ktt%s%d" % (tag, TAG))[:15]


# ---- where the block-device tools can write ----------------------------------------------

def block_dir(tmp):
    """(a directory on a filesystem of a real block device, its disk's MAJ:MIN: the writeback
    device's name) or (None, why not): the scratch directory, else a scratch directory of its
    own made under /var/tmp (the caller removes it: nothing is left in /var/tmp itself)."""
    for d in (tmp, "/var/tmp"):
        try:
            st = os.stat(d)
        except OSError:
            continue
        sysdir = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
        if not os.path.exists(sysdir) or not os.access(d, os.W_OK):
            continue
        real = os.path.realpath(sysdir)
        if os.path.exists(os.path.join(real, "partition")):   # the bdi is the whole disk's
            real = os.path.dirname(real)
        with open(os.path.join(real, "dev")) as f:
            dev = f.read().strip()
        return (d if d == tmp else tempfile.mkdtemp(prefix="kt-tools-", dir=d)), dev
    with open("/proc/mounts") as f:
        devs = sorted({l.split()[1] for l in f if l.startswith("/dev/")})
    return None, "neither %s nor /var/tmp is on a block device (mounts from /dev: %s)" % (
        tmp, ", ".join(devs) or "none")


# ---- activities: each returns what tells its lines apart (pid, comm, path, ...) ----------

def act_bashreadline(ctx):
    # bash reads its commands with readline only when interactive on a terminal: a pty
    master, slave = os.openpty()
    env = dict(os.environ, TERM="dumb", PS1="$ ", HISTFILE="/dev/null")
    word = "ktrl_%d" % TAG
    p = subprocess.Popen(["/bin/bash", "--norc", "--noprofile", "-i"], stdin=slave, stdout=slave,
                         stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    os.write(master, ("echo %s\nexit\n" % word).encode())
    end = time.time() + 20
    while p.poll() is None and time.time() < end:
        if select.select([master], [], [], 0.1)[0]:
            try:
                os.read(master, 4096)   # keep the terminal drained
            except OSError:
                break
    try:
        p.wait(max(0.1, end - time.time()))
    finally:
        os.close(master)
    return {"pid": p.pid, "n": 2}


def act_exec(ctx):
    path = os.path.join(ctx["tmp"], "ktexec%d" % TAG)
    os.symlink("/bin/true", path)
    subprocess.run([path, "one", "two three"], check=True, timeout=20)
    return {"path": path, "n": 1}


def act_gethost(ctx):
    pid = child(comm("gai"), """import socket
socket.getaddrinfo("localhost", None)
socket.getaddrinfo("127.0.0.1", "80")
libc.gethostbyname(b"127.0.0.1")
""")
    return {"pid": pid, "n": 3}


def act_kill(ctx):
    pid = child(comm("kill"), """import signal, subprocess
p = subprocess.Popen(["sleep", "30"])
os.kill(p.pid, 0)
os.kill(p.pid, signal.SIGTERM)
p.wait()
""")
    return {"pid": pid, "n": 2}


def act_nap(ctx):
    # nanosleep(2) itself (sleep(1) and glibc call clock_nanosleep)
    pid = child(comm("nap"), """for ns in (20000000, 50000000):
    ts = (ctypes.c_long * 2)(0, ns)
    libc.syscall(35, ts, None)
""")
    return {"pid": pid, "n": 2}


def act_open(ctx):
    there = os.path.join(ctx["tmp"], "ktopen-%d" % TAG)
    open(there, "w").close()
    pid = child(comm("open"), """os.close(os.open(sys.argv[3], os.O_RDONLY))
try:
    os.open(sys.argv[2], os.O_RDONLY)
except FileNotFoundError:
    pass
""", there + "-missing", there)
    return {"pid": pid, "last": " " + there + "-missing"}


def act_forks(ctx):
    # forks for a little over a second, so that every tick of both tracers counts some
    pid = child(comm("fork"), """import time
end = time.time() + 1.3
while time.time() < end:
    p = os.fork()
    if p == 0:
        os._exit(0)
    os.waitpid(p, 0)
    time.sleep(0.02)
""")
    return {"pid": pid, "n": 1}


def act_setuid(ctx):
    pid = child(comm("uid"), """os.setuid(0)
os.setresuid(0, 0, 0)
libc.setfsuid(0)
""")
    return {"pid": pid, "n": 3}


def act_ssl(ctx):
    # a TLS client's first handshake step through python's ssl module (libssl.so.3): with no
    # peer, SSL_do_handshake returns -1 (want read) three times. The process stays until both
    # tracers have stopped: bpftrace keeps a uprobe's `func` as an address in the process and
    # names it when printing (as a map key at exit too), which takes the process alive.
    p = held(comm("ssl"), """import ssl
c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
c.check_hostname = False
c.verify_mode = ssl.CERT_NONE
for _ in range(3):
    o = c.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="localhost")
    try:
        o.do_handshake()
    except ssl.SSLWantReadError:
        pass
""")
    return {"pid": p.pid, "comm": comm("ssl"), "n": 3, "hold": p}


def act_stat(ctx):
    there = os.path.join(ctx["tmp"], "ktstat-%d" % TAG)
    open(there, "w").close()
    # stat, lstat, statfs and statx as system calls (glibc's stat() is newfstatat)
    pid = child(comm("stat"), """buf = ctypes.create_string_buffer(4096)
for path in (sys.argv[2].encode(), sys.argv[3].encode()):
    libc.syscall(4, path, buf)
    libc.syscall(6, path, buf)
    libc.syscall(137, path, buf)
    libc.syscall(332, -100, path, 0, 0xfff, buf)
""", there, there + "-missing")
    return {"pid": pid, "n": 8}


def act_sync(ctx):
    path = os.path.join(ctx["tmp"], "ktsync-%d" % TAG)
    pid = child(comm("sync"), """import mmap
fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, b"x" * 4096)
os.fsync(fd)
os.fdatasync(fd)
libc.syncfs(fd)
libc.sync_file_range(fd, ctypes.c_long(0), ctypes.c_long(4096), 2)
m = mmap.mmap(fd, 4096)
m[0:1] = b"y"
m.flush()
os.sync()
""", path)
    return {"pid": pid, "n": 6}


def act_syscalls(ctx):
    # many more calls than anything else makes meanwhile: @process[ours] is in the top 10
    pid = child(comm("sysc"), """for _ in range(200000):
    os.getppid()
""")
    return {"pid": pid, "comm": comm("sysc")}


def act_block(ctx):
    # data written and fsync'd to a file on a block device: requests issued by our process
    path = os.path.join(ctx["blockdir"], "ktblock-%d" % TAG)
    pid = child(comm("blk"), """fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
for _ in range(4):
    os.write(fd, os.urandom(65536))
    os.fsync(fd)
os.close(fd)
os.unlink(sys.argv[2])
""", path)
    return {"pid": pid, "comm": comm("blk")}


def act_writeback(ctx):
    # syncfs(2) of the block device's filesystem: the flusher writes it back, reason "sync"
    path = os.path.join(ctx["blockdir"], "ktwb-%d" % TAG)
    pid = child(comm("wb"), """fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, os.urandom(65536))
libc.syncfs(fd)
os.close(fd)
os.unlink(sys.argv[2])
""", path)
    return {"dev": ctx["bdi"], "n": 1}


def act_spin(ctx):
    # a busy process on every CPU we may use, for half a second: samples on each of them
    code = """import time
os.sched_setaffinity(0, {int(sys.argv[2])})
end = time.time() + 0.5
while time.time() < end:
    pass
"""
    threads = [threading.Thread(target=child, args=(comm("spin"), code, c)) for c in sorted(os.sched_getaffinity(0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"n": 0}


def act_sleeps(ctx):
    pid = child(comm("rq"), """import time
for _ in range(20):
    time.sleep(0.005)
""")
    return {"pid": pid}


def act_threads(ctx):
    pid = child(comm("thr"), """import threading
for _ in range(2):
    t = threading.Thread(target=lambda: None)
    t.start()
    t.join()
""")
    return {"pid": pid, "n": 2}


def act_tcpdrop(ctx):
    # a connection to a port nobody listens on: the SYN is dropped and answered with a reset
    pid = child(comm("tcp"), """import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
c = socket.socket()
try:
    c.connect(("127.0.0.1", port))
except ConnectionRefusedError:
    pass
""")
    return {"pid": pid}


def act_wait(ctx):
    return {"n": 1}


# ---- tools: activity, event lines (told apart, masked), map entries ----------------------
# event: a regular expression any event line of the tool matches (ours or not); fields: the
# named groups of an event line; ours(groups, info): whether it is our activity's; mask: the
# groups shown as <name>; shape: compare the set of masked lines (sampling tools); entry(key
# line, bucket lines, info): the lines of a map entry to compare, None to leave it out.

def ev(event, fields, ours, mask=(), shape=False):
    return {"event": re.compile(event), "fields": re.compile(fields), "ours": ours, "mask": mask, "shape": shape}


def by(field, key):
    return lambda g, info: g[field] == str(info[key])


def any_line(g, info):
    return True


def whole(key, buckets, info):
    return [key] + buckets


def hist_keys(key, buckets, info):   # hist/lhist of measured values: the key line alone
    return [key]


def buckets_masked(key, buckets, info):   # which buckets show is ours, the counts are not
    return [key] + [re.sub(r"^(\S.*?\)) +\d+ \|.*$", r"\1 <count>", b) for b in buckets]


def stats_masked(key, buckets, info):
    return [re.sub(r"(count|average|total) -?\d+", r"\1 <n>", key)] + buckets


def our_tid_key(key, buckets, info):
    """Maps keyed by tid (a call's start, kept until its return): ours are deleted; another
    process's may be left over when its return came after a tracer detached."""
    m = re.match(r"^@\w+\[(\d+)\]: ", key)
    return [key] + buckets if not m or m.group(1) == str(info["pid"]) else None


def ssl_entry(key, buckets, info):   # keys are function names; latencies are measured
    if re.match(r"^@\w+\[\d+\]: ", key):
        return our_tid_key(key, buckets, info)
    m = re.match(r"^@\w+\[(\w+)\]: ", key)
    if m and m.group(1) != "SSL_do_handshake":
        return None   # what our activity does not call: other processes' (SSL_read, ...)
    if key.startswith("@stat"):
        return stats_masked(key, buckets, info)
    return [key]


# bpftrace keys these maps by `func` as an address in each process (named when printed), kiln
# by the function's name: another process's SSL calls meanwhile (at another address) make a
# second entry of the same name in bpftrace. The names are compared, each once.
ssl_entry.distinct = True


def our_key(field):   # keyed by comm: ours in full, other processes' not at all
    return lambda key, buckets, info: [key] + buckets if key.startswith("@[%s]: " % info[field]) else None


def syscount_entry(key, buckets, info):
    # print(@syscall, 10) and print(@process, 10): our process's count in full, getppid's
    # (110, our call) key; the other entries are what else ran while each tracer was attached
    m = re.match(r"^@(\w+)\[(.*)\]: (\d+)$", key)
    if not m:
        return [key]
    if m.group(1) == "process" and m.group(2) == info["comm"]:
        return [key]
    if m.group(1) == "syscall" and m.group(2) == "110":
        return ["@syscall[110]: <n>"]
    return None


TOOLS = {
    # TIME is the wall clock when each tracer printed the line
    "bashreadline": (act_bashreadline, ev(r"^%s  \d+ " % HHMMSS, r"^(?P<time>\S+)  (?P<pid>\d+) +(?P<cmd>.*)$",
                                          by("pid", "pid"), ("time",)), None),
    # a tracer's block I/O sizes of our process's requests: the same requests in both
    "bitesize": (act_block, None, our_key("comm")),
    # samples per CPU: which CPUs were sampled (our spinners are on all), not how often
    "cpuwalk": (act_spin, None, buckets_masked),
    # TIME(ms) counts from each tracer's start
    "execsnoop": (act_exec, ev(r"^\d+ +\d+ ", r"^(?P<time>\d+) +(?P<pid>\d+) +(?P<args>.*)$",
                               lambda g, info: g["args"].startswith(info["path"] + " "), ("time",)), None),
    # TIME is the wall clock, LATms a measured latency
    "gethostlatency": (act_gethost, ev(r"^%s  \d+ " % HHMMSS,
                                       r"^(?P<time>\S+)  (?P<pid>\d+) +(?P<comm>\S+) +(?P<lat>-?\d+) (?P<host>.*)$",
                                       by("pid", "pid"), ("time", "lat")), our_tid_key),
    # TIME is the wall clock
    "killsnoop": (act_kill, ev(r"^%s  \d+ " % HHMMSS, r"^(?P<time>\S+)  (?P<pid>\d+) +(?P<rest>.*)$",
                               by("pid", "pid"), ("time",)), our_tid_key),
    # the wall clock and this machine's load averages: the lines' shape
    "loads": (act_wait, ev(r"^%s load averages: " % HHMMSS,
                           r"^(?P<time>\S+) load averages: (?P<l1>\d+\.\d+) (?P<l5>\d+\.\d+) (?P<l15>\d+\.\d+)$",
                           any_line, ("time", "l1", "l5", "l15"), shape=True), None),
    # TIME is the wall clock
    "naptime": (act_nap, ev(r"^%s \d+ " % HHMMSS,
                            r"^(?P<time>\S+) (?P<ppid>\d+) +(?P<pcomm>.+?) +(?P<pid>\d+) +(?P<rest>\S+ +\d+\.\d+)$",
                            by("pid", "pid"), ("time",)), None),
    # nothing masked: PID COMM FD ERR PATH are all ours
    "opensnoop": (act_open, ev(r"^\d+ ", r"^(?P<pid>\d+) +(?P<rest>.*)$", by("pid", "pid")), None),
    # the wall clock and the machine's forks per second: the lines' shape
    "pidpersec": (act_forks, ev(r"^%s PIDs/sec: " % HHMMSS, r"^(?P<time>\S+) PIDs/sec: @: (?P<n>\d+)$",
                                any_line, ("time", "n"), shape=True), None),
    # scheduling latencies are measured: the histogram's key alone
    "runqlat": (act_sleeps, None, hist_keys),
    "runqlen": (act_spin, None, hist_keys),
    # TIME is the wall clock
    "setuids": (act_setuid, ev(r"^%s \d+ " % HHMMSS, r"^(?P<time>\S+) (?P<pid>\d+) +(?P<rest>.*)$",
                               by("pid", "pid"), ("time",)), our_tid_key),
    # latency histograms and stats by function: the keys; the values are measured
    "ssllatency": (act_ssl, None, ssl_entry),
    # TIME(us) counts from each tracer's start, LAT(us) is measured
    "sslsnoop": (act_ssl, ev(r"^\d+ +\d+ ",
                             r"^(?P<time>\d+) +(?P<tid>\d+) +(?P<comm>\S+) +(?P<lat>\d+) +(?P<ret>-?\d+) (?P<func>\S+)$",
                             by("tid", "pid"), ("time", "lat")), our_tid_key),
    # nothing masked
    "statsnoop": (act_stat, ev(r"^\d+ ", r"^(?P<pid>\d+) +(?P<rest>.*)$", by("pid", "pid")), None),
    # TIME is the wall clock
    "syncsnoop": (act_sync, ev(r"^%s  \d+ " % HHMMSS, r"^(?P<time>\S+)  (?P<pid>\d+) +(?P<rest>.*)$",
                               by("pid", "pid"), ("time",)), None),
    "syscount": (act_syscalls, None, syscount_entry),
    # TIME is the wall clock (the kernel stack under each line continues it; the blank line
    # after it goes with the map entries, of which END's clear() leaves none)
    "tcpdrop": (act_tcpdrop, ev(r"^%s \d+ " % HHMMSS, r"^(?P<time>\S+) (?P<pid>\d+) +(?P<rest>.*)$",
                                by("pid", "pid"), ("time",)), whole),
    # TIME(ms) counts from each tracer's start
    "threadsnoop": (act_threads, ev(r"^\d+ +\d+ ", r"^(?P<time>\d+) +(?P<pid>\d+) +(?P<rest>.*)$",
                                    by("pid", "pid"), ("time",)), None),
    # TIME is the wall clock, ms the measured writeback time
    "writeback": (act_writeback, ev(r"^%s  \S+ +\d+ " % HHMMSS,
                                    r"^(?P<time>\S+)  (?P<dev>\S+) +(?P<pages>\d+) +(?P<reason>\S+) +(?P<ms>\d+\.\d+)$",
                                    lambda g, info: g["dev"] == info["dev"] and g["reason"] == "sync",
                                    ("time", "ms")), None),
}
# the map line that shows our activity, for the tools that print only maps: when neither
# tracer prints it, the activity went unseen (a SKIP saying so), when one does, the
# comparison fails
SIGN = {
    "bitesize": lambda info: "@[%s]: " % info["comm"],   # (not when a kworker issues our I/O)
    "cpuwalk": lambda info: "[0, 1) <count>",
    "runqlat": lambda info: "@usecs: ",
    "runqlen": lambda info: "@runqlen: ",
    "ssllatency": lambda info: "@histF[SSL_do_handshake]: ",
    "syscount": lambda info: "@process[%s]: " % info["comm"],
}
# run one after another (each one's sync or fsync would be the others' activity)
SERIAL = ("writeback", "bitesize", "syncsnoop")
NEEDS_BLOCK = ("bitesize", "writeback")


# ---- comparison ---------------------------------------------------------------------------

def masked(m, names):
    """The line with the named groups shown as <name>; the blanks around a group (its column's
    padding, which follows the masked value's width) become one."""
    line, out, pos = m.string, [], 0
    for name in sorted(names, key=lambda n: m.start(n)):
        a, b = m.start(name), m.end(name)
        while a > pos and line[a - 1] == " ":
            a -= 1
        while b < len(line) and line[b] == " ":
            b += 1
        out.append(line[pos:a] + (" " if a < m.start(name) else "") + "<%s>" % name +
                   (" " if b > m.end(name) else ""))
        pos = b
    return "".join(out) + line[pos:]


def digest(text, evspec, entry, info):
    """(our event lines, every other line as compared)."""
    ours, rest = [], []
    lines = [l for l in text.split("\n") if l != NOTIFY]
    i = 0
    seen = set()
    # Other lines after an event line, but blank ones and map entries, continue it: execsnoop's
    # arguments with newlines in them, and kiln's lines of two events at once on two CPUs,
    # which its one ring buffer (bpftrace has one per CPU) can interleave record by record
    # (naptime's time() and printf() of two threads: "12:00:00 12:00:00 ..."). They are
    # compared with ours, left out with the others'.
    event = None
    while i < len(lines):
        line = lines[i]
        if LOST.match(line):   # a tracer's own report (run_tool compares them), no event's
            i += 1
            continue
        if evspec and evspec["event"].match(line):
            m = evspec["fields"].match(line)
            event = None
            if m and evspec["ours"](m.groupdict(), info):
                ours.append(masked(m, evspec["mask"]))
                event = len(ours) - 1
            elif not m and evspec["shape"]:
                ours.append("<unparsed> " + line)
            if event is None:
                event = -1
            i += 1
            continue
        if event is not None and line != "" and not line.startswith("@"):
            if event >= 0:
                ours[event] += "\n" + line
            i += 1
            continue
        if entry and line.startswith("@"):
            buckets = []
            i += 1
            while i < len(lines) and re.match(r"^[\[(]", lines[i]):
                buckets.append(lines[i])
                i += 1
            got = entry(line, buckets, info)
            if got is not None and getattr(entry, "distinct", False):
                got = [l for l in got if l not in seen]
                seen.update(got)
            if got is not None:
                rest.extend(got)
            continue
        # blank lines go with map entries (an empty map prints one; which maps are empty here
        # depends on other processes whose entries are left out)
        if not (entry and line == ""):
            rest.append(line)
        i += 1
    while rest and rest[-1] == "":
        rest.pop()
    if evspec and evspec["shape"]:
        ours = sorted(set(ours))
    return ours, rest


def diff(a, b):
    import difflib
    return "\n".join("      " + l for l in list(difflib.unified_diff(a, b, "bpftrace", "kiln", lineterm="", n=1))[:40])


# ---- running one tool ---------------------------------------------------------------------

class Tracer:
    def __init__(self, argv, cwd, base):
        self.out, self.err = base + ".out", base + ".err"
        self.stuck = None
        env = dict(os.environ, **{NOTIFY: "1"})
        with open(self.out, "w") as o, open(self.err, "w") as e:
            self.p = subprocess.Popen(argv, cwd=cwd, stdout=o, stderr=e, env=env)

    def text(self):
        with open(self.out, errors="replace") as f:
            return f.read()

    def error(self):
        with open(self.err, errors="replace") as f:
            lines = [l for l in f.read().split("\n") if l and "RLIMIT_MEMLOCK" not in l and l != NOTIFY]
        return lines[0] if lines else "exited with status %s" % self.p.returncode

    def attached(self):   # (bpftrace prints it on stderr, kiln on stdout)
        with open(self.err, errors="replace") as f:
            return NOTIFY in (self.text() + "\n" + f.read()).split("\n")

    def stop(self, nudge):
        """SIGINT, then, with nudge (bpftrace), while it has not started printing its maps
        (the "\n\n" before them), SIGTERM every 3 s: bpftrace 0.17 notices a signal only
        when it interrupts its epoll_wait() or when an event arrives next, so one that lands
        elsewhere (another thread, between two waits) leaves a tool that prints nothing more
        (cpuwalk, bitesize) waiting forever. SIGTERM, not a second SIGINT: that one kills it
        while it prints. kiln gets one signal: a second is its user insisting (it exits at
        once), and detaching a tool's many uprobes can take seconds on a loaded machine."""
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
        end = time.time() + STOP_TIMEOUT
        try:
            while True:
                try:
                    self.p.wait(min(3.0, max(0.1, end - time.time())))
                    break
                except subprocess.TimeoutExpired:
                    if time.time() >= end:
                        raise
                    if nudge and "\n\n" not in self.text():
                        self.p.send_signal(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            try:   # where it is stuck, for the failure's message
                with open("/proc/%d/wchan" % self.p.pid) as f:
                    self.stuck = f.read().strip()
            except OSError:
                self.stuck = "?"
            self.p.kill()
            self.p.wait()
            return False
        return True


def wait_until(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def run_tool(name, ctx):
    act, evspec, entry = TOOLS[name]
    d = ctx["tooldir"]
    r = subprocess.run([ctx["kiln"], "trace", "--dialect", "0.17", "--dry-run", name + ".bt"], cwd=d, capture_output=True, text=True, timeout=60)
    if r.returncode:
        lines = r.stderr.strip().split("\n")
        return "SKIP", lines[0] if lines[0] else "kiln trace --dry-run: status %d" % r.returncode
    if name in NEEDS_BLOCK and not ctx["blockdir"]:
        return "SKIP", ctx["bdi"]
    base = os.path.join(ctx["tmp"], name)
    info = None
    t_start = time.time()
    b = Tracer([ctx["bpftrace"], name + ".bt"], d, base + ".bpftrace")
    k = Tracer([ctx["kiln"], "trace", "--dialect", "0.17", name + ".bt"], d, base + ".kiln")
    try:
        wait_until(lambda: (b.attached() or b.p.poll() is not None) and (k.attached() or k.p.poll() is not None),
                   ATTACH_TIMEOUT)
        if not b.attached() and b.p.poll() is None:   # still starting: slow, not unable (ssllatency's
            wait_until(lambda: b.attached() or b.p.poll() is not None, ATTACH_MORE)   # uprobes, loaded)
        if not b.attached():
            if b.p.poll() is None:
                return "SKIP", "bpftrace 0.17 did not attach in %d s" % (ATTACH_TIMEOUT + ATTACH_MORE)
            return "SKIP", "bpftrace 0.17 cannot run it here: " + b.error()
        if not k.attached():
            return "FAIL", "kiln trace did not attach: " + k.error()
        t_att = time.time()
        info = act(ctx)
        t_act = time.time()
        if evspec:   # until both show our activity (its last line, or all of its lines)
            def seen(t):
                ours, _ = digest(t.text(), evspec, None, info)
                if "last" in info:
                    return any(info["last"] in l for l in t.text().split("\n"))
                return len(ours) >= max(info.get("n", 1), 1)
            wait_until(lambda: seen(b) and seen(k), SEEN_TIMEOUT)
    finally:
        t_seen = time.time()
        okb, okk = b.stop(True), k.stop(False)
        if os.environ.get("KT_DEBUG"):
            print("%s: attached %.2f, activity %.2f, seen %.2f, stopped %.2f" % (name, t_att - t_start,
                  t_act - t_att, t_seen - t_act, time.time() - t_seen), file=sys.stderr)
        if info and "hold" in info:
            info["hold"].stdin.close()
            info["hold"].wait(10)
    if not okb or not okk:
        t = b if not okb else k
        return "FAIL", "%s did not stop within %d s of SIGINT (waiting in %s); its last lines: %s" % (
            "bpftrace" if not okb else "kiln", STOP_TIMEOUT, t.stuck, " | ".join(t.text().split("\n")[-4:]))
    if k.p.returncode:
        return "FAIL", "kiln trace exited with status %d: %s" % (k.p.returncode, k.error())
    bo, ko = digest(b.text(), evspec, entry, info), digest(k.text(), evspec, entry, info)
    if name in SIGN:
        sign = SIGN[name](info)
        if not any(l.startswith(sign) for l in bo[1] + ko[1]):
            return "SKIP", "neither bpftrace 0.17 nor kiln trace printed %r: our activity went unseen" % sign
    if evspec and not bo[0] and not ko[0]:
        return "SKIP", "neither bpftrace 0.17 nor kiln trace printed a line of our activity (%s)" % \
            ("; ".join(bo[1][:1]) or "no output")
    if evspec and not bo[0]:
        return "FAIL", "bpftrace printed no line of our activity, kiln did:\n" + diff(bo[0], ko[0])
    # in any order: each reads a buffer per CPU (bpftrace) or writes a batch's text CPU by CPU
    # (kiln), so a process that moves between CPUs has its lines out of order in either, as
    # the batches fall
    if sorted(bo[0]) != sorted(ko[0]):
        lost = ["%s: %s" % (who, l) for who, t in (("bpftrace", b), ("kiln", k))
                for l in t.text().split("\n") if l.startswith("Lost ")]
        # a tracer that reported lost records (its buffer full: the machine's load) and printed
        # only lines the other printed too has no wrong line: what is left to compare is gone
        cb, ck = collections.Counter(bo[0]), collections.Counter(ko[0])
        for who, mine, other in (("bpftrace", cb, ck), ("kiln", ck, cb)):
            if any(l.startswith(who + ": ") for l in lost) and not mine - other:
                return "SKIP", "%s lost records under load (%s); its %d lines of our activity are among the other's %d" % (
                    who, "; ".join(lost), sum(mine.values()), sum(other.values()))
        return "FAIL", "our event lines differ%s:\n" % (" (%s)" % "; ".join(lost) if lost else "") + \
            diff(sorted(bo[0]), sorted(ko[0]))
    if bo[1] != ko[1]:
        return "FAIL", "the other lines differ:\n" + diff(bo[1], ko[1])
    return "PASS", ("%d lines of our activity, " % len(ko[0]) if evspec else "") + "%d other lines" % len(ko[1])


def main():
    ap = argparse.ArgumentParser()
    btsrc.add_args(ap)
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--keep", help="copy the outputs into this directory")
    ap.add_argument("tools", nargs="*")
    a = ap.parse_args()
    names = a.tools or sorted(TOOLS)
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="kt-tools-", dir="/tmp") as tmp:
        tooldir = os.path.join(tmp, "tools")
        os.mkdir(tooldir)
        for n in names:
            src = subprocess.run(["git", "-C", a.mirror, "show", "%s:tools/%s.bt" % (a.tag, n)],
                                 capture_output=True, check=True).stdout
            with open(os.path.join(tooldir, n + ".bt"), "wb") as f:
                f.write(src)
        blockdir, bdi = block_dir(tmp)
        if blockdir and blockdir != tmp:
            atexit.register(shutil.rmtree, blockdir, True)
        ctx = {"tmp": tmp, "tooldir": tooldir, "kiln": os.path.abspath(a.kiln), "bpftrace": a.bpftrace,
               "blockdir": blockdir, "bdi": bdi}
        results = {}

        def one(n):
            t0 = time.time()
            try:
                results[n] = run_tool(n, ctx) + (time.time() - t0,)
            except Exception as e:   # an activity that failed: the tool's failure, not the run's
                results[n] = ("FAIL", "%s: %s" % (type(e).__name__, e), time.time() - t0)

        def serial():
            for n in names:
                if n in SERIAL:
                    one(n)
        with ThreadPoolExecutor(a.jobs) as pool:
            jobs = [pool.submit(serial)] + [pool.submit(one, n) for n in names if n not in SERIAL]
            for j in jobs:
                j.result()
        if a.keep:
            subprocess.run(["cp", "-r", tmp + "/.", a.keep], check=False)
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for n in names:
        st, why, secs = results[n]
        counts[st] += 1
        if st == "PASS":
            print("PASS trace-tools/%s (%s, %.1f s)" % (n, why, secs))
        else:
            print("%s trace-tools/%s: %s" % (st, n, why))
    print("tools: %d passed, %d failed, %d skipped in %.1f s" % (counts["PASS"], counts["FAIL"], counts["SKIP"],
                                                                   time.time() - start))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""repl.py — `kiln repl` driven through a pseudo-terminal, as a person types: each entry's
answer is checked (values, a multi-line form, errors that leave the session usable, a program
compiled, loaded and attached as entered that counts this process's own getppid calls, the
map's contents kept when another program is added, a verifier rejection, dump, disasm, check,
Ctrl-C stopping a form, history kept; :help, Tab completing forms, maps, programs and defuns,
detach and attach again, (load FILE) with its errors at FILE:line:col, a struct read from a
map printed by its fields). Prints PASS/FAIL lines.  usage: repl.py KILN HISTFILE"""
import os, pty, re, select, shutil, signal, sys, tempfile, termios, time

# the program's name: this run's own (the suite counts what is left by that name)
PROG = sys.argv[3] if len(sys.argv) > 3 else "on_getppid"
# where the ids of the programs it loaded are written
IDS = sys.argv[4] if len(sys.argv) > 4 else os.devnull

kiln, hist = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["KILN_HISTORY"] = hist
    os.execv(kiln, [kiln, "repl"])

def read_until(pat, t=10):
    out, end = b"", time.time() + t
    while time.time() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            out += data
            if pat in out:
                break
    return out.decode(errors="replace").replace("\r", "")

def entry(text, prompt=b"kiln> "):
    os.write(fd, text.encode() + b"\r")
    return read_until(prompt)

def check(name, ok, got):
    print(f"PASS repl/{name}" if ok else f"FAIL repl/{name}: {got.strip()[-400:]!r}")

me = os.getpid()
read_until(b"kiln> ")
out = entry("(+ 1 2)")
check("value", re.search(r"^3$", out, re.M), out)
out = entry("(defun sq (x)", b"...> ")
out = entry("  (* x x))")
out = entry("(sq 12)")
check("multi-line-defun", re.search(r"^144$", out, re.M), out)
out = entry("(car 5)")
check("error", re.search(r"^<repl>:\d+:1: error: car: 5 is not a list$", out, re.M) and "^" in out, out)
out = entry("(sq 3)")
check("usable-after-error", re.search(r"^9$", out, re.M), out)
out = entry("(defmap counts :type :hash :key-size 4 :value-size 8 :max-entries 64)")
check("defmap", "COUNTS" in out, out)
out = entry('(defprog ' + PROG + ' (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid" :license "GPL")', b"...> ")
out = entry("  (incf (getmap counts (cast u32 (>> (get-current-pid-tgid) 32)))) 0)")
check("defprog-loaded", PROG.upper() in out and "error" not in out, out)
out = entry("(attach " + PROG + ")")
check("attach", re.search(r"^#<ATTACHMENT tracepoint syscalls/sys_enter_getppid>$", out, re.M), out)
# the ids of the programs the repl holds now (its own fds), for the suite to check they are
# gone after it ends
def held_ids():
    """the ids of the programs the repl holds now (its own fds)"""
    ids = set()
    for entry_fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            m = re.search(r"^prog_id:\s*(\d+)$", open(f"/proc/{pid}/fdinfo/{entry_fd}").read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(m.group(1))
    return ids
ids = held_ids()
check("held-programs", ids, "no program fd in the repl")
open(IDS, "w").write("\n".join(sorted(ids)) + "\n")
for _ in range(5):
    os.getppid()
out = entry(f"(bpf:map-ref counts {me})")
check("counted", re.search(r"^5$", out, re.M), out)
out = entry(f'(defprog bad (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid") (load u64 (map-lookup counts 1) 0))')
if os.environ.get("REPL_SHOW"):
    print(out)
check("verifier-rejects", "kiln repl: load program 'bad'" in out and
      re.search(r"<repl>:\d+:\d+: the verifier refused this: R0 invalid mem access", out) and "kiln> " in out, out)
out = entry('(defprog second (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid") 0)')
check("second-prog", "SECOND" in out, out)
out = entry(f"(bpf:map-ref counts {me})")
check("map-kept", re.search(r"^5$", out, re.M), out)
out = entry("(dump counts)")
check("dump", re.search(rf"^\s*{me} => 5$", out, re.M), out)
out = entry("(check " + PROG + ")")
check("check", re.search("^" + PROG + r": accepted by the verifier \(tracepoint/syscalls/sys_enter_getppid, \d+ instructions\)$", out, re.M), out)
out = entry("(disasm " + PROG + ")")
check("disasm", "prog " + PROG + " (section tracepoint/syscalls/sys_enter_getppid" in out and "exit" in out, out)
out = entry("(no-such-function 1)")
check("undefined", "undefined function no-such-function" in out, out)

# ---- :help, Tab completion, detach, load, a struct read through BTF (issue 31) ----
out = entry(":help")
check("help", re.search(r"^  :help ", out, re.M) and re.search(r"^  \(detach PROG\) ", out, re.M) and
      re.search(r'^  \(load "FILE"\) ', out, re.M) and "with-bpf-session" in out, out)

def raw_terminal():
    """until libedit reads the terminal raw (a Tab typed before that is the line discipline's)"""
    end = time.time() + 10
    while time.time() < end and termios.tcgetattr(fd)[3] & termios.ICANON:
        read_until(b"\x00", 0.02)

def tab(text, rest):
    """text typed, then Tab: what the terminal showed until the completion's rest was echoed"""
    raw_terminal()
    os.write(fd, text.encode() + b"\t")
    return read_until(rest.encode(), 5)

out = entry("(defun twice-it (x) (* 2 x))")
got = tab("(twice-", "it ")
out = entry(" 21)")
check("complete-defun", "it " in got and re.search(r"^42$", out, re.M), got + out)
got = tab("(map-lookup-i", "nt ")
out = entry(f'(bpf-session-map "counts") {me})')
check("complete-form", "nt " in got and re.search(r"^5$", out, re.M), got + out)
got = tab("(dump cou", "nts ")
out = entry(")")
check("complete-map", "nts " in got and re.search(rf"^\s*{me} => 5$", out, re.M), got + out)
got = tab("(check " + PROG[:-2], PROG[-2:] + " ")
out = entry(")")
check("complete-prog", PROG[-2:] + " " in got and ": accepted by the verifier" in out, got + out)
got = tab("(map-", "\x07")     # several names: the bell; a second Tab lists them
os.write(fd, b"\t")
got += read_until(b"kiln> (map-", 5)   # the list, then the line drawn again under it
out = entry('delete (bpf-session-map "counts") 999)')   # no such key: Whistler's map-delete raises
check("complete-list", all(w in got for w in ("map-delete", "map-get-next-key", "map-lookup", "map-update",
                                              "map-lookup-int", "map-update-struct"))
      and "map-delete: bpf(BPF_MAP_DELETE_ELEM) on map 'counts': No such file or directory" in out, got + out)

# detach: the program stops counting, and attaches again
out = entry("(detach " + PROG + ")")
check("detach", re.search(r"^T$", out, re.M), out)
for _ in range(5):
    os.getppid()
out = entry(f"(bpf:map-ref counts {me})")
check("detached-counts-nothing", re.search(r"^5$", out, re.M), out)
out = entry("(detach " + PROG + ")")
check("detach-not-attached", re.search(r"<repl>:\d+:9: error: " + PROG + " is not attached$", out, re.M), out)
out = entry("(detach no-such-prog)")
check("detach-unknown", "error: no program no-such-prog is loaded" in out, out)
out = entry("(attach " + PROG + ")")
for _ in range(3):
    os.getppid()
out = entry(f"(bpf:map-ref counts {me})")
check("reattached-counts", re.search(r"^8$", out, re.M), out)

# (load FILE): a file's forms as if typed (a struct map and a program filling it, a defun and
# a variable); its errors at FILE:line:col, the host's, the compiler's and the reader's
tmp = tempfile.mkdtemp(prefix="krepl")
def lfile(name, text):
    path = os.path.join(tmp, name)
    open(path, "w").write(text)
    return path
good = lfile("good.lisp", f""";; loaded at the prompt
(defstruct rstat (count u64) (pid u32) (flag u8))
(defmap rstats :type :hash :key u32 :value rstat :max-entries 4)
(defprog {PROG}s (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid" :license "GPL")
  (let ((k 0) (s (make-rstat)))
    (setf (rstat-count s) 7)
    (setf (rstat-pid s) (cast u32 (>> (get-current-pid-tgid) 32)))
    (map-update rstats k s 0))
  0)
(defun loaded-twice (x) (* 2 x))
(defparameter *loaded* (loaded-twice 21))
(format t "loaded-once~%")
""")
out = entry(f'(load "{good}")')
check("load", out.count("loaded-once") == 1 and re.search(r"^T$", out, re.M), out)
out = entry("*loaded*")
check("load-defines", re.search(r"^42$", out, re.M) and "loaded-once" not in out, out)
out = entry(f"(attach {PROG}s)")
ids |= held_ids()     # the loaded file's program too: gone after the end
open(IDS, "w").write("\n".join(sorted(ids)) + "\n")
os.getppid()
out = entry('(map-lookup (bpf-session-map "rstats") 0)')
check("lookup-struct", re.search(rf"^{{count: 7, pid: {me}, flag: 0}}$", out, re.M), out)
out = entry('(length (map-lookup (bpf-session-map "rstats") 0))')
check("lookup-struct-bytes", re.search(r"^16$", out, re.M), out)
host_err = lfile("host-err.lisp", "(defun before-error () 1)\n\n(car 5)\n(defun after-error () 2)\n")
out = entry(f'(load "{host_err}")')
check("load-host-error", re.search(rf"^{re.escape(host_err)}:3:1: error: car: 5 is not a list$", out, re.M)
      and re.search(r"^  \(car 5\)$", out, re.M), out)
out = entry("(before-error)")
check("load-ran-before-error", re.search(r"^1$", out, re.M), out)
comp_err = lfile("comp-err.lisp", '\n(defprog broken (:type :tracepoint :section "tracepoint/syscalls/sys_enter_getppid")\n  (no-such-thing 1))\n')
out = entry(f'(load "{comp_err}")')
check("load-compile-error", re.search(rf"^{re.escape(comp_err)}:3:4: error: unknown function or form 'no-such-thing'", out, re.M), out)
read_err = lfile("read-err.lisp", "(defun half ()\n  (+ 1 2)")
out = entry(f'(load "{read_err}")')
check("load-read-error", re.search(rf"^{re.escape(read_err)}:1:1: error: unbalanced", out, re.M), out)
out = entry(f'(load "{tmp}/none.lisp")')
check("load-missing", "error: load: " + tmp + "/none.lisp: No such file or directory" in out, out)
itself = lfile("itself.lisp", f'(load "{tmp}/itself.lisp")\n')
out = entry(f'(load "{itself}")')
check("load-itself", "error: load: files loaded more than 16 deep" in out, out)
out = entry("(loaded-twice 4)")
check("usable-after-load-errors", re.search(r"^8$", out, re.M), out)
shutil.rmtree(tmp)

os.write(fd, b"(loop (sleep 1))\r")
read_until(b"(loop (sleep 1))", 2)
time.sleep(0.3)
os.kill(pid, signal.SIGINT)
out = read_until(b"kiln> ")
check("ctrl-c", "Interactive interrupt" in out, out)
out = entry("(sq 4)")
check("usable-after-ctrl-c", re.search(r"^16$", out, re.M), out)
# the first Ctrl-C also stops a loop whose turns evaluate no form (each turn checks it)
for name, form in (("loop", "(loop)"), ("dotimes", "(dotimes (i 1000000000000) nil)")):
    os.write(fd, form.encode() + b"\r")
    read_until(form.encode(), 2)
    time.sleep(0.3)
    t0 = time.time()
    os.kill(pid, signal.SIGINT)
    out = read_until(b"kiln> ", 5)
    ms = int((time.time() - t0) * 1000)
    check(f"ctrl-c-{name}", "Interactive interrupt" in out and out.rstrip().endswith("kiln>") and ms < 1000,
          f"after {ms} ms: {out}")
out = entry("(sq 5)")
check("usable-after-ctrl-c-loops", re.search(r"^25$", out, re.M), out)
# Ctrl-D only once libedit reads the terminal raw: sent while the terminal is still in its
# canonical mode (the prompt is out before libedit switches), the line discipline takes it
# for an end of file, echoes "^D" and leaves a character in libedit's line, which then rings
# the bell at every Ctrl-D after (seen on a loaded machine: "^D\x07\x07...")
end = time.time() + 10
while time.time() < end and termios.tcgetattr(fd)[3] & termios.ICANON:
    read_until(b"\x00", 0.02)
os.write(fd, b"\x04")
status = None
tail = ""   # what it printed since, for the FAIL line
presses = 1
end = time.time() + 20   # a deadline: a repl that does not end fails here, never hangs the suite
next_press = time.time() + 3
while status is None and time.time() < end:
    wpid, st = os.waitpid(pid, os.WNOHANG)
    if wpid:
        status = st
    else:
        tail = (tail + read_until(b"\x00", 0.05))[-160:]   # (drains the terminal: a full pty would block the repl)
        # (pressed again every 3 s, up to 5 times, should one still be lost)
        if time.time() > next_press and presses < 5:
            presses += 1
            next_press = time.time() + 3
            os.write(fd, b"\x04")
stuck = ""
if status is None:
    # where it is, for the FAIL line: its state, the kernel function it waits in, its syscall
    for f in ("stat", "wchan", "syscall"):
        try:
            v = open(f"/proc/{pid}/{f}").read().strip()
            stuck += f" {f}: " + (v.split(") ", 1)[1].split()[0] if f == "stat" else v.split()[0] if f == "syscall" else v)
        except (OSError, IndexError):
            pass
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
again = presses > 1
check("ctrl-d" + (f" (at Ctrl-D number {presses})" if again else ""),
      status is not None and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
      ("still running 20 s after Ctrl-D;" + stuck + f"; it printed {tail!r}") if status is None else str(status))
h = open(hist).read().replace("\\040", " ") if os.path.exists(hist) else ""   # libedit writes spaces as \040
check("history", "(sq 12)" in h, h)

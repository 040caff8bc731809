# tests/trace/helper.py ARGS: the traced process of tests/suites/trace.sh. It calls getpgid
# (the "attached?" signal) until the file READY exists, then getppid N times, then writes
# each of SIZES bytes to fd 9 (/dev/null), and exits: the exit ends the trace.
import os, sys, time

ready, n = sys.argv[1], int(sys.argv[2])
sizes = [int(x) for x in sys.argv[3].split(",")]
fd = os.open("/dev/null", os.O_WRONLY)
os.dup2(fd, 9)
deadline = time.time() + 30
while not os.path.exists(ready) and time.time() < deadline:
    os.getpgid(0)
    time.sleep(0.01)
for _ in range(n):
    os.getppid()
for s in sizes:
    os.write(9, b"x" * s)

#!/usr/bin/env python3
"""pester.py - clients of `kiln run --metrics` for the load test of tests/suites/metrics.sh.

usage: pester.py HOST PORT SECONDS STATS [--attack]

Scrapes GET /metrics every 0.25 s on a fresh connection, each with a deadline of 1 s from the
connect to the last byte of the answer, for SECONDS, in a thread of its own. With --attack it
first opens, and keeps open (reconnecting whatever the server closes):
  500 idle connections that never send a byte,
  10 that drip a request, a byte every 0.5 s, never ending its headers,
  10 that send 50 requests at once (a 4 KB receive buffer) and never read an answer.
It prints 'ready' once they are up and the scrapes begin. After SECONDS it writes STATS (JSON):
the scrapes' latencies in ms (null: failed or past the deadline) and, for each kind of
connection, how long the server let those it closed live. Then it goes on as before (the
attack stays, the scrapes stop) until killed, so that the suite can time Ctrl-C with the
connections there.
"""
import json
import os
import select
import socket
import sys
import threading
import time

IDLE, DRIP, NOREAD = 500, 10, 10
DRIP_EVERY = 0.5
SCRAPE_EVERY, SCRAPE_DEADLINE = 0.25, 1.0
DRIP_BYTES = b"GET /metrics HTTP/1.1\r\nHost: kiln\r\nX-Drip: "
PIPELINED = b"GET /metrics HTTP/1.1\r\nHost: kiln\r\n\r\n" * 50


def scrape(host, port):
    """ms from the connect to the end of a 200 answer holding kiln_calls, or None"""
    t0 = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=SCRAPE_DEADLINE) as s:
            s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
            data = b""
            while True:
                left = SCRAPE_DEADLINE - (time.monotonic() - t0)
                if left <= 0:
                    return None
                s.settimeout(left)
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return None
    ms = (time.monotonic() - t0) * 1000
    ok = data.startswith(b"HTTP/1.") and b" 200 " in data.split(b"\r\n", 1)[0] and b"kiln_calls" in data
    return round(ms, 2) if ok and ms <= SCRAPE_DEADLINE * 1000 else None


class Attack:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.poll = select.poll()
        self.conns = {}            # fd -> [kind, socket, opened, next drip, bytes dripped]
        self.cut = {"idle": [], "drip": [], "noread": []}

    def open(self, kind):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if kind == "noread":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(5)
        s.connect((self.host, self.port))
        now = time.monotonic()
        if kind == "noread":
            s.sendall(PIPELINED)
        s.setblocking(False)
        self.conns[s.fileno()] = [kind, s, now, now, 0]
        mask = select.POLLRDHUP | (select.POLLIN if kind != "noread" else 0)
        self.poll.register(s.fileno(), mask)

    def close(self, fd):
        kind, s, opened = self.conns.pop(fd)[:3]
        self.cut[kind].append(round(time.monotonic() - opened, 2))
        self.poll.unregister(fd)
        s.close()
        return kind

    def start(self):
        for kind, n in (("idle", IDLE), ("drip", DRIP), ("noread", NOREAD)):
            for _ in range(n):
                self.open(kind)

    def step(self, timeout_ms):
        for fd, ev in self.poll.poll(timeout_ms):
            if fd not in self.conns:
                continue
            c = self.conns[fd]
            closed = ev & (select.POLLRDHUP | select.POLLHUP | select.POLLERR)
            if not closed and ev & select.POLLIN:
                try:
                    closed = not c[1].recv(65536)   # an answer (a 408?) or the end
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
            if closed:
                self.reopen(fd)
        now = time.monotonic()
        for fd, c in list(self.conns.items()):
            if c[0] == "drip" and now >= c[3]:
                i = c[4]
                byte = DRIP_BYTES[i:i + 1] if i < len(DRIP_BYTES) else b"a"
                try:
                    c[1].send(byte)
                    c[4] += 1
                    c[3] = now + DRIP_EVERY
                except BlockingIOError:
                    pass
                except OSError:
                    self.reopen(fd)

    def reopen(self, fd):
        kind = self.close(fd)
        try:
            self.open(kind)
        except OSError:
            pass   # retried at the next close; the stats show what was open


def main():
    host, port, seconds, stats = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    attack = Attack(host, port) if "--attack" in sys.argv[5:] else None
    if attack:
        attack.start()
    lat = []

    def scrapes():
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            slot = time.monotonic()
            lat.append(scrape(host, port))
            time.sleep(max(0.0, SCRAPE_EVERY - (time.monotonic() - slot)))

    th = threading.Thread(target=scrapes, daemon=True)
    print("ready", flush=True)
    th.start()
    written = False
    while True:
        if attack:
            attack.step(50)
        else:
            time.sleep(0.05)
        if not written and not th.is_alive():
            doc = {"scrapes": lat, "cut": attack.cut if attack else {},
                   "open": {k: sum(1 for c in attack.conns.values() if c[0] == k) for k in attack.cut} if attack else {}}
            with open(stats + ".tmp", "w") as f:
                json.dump(doc, f)
            os.rename(stats + ".tmp", stats)
            written = True


if __name__ == "__main__":
    main()

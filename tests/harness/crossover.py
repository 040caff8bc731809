# crossover.py — test tool (progtypes.sh, redirect.lisp): two loopback TCP connections, to
# ports 7101 and 7102; writes a line on the first and prints what the server side of each
# received within 3 seconds ("nothing" if nothing), spaces as _.
import socket
def listen(p):
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("127.0.0.1", p)); l.listen(4); return l
def pair(l, p):
    c = socket.create_connection(("127.0.0.1", p), timeout=3); s, _ = l.accept(); return c, s
l1, l2 = listen(7101), listen(7102)
c1, s1 = pair(l1, 7101)
c2, s2 = pair(l2, 7102)
c1.sendall(b"kiln run crossed\n")
s2.settimeout(3)
try: got = s2.recv(64).decode().strip()
except socket.timeout: got = "nothing"
s1.setblocking(False)
try: other = s1.recv(64).decode().strip() or "eof"
except BlockingIOError: other = "nothing"
print("port-7102-server:%s port-7101-server:%s" % (got.replace(" ", "_"), other.replace(" ", "_")))

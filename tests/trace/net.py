# net.py — activity for trace.sh's address and byte functions: with "conn", a TCP
# connection over IPv4 loopback and one over IPv6 loopback, each accepted and closed (the
# sock:inet_sock_set_state tracepoint sees every state), listening on the port given (a
# test filters on it: other connections' states can be handled while this process runs); with "write", one write of bytes
# printable and not (to /dev/null).
import os
import socket
import sys

if sys.argv[1] == "conn":
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0   # the listeners' port, for a filter
    for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        listener = socket.socket(fam, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(1)
        client = socket.create_connection((host, listener.getsockname()[1]))
        accepted, _ = listener.accept()
        client.close()
        accepted.close()
        listener.close()
else:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.write(fd, b"ab\x00\x01\xffz\n")
    os.close(fd)

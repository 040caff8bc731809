# tests/trace/btsrc.py — what the drivers that read bpftrace's source mirror and run bpftrace
# next to kiln trace (runtime.py, tools.py) take on their command line.


def add_args(ap):
    ap.add_argument("--mirror", required=True, help="bpftrace's source, a git directory")
    ap.add_argument("--tag", default="v0.17.0")
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--bpftrace", default="bpftrace")

#!/usr/bin/env python3
"""badcomm.py [N] - the trigger of tests/suites/utf8.sh and metrics.sh: this process names
itself kiln, two bytes that are not UTF-8 and -bad (prctl PR_SET_NAME, which any user may do),
then makes the getresgid() system call N times (default 1) and exits."""
import ctypes
import os
import sys

NAME = b"kiln\xff\xfe-bad"
PR_SET_NAME = 15

if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NAME, NAME, 0, 0, 0):
    sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1):
    os.getresgid()

#!/usr/bin/env python3
"""esccomm.py - the trigger of tests/suites/names.sh: this process names itself k, an escape
sequence that turns a terminal's text red, and red (prctl PR_SET_NAME, which any user may
do), then makes the getresgid() system call three times and exits."""
import ctypes
import os
import sys

if ctypes.CDLL(None, use_errno=True).prctl(15, b"k\x1b[31mred", 0, 0, 0):
    sys.exit("prctl: %s" % os.strerror(ctypes.get_errno()))
for _ in range(3):
    os.getresgid()

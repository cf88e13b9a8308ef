#!/usr/bin/python3
"""Runs a command where the kernel refuses io_uring: a seccomp filter answers io_uring_setup with
EPERM, as some container runtimes do. For tests of tiercached's fallbacks (libaio, epoll).
Usage: without-io-uring.py COMMAND [ARG...]   (the command replaces this process: same pid)"""
import errno
import os
import sys

import seccomp

if len(sys.argv) < 2:
    sys.exit("usage: without-io-uring.py COMMAND [ARG...]")
f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
f.add_rule(seccomp.ERRNO(errno.EPERM), "io_uring_setup")
f.load()
os.execvp(sys.argv[1], sys.argv[1:])

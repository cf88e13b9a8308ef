"""Helpers shared by the e2e tests' libnbd scripts (nbdsh -c and python3 -).

functions.sh puts this directory on PYTHONPATH.
"""
import errno
import os
import signal

import nbd


def expect_error(name, want, fn):
    """Runs fn(); it must fail with errno `want` (an assertion names the case otherwise)."""
    try:
        fn()
    except nbd.Error as e:
        assert e.errnum == want, '%s: got %s (%s), want %s' % (name, e.errno, e.string,
                                                                errno.errorcode[want])
        return
    raise AssertionError('%s: succeeded, want %s' % (name, errno.errorcode[want]))


def sigterm_after_first_ack(h, cookies, pid):
    """Drives handle `h` until every command of `cookies` (cookie -> index) has completed or
    failed, or the connection is gone; sends SIGTERM to `pid` as soon as the first one is
    acknowledged, while the others are still under way. Returns the acknowledged indexes."""
    acked, signalled = [], False
    while cookies and not h.aio_is_closed() and not h.aio_is_dead():
        try:
            h.poll(-1)
        except nbd.Error:
            break
        for cookie in list(cookies):
            try:
                if h.aio_command_completed(cookie):
                    acked.append(cookies.pop(cookie))
            except nbd.Error:
                cookies.pop(cookie)  # failed: not acknowledged
        if acked and not signalled:
            os.kill(pid, signal.SIGTERM)
            signalled = True
    assert signalled, 'no write completed'
    return acked

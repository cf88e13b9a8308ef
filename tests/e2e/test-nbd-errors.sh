#!/usr/bin/env bash
# Bad requests through libnbd (nbdsh, strict mode off so the client sends them): every
# error case gets its exact errno, and the connection keeps working afterwards.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version

start_nbd_test_server --memory 1M

nbdsh -c "
import errno
size = 1 << 20
h = nbd.NBD()
h.set_strict_mode(0)
h.add_meta_context(nbd.CONTEXT_BASE_ALLOCATION)
h.connect_unix('$NBD_SOCKET')
assert h.get_size() == size
assert h.can_meta_context(nbd.CONTEXT_BASE_ALLOCATION)

from nbd_helpers import expect_error as expect

blk = b'\x5a' * 512
# Past the end: EINVAL for reads, ENOSPC for writes; offset + length overflowing 64 bits.
expect('read past end', errno.EINVAL, lambda: h.pread(1024, size - 512))
expect('read at end', errno.EINVAL, lambda: h.pread(512, size))
expect('read overflow', errno.EINVAL, lambda: h.pread(1024, (1 << 64) - 512))
expect('write past end', errno.ENOSPC, lambda: h.pwrite(blk * 2, size - 512))
expect('write overflow', errno.ENOSPC, lambda: h.pwrite(blk * 2, (1 << 64) - 512))
expect('zero past end', errno.ENOSPC, lambda: h.zero(1024, size - 512))
expect('trim past end', errno.EINVAL, lambda: h.trim(1024, size - 512))
expect('cache past end', errno.EINVAL, lambda: h.cache(1024, size - 512))
expect('block status past end', errno.EINVAL,
       lambda: h.block_status(1024, size, lambda *a: 0))
# Misaligned to the 512-byte minimum block size.
expect('read misaligned offset', errno.EINVAL, lambda: h.pread(512, 1))
expect('read misaligned length', errno.EINVAL, lambda: h.pread(100, 0))
expect('write misaligned', errno.EINVAL, lambda: h.pwrite(b'x' * 100, 0))
expect('zero misaligned', errno.EINVAL, lambda: h.zero(512, 256))
expect('trim misaligned', errno.EINVAL, lambda: h.trim(100, 0))
expect('cache misaligned', errno.EINVAL, lambda: h.cache(512, 7))
# Zero-length requests are EINVAL (the protocol leaves them unspecified; never a disconnect).
expect('read 0', errno.EINVAL, lambda: h.pread(0, 0))
expect('write 0', errno.EINVAL, lambda: h.pwrite(b'', 0))
expect('trim 0', errno.EINVAL, lambda: h.trim(0, 0))
expect('zero 0', errno.EINVAL, lambda: h.zero(0, 0))
expect('cache 0', errno.EINVAL, lambda: h.cache(0, 0))
expect('block status 0', errno.EINVAL, lambda: h.block_status(0, 0, lambda *a: 0))
# Unknown flags and flags on the wrong command.
expect('unknown flag', errno.EINVAL, lambda: h.pread(512, 0, 1 << 7))
expect('NO_HOLE on write', errno.EINVAL, lambda: h.pwrite(blk, 0, nbd.CMD_FLAG_NO_HOLE))
expect('REQ_ONE on read', errno.EINVAL, lambda: h.pread(512, 0, nbd.CMD_FLAG_REQ_ONE))
expect('DF on write', errno.EINVAL, lambda: h.pwrite(blk, 0, nbd.CMD_FLAG_DF))
expect('FAST_ZERO on trim', errno.EINVAL, lambda: h.trim(512, 0, nbd.CMD_FLAG_FAST_ZERO))
# FAST_ZERO is advertised but never fast: ENOTSUP, and nothing is zeroed.
h.pwrite(blk, 0)
expect('fast zero', errno.ENOTSUP, lambda: h.zero(512, 0, nbd.CMD_FLAG_FAST_ZERO))
assert h.pread(512, 0) == blk
# Reads above the 32 MiB maximum block size are EINVAL, not a disconnect.
expect('read 32M+512', errno.EINVAL, lambda: h.pread((32 << 20) + 512, 0))

# The connection still works, and the valid flag combinations are accepted.
h.pwrite(blk, 4096, nbd.CMD_FLAG_FUA)
assert h.pread(512, 4096, nbd.CMD_FLAG_DF) == blk
assert h.pread(512, 4096, nbd.CMD_FLAG_FUA) == blk
h.zero(512, 4096, nbd.CMD_FLAG_NO_HOLE | nbd.CMD_FLAG_FUA)
assert h.pread(512, 4096) == bytes(512)
h.trim(4096, 0, nbd.CMD_FLAG_FUA)
h.cache(size, 0)
h.flush()
extents = []
h.block_status(8192, 512, lambda ctx, off, ents, err: extents.append((ctx, off, ents)) or 0)
assert extents == [(nbd.CONTEXT_BASE_ALLOCATION, 512, [8192, 0])], extents
extents.clear()
h.block_status(4096, 0, lambda ctx, off, ents, err: extents.append(ents) or 0,
               nbd.CMD_FLAG_REQ_ONE)
assert extents == [[4096, 0]], extents
h.shutdown()
"

# Without structured replies: simple replies, no DF, and BLOCK_STATUS is refused.
nbdsh -c "
import errno
h = nbd.NBD()
h.set_strict_mode(0)
h.set_request_structured_replies(False)
h.connect_unix('$NBD_SOCKET')
assert not h.get_structured_replies_negotiated()
assert not h.can_df()
try:
    h.pread(1024, (1 << 20) - 512)
    raise AssertionError('read past end succeeded')
except nbd.Error as e:
    assert e.errnum == errno.EINVAL, e
try:
    h.block_status(512, 0, lambda *a: 0)
    raise AssertionError('block status succeeded')
except nbd.Error as e:
    assert e.errnum == errno.EINVAL, e
h.pwrite(b'\x01' * 512, 0)
assert h.pread(512, 0) == b'\x01' * 512
h.shutdown()
"
echo "PASS: $0"

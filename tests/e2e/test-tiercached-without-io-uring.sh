#!/usr/bin/env bash
# tiercached where the kernel refuses io_uring (a seccomp filter answering EPERM to
# io_uring_setup, as some container runtimes do; without-io-uring.py): with the default options
# both devices fall back to libaio and the NBD sockets to epoll, `tiercache status` says so, and
# the volume serves byte-exact data. `--io-backend uring` refuses to start there.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires /usr/bin/python3 -c "import seccomp"
requires nbdsh --version
requires jq --version
WITHOUT_IO_URING="/usr/bin/python3 $(cd "$(dirname "$0")" && pwd)/without-io-uring.py"

cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wt

# Under the filter, insisting on io_uring is a clear startup error. (The timeout only turns a
# daemon that wrongly started, and would serve forever, into a failure; refusing takes no time.)
rc=0
out="$(timeout 60 $WITHOUT_IO_URING "$TIERCACHED" --cache ssd.img --foreground \
    --io-backend uring 2>&1)" || rc=$?
[ "$rc" != 0 ] || fail "tiercached --io-backend uring started without io_uring"
grep -q "io_uring is not usable here" <<<"$out" || fail "--io-backend uring said: $out"

TC_WRAPPER="$WITHOUT_IO_URING" start_tiercached ssd.img
status="$(tc_cli status --json)" || fail "tiercache status --json"
[ "$(jq -r .status.io.cache.backend <<<"$status")" = libaio ] || fail "cache not on libaio: $status"
[ "$(jq -r .status.io.core.backend <<<"$status")" = libaio ] || fail "core not on libaio: $status"
[ "$(jq -r .status.export_io <<<"$status")" = epoll ] || fail "sockets not on epoll: $status"
tc_cli status | grep -qxF "export:     $TC_SOCKET (sockets on epoll)" ||
    fail "status text: $(tc_cli status)"

# Byte-exact data through the fallbacks: 1 MiB written at an unaligned 512-byte offset, flushed,
# read back (from the cache), and a range never written reads as the core's zeroes.
nbdsh -u "$TC_URI" -c '
import os
data = os.urandom(1 << 20)
h.pwrite(data, 3 * 512)
h.flush()
assert h.pread(1 << 20, 3 * 512) == data, "read back differs"
assert h.pread(4096, 64 << 20) == bytes(4096), "an unwritten range is not zeroes"
' || fail "data through the libaio and epoll fallbacks"
stop_tiercached

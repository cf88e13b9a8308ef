#!/usr/bin/env bash
# qemu-io against nbd_test_server: pattern writes and reads (byte-exact), write zeroes,
# discard, flush, FUA writes, and a multi-connection check (data written and flushed through
# one connection is read back through another).
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires qemu-io --version

start_nbd_test_server --memory 64M

qio() { qemu_io "$NBD_URI" "$@"; }

qio -c "write -P 0xab 0 1M" -c "read -P 0xab 0 1M" \
    -c "write -P 0xcd 1M 4k" -c "read -P 0xcd 1M 4k" -c "read -P 0 1028k 4k" -c "read -P 0xab 1020k 4k" \
    -c "write -f -P 0x11 8M 64k" -c "read -P 0x11 8M 64k" \
    -c "write -z 512k 64k" -c "read -P 0 512k 64k" -c "read -P 0xab 448k 64k" \
    -c "read -P 0xab 576k 64k" \
    -c "discard 2M 1M" -c "flush" \
    -c "write -P 0x5e 67104768 4k" -c "read -P 0x5e 67104768 4k"
# A second connection sees what the first one wrote (CAN_MULTI_CONN).
qio -c "read -P 0xab 0 512k" -c "read -P 0 512k 64k" -c "read -P 0x11 8M 64k" \
    -c "read -P 0x5e 67104768 4k"
# 32 MiB, the maximum request, in one go; and qemu-io's own check that a mismatch is caught.
qio -c "write -P 0x77 16M 32M" -c "read -P 0x77 16M 32M"
wrong="$(qemu-io -f raw "$NBD_URI" -c "read -P 0x78 16M 4k" 2>&1 || true)"
grep -q "Pattern verification failed" <<<"$wrong" || fail "a wrong pattern was not detected"

echo "PASS: $0"

#!/usr/bin/env bash
# Real clients against the real daemon, in wt and in wb, with a cache smaller than the volume
# (so lines are evicted and cleaned while the clients run): nbdinfo capabilities and block
# sizes, nbdsh error cases, qemu-io patterns, an nbdcopy round trip checked by qemu-img compare,
# fio verify at QD32 over 4 connections; wb with busy-polling loops. At the end the HDD file, after `tiercache flush`, holds
# exactly what the daemon serves.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdinfo --version
requires nbdsh --version
requires qemu-io --version
requires qemu-img --version
requires nbdcopy --version
requires fio --enghelp=nbd
requires jq --version

SIZE=$((128 << 20))
cd "$TEST_TMP"  # fio writes state files into the working directory

# A random image for nbdcopy, with a zero hole in the middle for nbdcopy's zeroing path.
head -c "$SIZE" /dev/urandom >src.img
dd if=/dev/zero of=src.img bs=1M seek=40 count=8 conv=notrunc status=none

check_info() {
  local json got
  json="$(nbdinfo --json "$TC_URI")"
  for kv in '"export-size"='$SIZE can_flush=true can_fua=true can_trim=true can_zero=true \
            can_multi_conn=true is_read_only=false block_size_minimum=512 \
            block_size_preferred=4096 block_size_maximum=33554432; do
    got="$(jq -r ".exports[0].${kv%%=*}" <<<"$json")"
    [ "$got" = "${kv#*=}" ] || fail "nbdinfo ${kv%%=*}: expected ${kv#*=}, got $got"
  done
}

check_errors() {
  nbdsh -c "
import errno
size = $SIZE
h = nbd.NBD()
h.set_strict_mode(0)
h.connect_unix('$TC_SOCKET')
assert h.get_size() == size

from nbd_helpers import expect_error as expect

blk = b'\xa5' * 4096
h.pwrite(blk, size - 4096)
# Past the end: EINVAL for READ and TRIM, ENOSPC for WRITE and WRITE_ZEROES.
expect('read past end', errno.EINVAL, lambda: h.pread(8192, size - 4096))
expect('read at end', errno.EINVAL, lambda: h.pread(4096, size))
expect('read overflow', errno.EINVAL, lambda: h.pread(8192, (1 << 64) - 4096))
expect('trim past end', errno.EINVAL, lambda: h.trim(8192, size - 4096))
expect('trim overflow', errno.EINVAL, lambda: h.trim(8192, (1 << 64) - 4096))
expect('write past end', errno.ENOSPC, lambda: h.pwrite(blk * 2, size - 4096))
expect('write at end', errno.ENOSPC, lambda: h.pwrite(blk, size))
expect('write overflow', errno.ENOSPC, lambda: h.pwrite(blk * 2, (1 << 64) - 4096))
expect('zero past end', errno.ENOSPC, lambda: h.zero(8192, size - 4096))
expect('zero overflow', errno.ENOSPC, lambda: h.zero(8192, (1 << 64) - 4096))
# Misaligned to the 512-byte minimum block size: EINVAL, and nothing is written.
expect('read misaligned offset', errno.EINVAL, lambda: h.pread(4096, 256))
expect('read misaligned length', errno.EINVAL, lambda: h.pread(100, 0))
expect('write misaligned offset', errno.EINVAL, lambda: h.pwrite(blk, size - 4096 - 256))
expect('write misaligned length', errno.EINVAL, lambda: h.pwrite(b'x' * 100, size - 4096))
expect('zero misaligned', errno.EINVAL, lambda: h.zero(1000, size - 4096))
expect('trim misaligned', errno.EINVAL, lambda: h.trim(4096, size - 4096 - 100))
# The connection still works and nothing above touched the data.
assert h.pread(4096, size - 4096) == blk
h.pwrite(b'\x3c' * 8192, 1 << 20, nbd.CMD_FLAG_FUA)
assert h.pread(8192, 1 << 20) == b'\x3c' * 8192
# 512-byte sectors, as on a 512e disk: 3 sectors from sector 2051 land exactly there.
h.pwrite(b'\x77' * 1536, (1 << 20) + 1536)
assert h.pread(8192, 1 << 20) == b'\x3c' * 1536 + b'\x77' * 1536 + b'\x3c' * 5120
h.zero(512, (1 << 20) + 2048)
assert h.pread(4096, 1 << 20) == b'\x3c' * 1536 + b'\x77' * 512 + bytes(512) + b'\x77' * 512 + b'\x3c' * 1024
# CAN_MULTI_CONN: written and flushed on one connection, read on another.
h2 = nbd.NBD()
h2.connect_unix('$TC_SOCKET')
h.pwrite(b'\x4d' * 65536, 2 << 20)
h.flush()
assert h2.pread(65536, 2 << 20) == b'\x4d' * 65536
h2.shutdown()
h.shutdown()
"
}

qio() { qemu_io "$TC_URI" "$@"; }

check_qemu_io() {
  qio -c "write -P 0xab 0 1M" -c "read -P 0xab 0 1M" \
      -c "write -P 0xcd 1M 4k" -c "read -P 0xcd 1M 4k" -c "read -P 0xab 1020k 4k" \
      -c "write -f -P 0x11 8M 64k" -c "read -P 0x11 8M 64k" \
      -c "write -z 512k 64k" -c "read -P 0 512k 64k" -c "read -P 0xab 448k 64k" \
      -c "read -P 0xab 576k 64k" \
      -c "write -P 0x22 4M 1M" -c "discard 4M 1M" -c "flush" \
      -c "write -P 0x5e $((SIZE - 4096)) 4k" -c "read -P 0x5e $((SIZE - 4096)) 4k" \
      -c "write -P 0x77 16M 32M" -c "read -P 0x77 16M 32M"
  # A second connection sees it all; and a wrong pattern is caught.
  qio -c "read -P 0xab 0 512k" -c "read -P 0 512k 64k" -c "read -P 0x11 8M 64k" \
      -c "read -P 0x77 16M 32M" -c "read -P 0x5e $((SIZE - 4096)) 4k"
  local wrong
  wrong="$(qemu-io -f raw "$TC_URI" -c "read -P 0x78 16M 4k" 2>&1 || true)"
  grep -q "Pattern verification failed" <<<"$wrong" || fail "a wrong pattern was not detected"
}

check_nbdcopy() {
  nbdcopy src.img "$TC_URI"
  qemu-img compare -f raw -F raw src.img "$TC_URI" >/dev/null || fail "compare after nbdcopy in"
  nbdcopy "$TC_URI" back.img
  cmp src.img back.img || fail "nbdcopy out differs"
  rm -f back.img
}

run_fio() {
  fio --output=fio.out --ioengine=nbd --uri="$TC_URI" --iodepth=32 --numjobs=4 \
      --size=32M --offset_increment=32M --verify=crc32c --do_verify=1 --verify_fatal=1 \
      --verify_state_save=0 --group_reporting "$@" || { cat fio.out; fail "fio $*"; }
  grep -q "err= 0" fio.out || { cat fio.out; fail "fio errors: $*"; }
}

# Flushes, reads the whole export through the daemon, stops it and compares with the HDD.
check_core_matches() {
  tc_cli flush >/dev/null || fail "tiercache flush"
  [ "$(tc_stat lines_dirty)" = 0 ] || fail "dirty lines left after tiercache flush"
  nbdcopy "$TC_URI" served.img
  stop_tiercached
  cmp served.img hdd.img || fail "HDD differs from what the daemon served ($1)"
  rm -f served.img
}

run_mode() {  # MODE LINE_SIZE [DAEMON ARGS...]
  local mode="$1" line_size="$2"
  shift 2
  rm -f ssd.img hdd.img
  make_cache ssd.img 48M hdd.img "$SIZE" --mode "$mode" --line-size "$line_size"
  start_tiercached ssd.img "$@"
  [ "$(tc_cli mode --json | jq -r .mode)" = "$mode" ] || fail "mode: expected $mode"
  check_info
  check_errors
  check_qemu_io
  check_nbdcopy
  run_fio --name=randwrite --rw=randwrite --bs=4k
  run_fio --name=mixed --rw=randrw --bsrange=4k-256k --blockalign=4k
  run_fio --name=seq --rw=write --bs=1M
  # The cache was used: reads hit it and lines were evicted to make room.
  [ "$(tc_stat read_hits)" -gt 0 ] || fail "no read hits in $mode"
  [ "$(tc_stat evictions)" -gt 0 ] || fail "no evictions in $mode"
  [ "$(tc_stat errors)" = 0 ] || fail "engine errors in $mode"
  check_core_matches "$mode"
}

run_mode wt 64K
run_mode wb 16K --poll-us 200  # the loops busy-poll between events
echo "PASS: $0"

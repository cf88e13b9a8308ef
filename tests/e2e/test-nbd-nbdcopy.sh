#!/usr/bin/env bash
# nbdcopy a random image into nbd_test_server and back out, then qemu-img compare: the
# round trip is byte-exact. Done for a memory export and for a file export.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdcopy --version
requires qemu-img --version

src="$TEST_TMP/src.img"
head -c $((48 << 20)) /dev/urandom >"$src"
# A zero hole in the middle exercises nbdcopy's zeroing path.
dd if=/dev/zero of="$src" bs=1M seek=20 count=8 conv=notrunc status=none

round_trip() {
  nbdcopy "$src" "$NBD_URI"
  qemu-img compare -f raw -F raw "$src" "$NBD_URI" || fail "compare after upload ($1)"
  nbdcopy "$NBD_URI" "$TEST_TMP/back.img"
  cmp "$src" "$TEST_TMP/back.img" || fail "downloaded image differs ($1)"
  rm -f "$TEST_TMP/back.img"
}

start_nbd_test_server --memory 48M
round_trip memory
stop_server "$SERVER_PID"

truncate -s 48M "$TEST_TMP/disk.img"
start_nbd_test_server --file "$TEST_TMP/disk.img"
round_trip file
stop_server "$SERVER_PID"
cmp "$src" "$TEST_TMP/disk.img" || fail "file backing store differs"
echo "PASS: $0"

#!/usr/bin/env bash
# fio's nbd engine against nbd_test_server: 4 jobs (4 connections) at iodepth 32 writing
# random 4 KiB blocks with crc32c verification, then mixed sizes, all verified.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires fio --enghelp=nbd

start_nbd_test_server --memory 128M

run_fio() {
  fio --output="$TEST_TMP/fio.out" --ioengine=nbd --uri="$NBD_URI" --iodepth=32 --numjobs=4 \
      --size=32M --offset_increment=32M --verify=crc32c --do_verify=1 \
      --verify_fatal=1 --group_reporting "$@" || { cat "$TEST_TMP/fio.out"; fail "fio $*"; }
  grep -q "err= 0" "$TEST_TMP/fio.out" || { cat "$TEST_TMP/fio.out"; fail "fio errors"; }
}
run_fio --name=randwrite --rw=randwrite --bs=4k
run_fio --name=mixed --rw=randwrite --bsrange=512-256k --bs_unaligned=0 --blockalign=512
run_fio --name=seq --rw=write --bs=1M
echo "PASS: $0"

#!/usr/bin/env bash
# SSD failure isolation on a real failing device (issue 10 parts 2 and 7): the cache SSD is a
# file served by nbdkit through its error filter and exposed with nbdfuse; while the trigger file
# exists every SSD I/O fails with EIO. A warm write-through cache keeps answering every read with
# the HDD's bytes and every write succeeds; past the error threshold `tiercache status` says
# "failed"; `tiercache reset-health` is refused while the SSD fails and brings it back after.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires nbdfuse --version
requires nbdkit --filter=error memory 1M --dump-config
requires fusermount3 --version
requires test -w /dev/fuse
requires jq --version

cd "$TEST_TMP"
DATA=$((4 << 20))
truncate -s 32M ssd-backing.img
truncate -s 64M hdd.img
mkdir mnt
nbdfuse mnt/ssd --command nbdkit -s --filter=error file ssd-backing.img \
    error-rate=100% error-file="$TEST_TMP/ssd-fails" >/dev/null 2>nbdkit.log &
FUSE_PID=$!
# Runs before the daemon's own cleanup: a failed test kills the daemon first, so the mount is free.
unmount_ssd() {
  if [ -n "$TC_PID" ]; then
    kill -KILL "$TC_PID" 2>/dev/null || true
    wait "$TC_PID" 2>/dev/null || true
    TC_PID=""
  fi
  fusermount3 -u "$TEST_TMP/mnt" 2>/dev/null || fusermount3 -uz "$TEST_TMP/mnt" 2>/dev/null || true
  kill "$FUSE_PID" 2>/dev/null || true
  wait "$FUSE_PID" 2>/dev/null || true
}
cleanup_fn unmount_ssd
for ((i = 0; i < 100; i++)); do [ -e mnt/ssd ] && break; sleep 0.1; done
[ -e mnt/ssd ] || fail "nbdfuse did not expose the SSD"

"$TIERCACHE_CLI" create --cache mnt/ssd --core hdd.img --mode wt --admission always \
    --line-size 64K >/dev/null || fail "tiercache create on the nbdfuse SSD"
start_tiercached "$TEST_TMP/mnt/ssd" --core "$TEST_TMP/hdd.img" --seq-cutoff 0
head -c "$DATA" /dev/urandom >data.bin
head -c $((1 << 20)) /dev/urandom >data2.bin

# Writes data.bin (at 0) or data2.bin (at 8 MiB), or checks that the volume holds them, in
# 64 KiB requests in a shuffled order.
nbd() {
  local what="$1"
  shift
  WHAT="$what" FILES="$*" nbdsh -u "$TC_URI" -c "
import os, random, sys
what, files = os.environ['WHAT'], {'data.bin': 0, 'data2.bin': 8 << 20}
for name in os.environ['FILES'].split():
    data, base = open(name, 'rb').read(), files[name]
    offs = list(range(0, len(data), 65536))
    random.shuffle(offs)
    for off in offs:
        chunk = data[off:off + 65536]
        if what == 'write':
            h.pwrite(chunk, base + off)
        elif h.pread(len(chunk), base + off) != chunk:
            sys.exit('%s: wrong data at %d' % (name, base + off))
    if what == 'write':
        h.flush()
"
}

nbd write data.bin || fail "writing through the cache"
nbd check data.bin || fail "first read"
nbd check data.bin || fail "second read"
[ "$(tc_stat read_hits)" -ge 64 ] || fail "the cache is not warm: $(tc_stat read_hits) hits"
[ "$(tc_cli status --json | jq -r .status.health)" = ok ] || fail "health not ok before the failure"

# --- the SSD fails: reads come from the HDD, writes succeed ---------------------------------
touch ssd-fails
nbd check data.bin || fail "reads with the SSD failing"
nbd write data2.bin || fail "writes with the SSD failing"
nbd check data.bin data2.bin || fail "reads after writes with the SSD failing"
cmp <(head -c $((1 << 20)) <(tail -c +$(((8 << 20) + 1)) hdd.img)) data2.bin ||
  fail "the HDD does not hold the writes made while the SSD failed"
status="$(tc_cli status --json)"
[ "$(jq -r .status.health <<<"$status")" = failed ] || fail "health not failed: $status"
[ "$(tc_stat errors)" = 0 ] || fail "client requests failed: $(tc_stat errors)"
[ "$(tc_stat ssd_read_errors)" -ge 5 ] || fail "ssd_read_errors $(tc_stat ssd_read_errors)"
[ "$(tc_stat ssd_failovers)" = 1 ] || fail "ssd_failovers $(tc_stat ssd_failovers)"
tc_cli status | grep -q "^health:     failed (SSD errors: " || fail "human status: $(tc_cli status)"

# --- reset-health: refused while the SSD fails, accepted once it works ----------------------
out="$(tc_cli reset-health 2>&1)" && fail "reset-health accepted with the SSD failing: $out"
grep -q "SSD check failed" <<<"$out" || fail "reset-health refusal says: $out"
[ "$(tc_cli status --json | jq -r .status.health)" = failed ] || fail "refused reset changed health"
rm ssd-fails
tc_cli reset-health >/dev/null || fail "reset-health with the SSD working"
[ "$(tc_cli status --json | jq -r .status.health)" = ok ] || fail "health not ok after reset"
nbd check data.bin data2.bin || fail "reads after reset-health"
nbd check data.bin data2.bin || fail "re-reads after reset-health"
stop_tiercached

# --- tiercached --ssd-errors 0: errors are absorbed but never take the cache out of the path -----
start_tiercached "$TEST_TMP/mnt/ssd" --core "$TEST_TMP/hdd.img" --seq-cutoff 0 --ssd-errors 0
nbd check data.bin || fail "reads before the failure (--ssd-errors 0)"
touch ssd-fails
nbd check data.bin data2.bin || fail "reads with the SSD failing (--ssd-errors 0)"
status="$(tc_cli status --json)"
[ "$(jq -r .status.health <<<"$status")" = degraded ] || fail "--ssd-errors 0: health $status"
[ "$(tc_stat ssd_failovers)" = 0 ] || fail "--ssd-errors 0: ssd_failovers $(tc_stat ssd_failovers)"
[ "$(tc_stat errors)" = 0 ] || fail "--ssd-errors 0: client requests failed: $(tc_stat errors)"
rm ssd-fails
stop_tiercached


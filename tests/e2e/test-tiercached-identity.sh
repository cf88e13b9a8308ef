#!/usr/bin/env bash
# Identity and exclusivity (issue 10 part 5): a second daemon on the same core file is refused;
# `tiercache create --force` refuses a cache holding dirty data unless --discard-dirty;
# `tiercache detach` while a writer writes in wb leaves every acknowledged byte in the core file;
# a copied core (new inode) is refused at open, pointing to `tiercache attach`, which re-binds it
# after comparing the clean blocks, and refuses a core with one differing clean block; a block
# device is opened O_EXCL (refused while another program holds it exclusively); a missing core
# is refused with the write-back data the cache holds for it, and nothing written to the SSD.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version

cd "$TEST_TMP"
SIZE=$((256 << 20))
make_cache ssd.img 64M hdd.img "$SIZE" --mode wb

# --- one core, one daemon -------------------------------------------------------------------
start_tiercached ssd.img
truncate -s 64M other-ssd.img
"$TIERCACHE_CLI" create --cache other-ssd.img --core hdd.img >/dev/null || fail "create other-ssd"
expect_refused "a second daemon on the same core file" "core .*hdd.img is in use" \
    "$TIERCACHED" --cache other-ssd.img --core hdd.img --socket "$TEST_TMP/o.sock" \
    --control "$TEST_TMP/o.ctl" --foreground

# --- create --force keeps dirty data unless --discard-dirty ---------------------------------
start_trickle "$TC_URI"  # keeps the idle cleaner away: the data stays dirty
head -c $((2 << 20)) /dev/urandom >dirty.bin
nbdsh -u "$TC_URI" -c "h.pwrite(open('dirty.bin', 'rb').read(), 8 << 20); h.flush()"
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "no dirty lines in wb"
stop_tiercached
wait "$TRICKLE_PID" 2>/dev/null || true
cp ssd.img ssd.before
expect_refused "create --force over dirty data" \
    "dirty lines (2097152 bytes, 2 MiB) not yet written to its core $TEST_TMP/hdd.img" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force
expect_refused "create --force over dirty data (hint)" "tiercache flush.*--discard-dirty" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force
out="$("$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force --json 2>/dev/null)" && \
  fail "create --force --json over dirty data succeeded"
[ "$(jq -r .code <<<"$out")" = Busy ] || fail "create --force --json: $out"
cmp ssd.before ssd.img || fail "a refused create --force changed the SSD"
rm ssd.before
expect_refused "--discard-dirty without --force" "needs --force" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --discard-dirty

# --- a missing core: refused, with the write-back data it is owed -----------------------------
mv hdd.img hdd.away
cp ssd.img ssd.before
expect_refused "a missing core" "core $TEST_TMP/hdd.img does not exist; ssd.img holds 2 MiB of \
write-back data (512 lines) not yet on that core: reconnect the core" \
    "$TIERCACHED" --cache ssd.img --foreground
cmp ssd.before ssd.img || fail "a start refused for a missing core changed the SSD"
rm ssd.before
mv hdd.away hdd.img

# --- detach while a writer writes in wb -------------------------------------------------------
start_tiercached ssd.img
[ "$(tc_cli mode)" = "mode: wb" ] || fail "not in wb after restart"
# 64 KiB writes at distinct offsets, each logged once acknowledged, until the daemon goes away.
python3 - "$TC_SOCKET" acked.log <<'EOF' &
import nbd, sys
h = nbd.NBD()
h.connect_unix(sys.argv[1])
log = open(sys.argv[2], 'w', buffering=1)
CHUNK, BASE = 65536, 32 << 20
for i in range(2048):
    try:
        h.pwrite(bytes([i % 251 + 1]) * CHUNK, BASE + i * CHUNK)
    except nbd.Error:
        break
    log.write('%d\n' % i)
EOF
WRITER_PID=$!
cleanup_fn "kill $WRITER_PID 2>/dev/null || true"
for ((i = 0; i < 300; i++)); do
  [ "$(wc -l 2>/dev/null <acked.log || echo 0)" -ge 64 ] && break
  sleep 0.05
done
[ "$(wc -l <acked.log)" -ge 64 ] || fail "the writer is not writing"
tc_cli detach >detach.out 2>&1 || fail "tiercache detach: $(cat detach.out)"
grep -q "detached: .* of dirty data written back; the core holds all data and tiercached stopped" \
  detach.out || fail "detach output: $(cat detach.out)"
pid="$TC_PID"
TC_PID=""
wait_exit_status "$pid" || fail "tiercached still running after detach"
[ "$EXIT_STATUS" = 0 ] || fail "tiercached exited with status $EXIT_STATUS after detach"
wait "$WRITER_PID" 2>/dev/null || true
echo "detach: $(cat detach.out | tail -1); $(wc -l <acked.log) writes acknowledged"
# The core file alone holds every acknowledged write and the dirty data written before.
python3 - hdd.img acked.log dirty.bin <<'EOF'
import sys
core = open(sys.argv[1], 'rb')
CHUNK, BASE = 65536, 32 << 20
acked = [int(x) for x in open(sys.argv[2]).read().split()]
for i in acked:
    core.seek(BASE + i * CHUNK)
    assert core.read(CHUNK) == bytes([i % 251 + 1]) * CHUNK, 'acknowledged write %d not on the core' % i
core.seek(8 << 20)
assert core.read(2 << 20) == open(sys.argv[3], 'rb').read(), 'dirty data not on the core'
print('core file holds all %d acknowledged writes' % len(acked))
EOF
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "check after detach: $check"
[ "$(jq -r '.lines_used, .lines_dirty, .mode, .clean_shutdown' <<<"$check" | tr '\n' ' ')" = \
  "0 0 wt true " ] || fail "after detach (the clean copies are dropped): $check"
# The HDD used alone after the detach, then the cache started again: it serves the HDD's new
# data, never its own old copy (bcache and Open CAS also start cold after a detach).
printf '\x77%.0s' $(seq 65536) | dd of=hdd.img bs=65536 seek=$(((32 << 20) / 65536)) conv=notrunc \
  status=none
start_tiercached ssd.img
nbdsh -u "$TC_URI" -c 'assert h.pread(65536, 32 << 20) == b"\x77" * 65536, "stale copy"' ||
  fail "the restarted cache served its copy from before the detach"
[ "$(tc_stat read_hits)" = 0 ] || fail "a hit after the detach: $(tc_cli stats --json)"
stop_tiercached
# Nothing dirty any more: --force reformats without --discard-dirty.
cp ssd.img ssd.detached

# --- create --force --discard-dirty -------------------------------------------------------------
start_tiercached ssd.img
tc_cli mode wb >/dev/null
start_trickle "$TC_URI"
nbdsh -u "$TC_URI" -c "h.pwrite(b'x' * 65536, 0); h.flush()"
stop_tiercached
wait "$TRICKLE_PID" 2>/dev/null || true
expect_refused "create --force over dirty data, again" "holds 16 dirty lines (65536 bytes, 64 KiB)" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force
"$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force --discard-dirty >/dev/null ||
  fail "create --force --discard-dirty"
[ "$("$TIERCACHE_CLI" check --cache ssd.img --json | jq -r .lines_used)" = 0 ] ||
  fail "create --force --discard-dirty did not make an empty cache"
cp ssd.detached ssd.img
"$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --force >/dev/null ||
  fail "create --force on a clean cache"

# --- attach: a copied core ---------------------------------------------------------------------
# A small cache whose clean lines are all compared (fewer than 64): 24 blocks written in wt.
make_cache small.img 16M core.img 64M --mode wt --admission always
start_tiercached small.img
nbdsh -u "$TC_URI" -c "
for i in range(24):
    h.pwrite(bytes([i + 1]) * 4096, i * (1 << 20) + 8192)
for i in range(24):
    assert h.pread(4096, i * (1 << 20) + 8192) == bytes([i + 1]) * 4096
"
[ "$(tc_cli status --json | jq -r .status.lines_used)" -ge 24 ] || fail "blocks not cached"
stop_tiercached
cp core.img copy.img  # same data, new inode: another fingerprint
expect_refused "open with a copied core" \
    "is not the device cache small.img was created for.*tiercache attach --cache small.img --core copy.img" \
    "$TIERCACHED" --cache small.img --core copy.img --foreground
# One clean block differs: refused, and the superblock stays as it was.
cp core.img bad.img
printf 'Z' | dd of=bad.img bs=1 seek=$(((5 << 20) + 8192 + 17)) conv=notrunc status=none
cp small.img small.before
expect_refused "attach a core with one differing clean block" \
    "does not hold the data cache $TEST_TMP/small.img holds clean for it: 1 of 24 compared lines differ (first: cache line [0-9]*, core offset $(((5 << 20) + 8192)))" \
    "$TIERCACHE_CLI" attach --cache small.img --core bad.img
cmp small.before small.img || fail "a refused attach changed the SSD"
truncate -s 32M short.img
expect_refused "attach a core of another size" "is 33554432 bytes but cache .* was created for 67108864 bytes" \
    "$TIERCACHE_CLI" attach --cache small.img --core short.img
# The cache given as its own core: said so, not taken for a lock held by another daemon.
expect_refused "attach the cache as its own core" \
    "--cache $TEST_TMP/small.img and --core $TEST_TMP/small.img are the same device" \
    "$TIERCACHE_CLI" attach --cache small.img --core small.img
expect_refused "serve the cache as its own core" \
    "core small.img is the cache device small.img itself" \
    "$TIERCACHED" --cache small.img --core small.img --foreground
cmp small.before small.img || fail "a refused attach or start changed the SSD"
# The copy: attached, then served with the same data.
out="$("$TIERCACHE_CLI" attach --cache small.img --core copy.img --json)" || fail "attach: $out"
[ "$(jq -r '.ok, .changed, .compared_lines, .previous_core' <<<"$out" | tr '\n' ' ')" = \
  "true true 24 $TEST_TMP/core.img " ] || fail "attach --json: $out"
[ "$("$TIERCACHE_CLI" check --cache small.img --json | jq -r .core)" = "$TEST_TMP/copy.img" ] ||
  fail "superblock does not name the new core"
out="$("$TIERCACHE_CLI" attach --cache small.img --core copy.img)" || fail "attach again: $out"
grep -q "already bound to core $TEST_TMP/copy.img; nothing changed" <<<"$out" || fail "attach again: $out"
start_tiercached small.img  # the recorded core is now copy.img
[ "$(tc_cli status --json | jq -r .status.core)" = "$TEST_TMP/copy.img" ] || fail "core after attach"
nbdsh -u "$TC_URI" -c "
for i in range(24):
    assert h.pread(4096, i * (1 << 20) + 8192) == bytes([i + 1]) * 4096, 'block %d' % i
"
[ "$(tc_stat read_hits)" = 24 ] || fail "the re-bound cache is not warm: $(tc_cli stats --json)"
expect_refused "attach while served" "in use by a running tiercached" \
    "$TIERCACHE_CLI" attach --cache small.img --core core.img
stop_tiercached

# --- O_EXCL on a block device ------------------------------------------------------------------
if [ "$(id -u)" = 0 ] && LOOP="$(losetup -f --show core.img 2>/dev/null)"; then
  cleanup_fn "losetup -d $LOOP 2>/dev/null || true"
  truncate -s 16M blk-ssd.img
  "$TIERCACHE_CLI" create --cache blk-ssd.img --core "$LOOP" >/dev/null || fail "create on $LOOP"
  # Another program holds the loop device exclusively (as a mount would).
  python3 -c "
import os, sys, time
fd = os.open('$LOOP', os.O_RDONLY | os.O_EXCL)
open('held', 'w').close()
time.sleep(60)
" &
  HOLDER=$!
  cleanup_fn "kill $HOLDER 2>/dev/null || true"
  for ((i = 0; i < 100; i++)); do [ -e held ] && break; sleep 0.05; done
  expect_refused "a core block device held exclusively" "$LOOP is in use: it is mounted" \
      "$TIERCACHED" --cache blk-ssd.img --foreground --socket "$TEST_TMP/b.sock" \
      --control "$TEST_TMP/b.ctl"
  kill "$HOLDER"
  wait "$HOLDER" 2>/dev/null || true
  start_tiercached blk-ssd.img
  # And the daemon holds it exclusively in turn.
  python3 -c "
import errno, os
try:
    os.open('$LOOP', os.O_RDONLY | os.O_EXCL)
except OSError as e:
    assert e.errno == errno.EBUSY, e
else:
    raise AssertionError('$LOOP opened O_EXCL while tiercached serves it')
" || fail "tiercached does not hold $LOOP exclusively"
  # A loop device is the file behind it (QA, 2026-12-07: a daemon on a loop over a served cache
  # file started, and a loop over the cache file was accepted as its core).
  LOOP2="$(losetup -f --show blk-ssd.img)" || fail "losetup blk-ssd.img"
  cleanup_fn "losetup -d $LOOP2 2>/dev/null || true"
  expect_refused "a daemon on a loop device over a served cache file" \
      "$LOOP2 (a loop device over $TEST_TMP/blk-ssd.img) is in use by another tiercached" \
      "$TIERCACHED" --cache "$LOOP2" --core "$LOOP" --foreground --socket "$TEST_TMP/l.sock" \
      --control "$TEST_TMP/l.ctl"
  expect_refused "create --force on a loop device over a served cache file" \
      "is in use by another tiercached" \
      "$TIERCACHE_CLI" create --cache "$LOOP2" --core core.img --force --discard-dirty
  stop_tiercached
  truncate -s 16M loopy-ssd.img
  LOOP3="$(losetup -f --show loopy-ssd.img)" || fail "losetup loopy-ssd.img"
  cleanup_fn "losetup -d $LOOP3 2>/dev/null || true"
  expect_refused "create with a loop over the cache file as its core" \
      "--cache $TEST_TMP/loopy-ssd.img and --core $LOOP3 are the same device" \
      "$TIERCACHE_CLI" create --cache loopy-ssd.img --core "$LOOP3" --force
else
  echo "note: no loop device (not root, or losetup failed): O_EXCL on block devices not tested"
fi
echo "PASS: $0"

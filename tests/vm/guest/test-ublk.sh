# ublk inside the guest: the server runs here on a file in /data (tmpfs) and exposes
# /dev/ublkb0. Raw bytes and discard land in the backing file; ext4 survives remount and a
# clean restart; after kill -9 during a write loop the server is restarted in recovery mode,
# the mounted file system keeps working and every fsync'ed file is intact.
# Env: functions ublk_prepare, ublk_start, ublk_recover, ublk_ready; UBLK_BACKING (the file
# under /dev/ublkb0, or empty when a cache sits between them); UBLK_RING (loop or own: what
# every start must report); all set by the host.
. /tests/lib.sh
DEV=/dev/ublkb0

# start_server FUNCTION [ARG...]: runs it in the background (log /tmp/ublk.log), waits until
# the device is ready.
start_server() {
  : > /tmp/ublk.log
  "$@" >>/tmp/ublk.log 2>&1 &
  UBLK_PID=$!
  wait_for 200 ublk_ready || { cat /tmp/ublk.log; fail "server not ready: $*"; }
  check_ring /tmp/ublk.log
  step "server $UBLK_PID: $(grep -E 'READY|ublk_start' /tmp/ublk.log || echo ready)"
}

stop_server() {
  kill -TERM "$UBLK_PID"
  wait "$UBLK_PID"
  rc=$?
  [ "$rc" = 0 ] || { cat /tmp/ublk.log; fail "server exit status $rc after SIGTERM"; }
  wait_for 50 test ! -e /sys/block/ublkb0 || fail "$DEV still present after stop"
  step "clean stop: $(grep STOPPED /tmp/ublk.log)"
}

check_queue_attr() {
  v=$(cat /sys/block/ublkb0/queue/"$1")
  [ "$v" = "$2" ] || fail "queue/$1 is '$v', expected '$2'"
}

ublk_prepare || fail "ublk_prepare"
start_server ublk_start
check_queue_attr logical_block_size "$UBLK_LBS"
check_queue_attr physical_block_size 4096
check_queue_attr write_cache "write back"
check_queue_attr fua 1
[ "$(cat /sys/block/ublkb0/queue/discard_max_bytes)" != 0 ] || fail "no discard"
[ "$(cat /sys/block/ublkb0/queue/write_zeroes_max_bytes)" != 0 ] || fail "no write zeroes"
step "queue limits: $UBLK_LBS-byte logical blocks (4096 physical), write back cache, FUA, discard, write zeroes"

# 16 direct 4 KiB writes at 16 MiB, then 16 direct reads of them: each a request of its own,
# served through the tag's buffer. With tiercached the lines are then on the SSD and each read
# is one SSD read into the buffer: the fixed operations (io.cache + io.core) grow by exactly 16
# when the buffers are registered, else not at all. (ublk_test_server: its STOPPED line, below.)
dd if=/dev/urandom of=/tmp/fixed bs=4096 count=16 2>/dev/null
dd if=/tmp/fixed of=$DEV bs=4096 seek=4096 oflag=direct 2>/dev/null || fail "direct writes"
f0=
if type ublk_fixed_buffers >/dev/null 2>&1; then
  f0=$(ublk_fixed_buffers)
  [ -n "$f0" ] || fail "no fixed_buffers counts in tiercache status --json"
fi
dd if=$DEV of=/tmp/fixed.back bs=4096 skip=4096 count=16 iflag=direct 2>/dev/null || fail "direct reads"
cmp -s /tmp/fixed /tmp/fixed.back || fail "16 direct blocks read back differ"
if [ -n "$f0" ]; then
  f1=$(ublk_fixed_buffers)
  [ $((f1 - f0)) = $((16 * UBLK_FIXED_BUFFERS)) ] ||
    fail "fixed operations went from '$f0' to '$f1' over 16 reads (fixed_buffers=$UBLK_FIXED_BUFFERS)"
  step "16 direct reads: fixed operations $f0 -> $f1"
fi

# Raw bytes at 64 MiB reach the backing file; a discard there reads back as zeros.
dd if=/dev/urandom of=/tmp/raw bs=65536 count=16 2>/dev/null
dd if=/tmp/raw of=$DEV bs=65536 seek=1024 conv=fsync 2>/dev/null || fail "raw write"
if [ -n "$UBLK_BACKING" ]; then
  dd if="$UBLK_BACKING" bs=65536 skip=1024 count=16 2>/dev/null | cmp -s - /tmp/raw ||
    fail "backing file differs from what was written to $DEV"
fi
drop_caches
dd if=$DEV bs=65536 skip=1024 count=16 2>/dev/null | cmp -s - /tmp/raw || fail "raw read back"
blkdiscard -o $((64 << 20)) -l $((1 << 20)) $DEV || fail "blkdiscard"
drop_caches
dd if=/dev/zero of=/tmp/zero bs=65536 count=16 2>/dev/null
dd if=$DEV bs=65536 skip=1024 count=16 2>/dev/null | cmp -s - /tmp/zero || fail "discard"
step "raw 1 MiB write/read and discard checked byte for byte"
if [ "$UBLK_LBS" = 512 ]; then
  dd if=/dev/urandom of=/tmp/odd bs=512 count=5 2>/dev/null
  dd if=/tmp/odd of=$DEV bs=512 seek=131077 oflag=direct conv=fsync 2>/dev/null || fail "512-byte writes"
  drop_caches
  dd if=$DEV bs=512 skip=131077 count=5 iflag=direct 2>/dev/null | cmp -s - /tmp/odd ||
    fail "512-byte sectors read back differ"
  step "5 sectors of 512 bytes at sector 131077 written and read back byte for byte"
fi

mkfs.ext4 -q -F $DEV || fail "mkfs.ext4"
mount -t ext4 $DEV /mnt || fail "mount"
write_files /mnt/p1 40 /tmp/p1.log || fail "write"
remount_verify $DEV /mnt /tmp/p1.log || fail "verify after remount"
umount /mnt
stop_server
if grep -q STOPPED /tmp/ublk.log; then
  grep STOPPED /tmp/ublk.log | grep -q ' flushes=[1-9]' || fail "the kernel never sent FLUSH"
  # At least the 16 direct writes and reads above went fixed; nothing did when not registered.
  fixed=$(sed -n 's/.*STOPPED.* fixed_buffers=\([0-9]*\).*/\1/p' /tmp/ublk.log)
  if [ "$UBLK_FIXED_BUFFERS" = 1 ]; then
    [ "${fixed:-0}" -ge 32 ] || fail "only '$fixed' reads and writes went fixed"
  else
    [ "$fixed" = 0 ] || fail "'$fixed' reads and writes went fixed without registered buffers"
  fi
fi

# Restart with two queues (the guest has two CPUs); recovery below adopts them.
start_server ublk_start --queues 2 --depth 32
[ "$(ls /sys/block/ublkb0/mq | wc -l)" = 2 ] || fail "expected 2 hardware queues"
mount -t ext4 $DEV /mnt || fail "mount after restart"
verify_files /tmp/p1.log || fail "files after a clean restart"
step "40 files verified after a clean restart with 2 queues"

# A second server for the same device number is refused with a clear error.
(ublk_start) > /tmp/second.log 2>&1
rc=$?
# (tiercached refuses it even earlier: its lock on the cache device is held by the first one.)
[ "$rc" = 1 ] && grep -qE "Busy: ublk ADD_DEV: device 0 already exists|is in use by another tiercached" /tmp/second.log ||
  { cat /tmp/second.log; fail "second server on device 0: exit $rc"; }
step "second server on device 0 refused: $(cat /tmp/second.log)"

# Crash: kill -9 while a loop writes and fsyncs files; recover; every fsync'ed file is intact.
mkdir -p /mnt/crash
writer() {
  i=0
  while [ ! -e /tmp/stop-writer ]; do
    dd if=/dev/urandom of=/tmp/w.chunk bs=4096 count=16 2>/dev/null
    dd if=/tmp/w.chunk of=/mnt/crash/f$i bs=65536 conv=fsync 2>/dev/null ||
      { echo "write f$i failed" > /tmp/writer.err; return 1; }
    echo "$(sha256sum < /tmp/w.chunk | cut -d' ' -f1)  /mnt/crash/f$i" >> /tmp/fsynced.log
    i=$((i + 1))
  done
}
: > /tmp/fsynced.log
fsynced() { wc -l < /tmp/fsynced.log; }
fsynced_at_least() { [ "$(fsynced)" -ge "$1" ]; }
writer &
WRITER=$!
wait_for 600 fsynced_at_least 10 || fail "writer made no progress: $(cat /tmp/writer.err 2>/dev/null)"
kill -9 "$UBLK_PID"
wait "$UBLK_PID" 2>/dev/null
n_kill=$(fsynced)
step "server killed with SIGKILL after $n_kill fsync'ed files"
sleep 1
[ -b $DEV ] || fail "$DEV vanished with the server (no user recovery)"
n_down=$(fsynced)
[ "$n_down" -le $((n_kill + 1)) ] || fail "writes completed while no server ran"
start_server ublk_recover
wait_for 600 fsynced_at_least $((n_down + 10)) ||
  fail "writes did not resume after recovery: $(fsynced) files, $(cat /tmp/writer.err 2>/dev/null)"
touch /tmp/stop-writer
wait "$WRITER" || fail "writer: $(cat /tmp/writer.err 2>/dev/null)"
n_end=$(fsynced)
step "recovered: the writer went on from $n_down to $n_end files"
verify_files /tmp/fsynced.log || fail "fsync'ed files after recovery"
cat /tmp/p1.log /tmp/fsynced.log > /tmp/all.log
remount_verify $DEV /mnt /tmp/all.log || fail "all files after recovery and remount"
umount /mnt
e2fsck -fn $DEV >/tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck after recovery"; }
step "all $(wc -l < /tmp/all.log) files verified after remount; e2fsck clean"
stop_server

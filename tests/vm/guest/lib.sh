# Guest-side helpers, sourced by the guest test scripts (busybox sh).
. /tests/env

step() { echo "GUEST $(cut -d' ' -f1 /proc/uptime)s $*"; }
fail() { echo "GUEST FAIL: $*"; exit 1; }

# wait_for TENTHS CMD...: retries CMD every 0.1 s; fails after TENTHS tries.
wait_for() {
  n=$1; shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1; n=$((n - 1))
  done
  return 1
}

# For wait_for: the conditions are evaluated on every try.
nonzero() { [ "$(cat "$1")" != 0 ]; }
is_zero() { [ "$(cat "$1")" = 0 ]; }

# check_ring LOG: the ublk server in LOG reports the ring its queues' commands use (ring=loop or
# ring=own in ublk_test_server's READY line or tiercached's ublk_start event) as UBLK_RING says,
# and whether /dev/ublkcN and the tags' buffers are registered with that ring (fixed_file=,
# fixed_buffers=) as UBLK_FIXED_FILE and UBLK_FIXED_BUFFERS say.
check_ring() {
  for want in "ring=$UBLK_RING" "fixed_file=$UBLK_FIXED_FILE" "fixed_buffers=$UBLK_FIXED_BUFFERS"; do
    wait_for 50 grep -q "$want" "$1" || { cat "$1"; fail "the server does not report $want"; }
  done
}

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

# write_files DIR COUNT LOG [sync]: COUNT files of 4 KiB..512 KiB of random data, in two
# subdirectories; "sha256  path" lines go to LOG (checked with sha256sum -c). With "sync",
# runs sync after each file (a FLUSH-heavy pattern).
write_files() {
  dir=$1 count=$2 log=$3 mode=${4:-}
  mkdir -p "$dir/a" "$dir/b/c" || return 1
  i=0
  while [ $i -lt "$count" ]; do
    kb=$(( (i * 37 % 128 + 1) * 4 ))
    case $((i % 2)) in 0) f=$dir/a/f$i ;; *) f=$dir/b/c/f$i ;; esac
    dd if=/dev/urandom of=/tmp/chunk bs=1024 count=$kb 2>/dev/null || return 1
    cp /tmp/chunk "$f" || return 1
    echo "$(sha256sum < /tmp/chunk | cut -d' ' -f1)  $f" >> "$log"
    [ "$mode" = sync ] && sync
    i=$((i + 1))
  done
  return 0
}

verify_files() {
  sha256sum -c -s "$1" || { sha256sum -c "$1" | grep -v ': OK$' | head; return 1; }
}

# remount_verify DEV MNT LOG: unmount, drop the page cache, mount again, check every file.
remount_verify() {
  umount "$2" || return 1
  drop_caches
  blockdev --flushbufs "$1"
  mount -t ext4 "$1" "$2" || return 1
  verify_files "$3"
}

#!/usr/bin/env bash
# A real filesystem on the daemon: nbdfuse exposes the export as a file, losetup makes it a
# block device, mkfs.ext4 + mount, then a tree of ~75 MB of files (more than the 64 MiB cache)
# is copied in and checksummed. Unmount, stop the daemon (`tiercache stop`), start it again,
# mount again: every checksum matches. In wt the HDD alone holds the filesystem after the stop;
# in wb dirty lines are kept across the clean stop (counted by `tiercache check`) and the HDD
# holds the filesystem only after `tiercache flush`. Mounts, loops and nbdfuse are cleaned up
# on any exit.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires test "$(id -u)" = 0
requires nbdfuse --version
requires fusermount3 --version
requires losetup --version
requires mkfs.ext4 -V
requires test -c /dev/fuse
requires nbdsh --version
requires jq --version

cd "$TEST_TMP"
mkdir fuse mnt
LOOP=""        # the loop device currently set up by this test
FUSE_PID=""    # the nbdfuse process
MOUNTED=0

# Generated tree: 500 files from 100 B to 1 MiB (log-uniform sizes) in 25 directories, two
# 8 MiB files, a few empty files and symlinks.
python3 - tree <<'EOF'
import math, os, random, sys
root = sys.argv[1]
rnd = random.Random(20261129)
for d in range(25):
    os.makedirs(os.path.join(root, 'dir%02d' % d, 'sub'), exist_ok=True)
for i in range(500):
    size = int(math.exp(rnd.uniform(math.log(100), math.log(1 << 20))))
    sub = 'sub' if i % 3 == 0 else ''
    with open(os.path.join(root, 'dir%02d' % (i % 25), sub, 'f%03d.bin' % i), 'wb') as f:
        f.write(os.urandom(size))
for name in ('big0', 'big1'):
    with open(os.path.join(root, name), 'wb') as f:
        f.write(os.urandom(8 << 20))
for i in range(5):
    open(os.path.join(root, 'empty%d' % i), 'w').close()
    os.symlink('dir%02d/f%03d.bin' % (i, i), os.path.join(root, 'link%d' % i))
EOF

# Waits until loop device $1 has let go of its backing file (losetup -d is asynchronous).
wait_loop_detached() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ -e "/sys/block/${1#/dev/}/loop/backing_file" ] || return 0
    sleep 0.1
  done
  return 1
}

unmount_all() {
  if [ "$MOUNTED" = 1 ]; then umount mnt || umount -l mnt || true; fi
  MOUNTED=0
  if [ -n "$LOOP" ]; then
    losetup -d "$LOOP" || true
    wait_loop_detached "$LOOP" || echo "loop $LOOP still attached" >&2
  fi
  LOOP=""
  if [ -n "$FUSE_PID" ]; then
    fusermount3 -u fuse 2>/dev/null || fusermount3 -uz fuse 2>/dev/null || true
    local i
    for ((i = 0; i < 100; i++)); do
      kill -0 "$FUSE_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill "$FUSE_PID" 2>/dev/null || true
    wait "$FUSE_PID" 2>/dev/null || true
  fi
  FUSE_PID=""
}
cleanup_fn unmount_all

# nbdfuse -> loop device -> (mkfs) -> mount on mnt.
mount_export() {
  rm -f nbdfuse.pid
  nbdfuse -P nbdfuse.pid fuse/nbd "$TC_URI" &
  FUSE_PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [ -s nbdfuse.pid ] && break
    kill -0 "$FUSE_PID" 2>/dev/null || fail "nbdfuse exited"
    sleep 0.1
  done
  [ -s nbdfuse.pid ] || fail "nbdfuse did not start"
  # 4096-byte sectors: the export's minimum block size (nbdfuse passes requests as they are).
  LOOP="$(losetup -b 4096 -f --show fuse/nbd)"
  if [ "${1:-}" = mkfs ]; then mkfs.ext4 -q -F "$LOOP" || fail "mkfs.ext4"; fi
  mount -t ext4 "$LOOP" mnt || fail "mount $LOOP"
  MOUNTED=1
}

# Mounts the HDD file by itself, read-only, and checks the tree on it.
check_hdd_alone() {
  LOOP="$(losetup -r -f --show hdd.img)"
  mount -t ext4 -o ro,noload "$LOOP" mnt || fail "mount the HDD alone ($1)"
  MOUNTED=1
  (cd mnt && sha256sum -c --quiet ../sums) || fail "HDD alone does not hold the files ($1)"
  unmount_all
}

checksums() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

run_mode() {
  local mode="$1"
  rm -f ssd.img hdd.img sums
  # Every block cached and no bypass: the ~75 MB tree must overflow the 64 MiB cache, so eviction
  # runs under a real file system (adaptive admission would refuse one-time blocks once full).
  make_cache ssd.img 64M hdd.img 256M --mode "$mode" --admission always --seq-cutoff 0
  start_tiercached ssd.img
  # In wb, foreground reads keep the idle cleaner away: the lines are still dirty at the stop.
  if [ "$mode" = wb ]; then start_trickle "$TC_URI"; fi

  mount_export mkfs
  cp -a tree/. mnt/
  checksums tree >sums
  [ "$(checksums mnt)" = "$(cat sums)" ] || fail "checksums right after the copy ($mode)"
  [ "$(wc -l <sums)" = 507 ] || fail "expected 507 files, got $(wc -l <sums)"
  unmount_all
  [ "$(tc_stat errors)" = 0 ] || fail "engine errors ($mode)"
  [ "$(tc_stat evictions)" -gt 0 ] || fail "no evictions: the tree fit in the cache ($mode)"
  if [ "$mode" = wb ]; then
    local dirty
    dirty="$(tc_stat lines_dirty)"
    [ "$dirty" -gt 0 ] || fail "wb: no dirty lines before the stop"
    stop_tiercached
    wait "$TRICKLE_PID" 2>/dev/null || true
    local check
    check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check: $check"
    [ "$(jq -r .clean_shutdown <<<"$check")" = true ] || fail "wb: not marked clean: $check"
    [ "$(jq -r .lines_dirty <<<"$check")" -gt 0 ] || fail "wb: dirty lines lost at stop: $check"
    echo "wb: $dirty dirty lines before the stop, $(jq -r .lines_dirty <<<"$check") after it"
  else
    stop_tiercached
    check_hdd_alone "wt after stop"
  fi

  start_tiercached ssd.img
  [ "$(tc_cli status --json | jq -r .status.clean_shutdown_at_open)" = true ] ||
    fail "restart after a clean stop reported unclean ($mode)"
  mount_export
  (cd mnt && sha256sum -c --quiet ../sums) || fail "checksums after restart ($mode)"
  [ "$(checksums mnt)" = "$(cat sums)" ] || fail "file list after restart ($mode)"
  unmount_all
  tc_cli flush >/dev/null || fail "tiercache flush ($mode)"
  [ "$(tc_stat lines_dirty)" = 0 ] || fail "dirty lines after tiercache flush ($mode)"
  stop_tiercached
  check_hdd_alone "$mode after flush"
}

run_mode wt
run_mode wb
echo "PASS: $0"

#!/usr/bin/env bash
# Runs one real-kernel VM test: tests/vm/run-vm-test.sh nbd|ublk|fio
#   nbd   guest nbd-client -> host NBD server (tiercached in wb mode if built, else
#         nbd_test_server) over qemu guestfwd to a Unix socket
#   ublk  ublk server inside the guest on a file there: /dev/ublkb0, ext4, kill -9 + recovery
#   fio   fio 4 KiB randread (QD $FIO_IODEPTH, default 32) on /dev/ublkb0 and /dev/nbd0 vs the
#         backing file, context switches per read of the ublk server (figures); VM_STRACE=1 adds
#         its system calls per read (strace -c, in a second run)
# The build comes from $TIERCACHE_BUILD_DIR (default build/). Exit 0 PASS, 1 FAIL, 77 SKIP.
# TIERCACHE_UBLK_OWN_RING=1 gives the guest's ublk queues rings of their own (default 0: the
# event loops' rings); the guest checks the server reports that ring (UBLK_RING), and on the
# loop's ring /dev/ublkcN and the tags' buffers registered with it (fixed_file=1 fixed_buffers=1;
# TIERCACHE_NO_FIXED_BUFFERS=1, passed to the guest too, disables the buffer table).
# TIERCACHE_SUBMIT_PER_ROUND=1, passed to the guest too: one submission per loop round.
# Logs: kept in the printed work directory when the test fails.
set -euo pipefail
TEST="${1:?usage: run-vm-test.sh nbd|ublk|fio}"
source "$(dirname "$0")/vm-lib.sh"
BUILD="${TIERCACHE_BUILD_DIR:-$VM_SRC_DIR/build}"
NBD_PORT=10809
W=$(mktemp -d /tmp/tiercache-vm-"$TEST".XXXXXX)
SERVER_PID=""
RESULT=1

cleanup() {
  local rc=$?
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID"
    local i
    for ((i = 0; i < 100; i++)); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "FAIL: host NBD server did not exit after SIGTERM" >&2
      kill -9 "$SERVER_PID"
      rc=1
    elif ! wait "$SERVER_PID"; then
      echo "FAIL: host NBD server exited non-zero after SIGTERM" >&2
      rc=1
    fi
  fi
  if [ "$rc" = 0 ]; then rm -rf "$W"; else echo "logs kept in $W" >&2; fi
  exit "$rc"
}
trap cleanup EXIT

find_built() {  # find_built NAME: the executable NAME in the build tree, or nothing
  find "$BUILD" -type f -name "$1" -perm -u+x 2>/dev/null | head -1
}

# The host's NBD server: the project's daemon when it is built, else daemon/nbd's test server.
start_host_nbd_server() {
  local sock="$W/nbd.sock" tiercached tiercache
  tiercached=$(find_built tiercached)
  tiercache=$(find_built tiercache)
  if [ -n "$tiercached" ] && [ -n "$tiercache" ] && [ -z "${VM_USE_TEST_SERVER:-}" ]; then
    truncate -s 128M "$W/ssd.img"
    truncate -s 512M "$W/hdd.img"
    "$tiercache" create --cache "$W/ssd.img" --core "$W/hdd.img" --mode wb --force \
      >"$W/create.log" 2>&1 || { cat "$W/create.log"; exit 1; }
    "$tiercached" --cache "$W/ssd.img" --core "$W/hdd.img" --socket "$sock" \
      --control "$W/control.sock" --foreground >"$W/server.log" 2>&1 &
    NBD_SERVER="tiercached (wb) on $W/ssd.img + $W/hdd.img"
  else
    local srv="$BUILD/daemon/nbd/nbd_test_server"
    [ -x "$srv" ] || { echo "SKIP: neither tiercached nor $srv is built" >&2; exit 77; }
    truncate -s 256M "$W/nbd.img"
    "$srv" --socket "$sock" --file "$W/nbd.img" >"$W/server.log" 2>&1 &
    NBD_SERVER="nbd_test_server on a 256 MiB file"
  fi
  SERVER_PID=$!
  local i
  for ((i = 0; i < 100; i++)); do [ -S "$sock" ] && break; sleep 0.1; done
  [ -S "$sock" ] || { cat "$W/server.log"; echo "FAIL: no $sock" >&2; exit 1; }
  # One socat per guest connection (a chardev guestfwd would carry only one connection).
  NET_ARGS=(-netdev "user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:$NBD_PORT-cmd:socat -b 262144 STDIO UNIX-CONNECT:$sock"
            -device virtio-net-pci,netdev=n0,romfile=)
  vm_log "host NBD server: $NBD_SERVER"
}

# The guest's ublk server: tiercached --ublk when the daemon supports it, else ublk_test_server.
# The guest sources the functions below from /tests/env (exec: $! is the server's pid).
ublk_guest_env() {
  local tiercached tiercache
  tiercached=$(find_built tiercached)
  tiercache=$(find_built tiercache)
  if [ -n "$tiercached" ] && [ -n "$tiercache" ] && [ -z "${VM_USE_TEST_SERVER:-}" ] &&
     "$tiercached" --help 2>&1 | grep -q -- --ublk; then
    GUEST_BINS+=("$tiercached=/usr/local/bin/tiercached" "$tiercache=/usr/local/bin/tiercache")
    local files="--cache /data/ssd.img --core /data/hdd.img"
    # /data is tmpfs, which refuses O_DIRECT: the daemon runs --buffered.
    VM_GUEST_ENV+="
ublk_prepare() { truncate -s 128M /data/ssd.img && truncate -s 256M /data/hdd.img &&
  tiercache create $files --mode wb --force; }
ublk_start() { exec tiercached $files --buffered --ublk --ublk-id 0 --foreground \"\$@\"; }
ublk_recover() { exec tiercached $files --buffered --ublk-recover 0 --foreground; }
ublk_ready() { [ -b /dev/ublkb0 ] && timeout 2 dd if=/dev/ublkb0 of=/dev/null bs=4096 count=1; }
# io.cache.fixed_buffers + io.core.fixed_buffers: the SSD and HDD operations that went fixed.
ublk_fixed_buffers() { tiercache status --cache /data/ssd.img --json | tr -d ' \n' |
  sed -n 's/.*\"io\":{\"cache\":{[^}]*\"fixed_buffers\":\([0-9]*\)[^}]*},\"core\":{[^}]*\"fixed_buffers\":\([0-9]*\).*/\1 \2/p' |
  awk '{ print \$1 + \$2 }'; }
UBLK_BACKING=
UBLK_LBS=512
FIO_BASELINE=/data/hdd.img"
  else
    local srv="$BUILD/daemon/ublk/ublk_test_server"
    [ -x "$srv" ] || { echo "SKIP: $srv is not built" >&2; exit 77; }
    GUEST_BINS+=("$srv=/usr/local/bin/ublk_test_server")
    VM_GUEST_ENV+="
ublk_prepare() { truncate -s 256M /data/backing.img; }
ublk_start() { exec ublk_test_server --file /data/backing.img --id 0 \"\$@\"; }
ublk_recover() { exec ublk_test_server --file /data/backing.img --recover 0; }
ublk_ready() { grep -q READY /tmp/ublk.log; }
UBLK_BACKING=/data/backing.img
UBLK_LBS=4096
FIO_BASELINE=/data/backing.img"
  fi
}

vm_require_tools
vm_fetch_kernel
GUEST_BINS=()
NET_ARGS=(-nic none)
# What every start must report: the ring, and the char device and buffers registered with it
# (on the loop's ring; the buffers not with TIERCACHE_NO_FIXED_BUFFERS=1).
UBLK_RING=loop UBLK_FIXED_FILE=1 UBLK_FIXED_BUFFERS=1
[ "${TIERCACHE_NO_FIXED_BUFFERS:-0}" = 1 ] && UBLK_FIXED_BUFFERS=0
[ "${TIERCACHE_UBLK_OWN_RING:-0}" = 1 ] && UBLK_RING=own UBLK_FIXED_FILE=0 UBLK_FIXED_BUFFERS=0
VM_GUEST_ENV="NBD_ADDR=10.0.2.100
NBD_PORT=$NBD_PORT
TIERCACHE_UBLK_OWN_RING=${TIERCACHE_UBLK_OWN_RING:-0}
TIERCACHE_NO_FIXED_BUFFERS=${TIERCACHE_NO_FIXED_BUFFERS:-0}
TIERCACHE_SUBMIT_PER_ROUND=${TIERCACHE_SUBMIT_PER_ROUND:-0}
export TIERCACHE_UBLK_OWN_RING TIERCACHE_NO_FIXED_BUFFERS TIERCACHE_SUBMIT_PER_ROUND
UBLK_RING=$UBLK_RING
UBLK_FIXED_FILE=$UBLK_FIXED_FILE
UBLK_FIXED_BUFFERS=$UBLK_FIXED_BUFFERS"
case "$TEST" in
  nbd)
    start_host_nbd_server
    GUEST_BINS+=(/usr/sbin/nbd-client "$(command -v sfdisk)=/usr/sbin/sfdisk")
    VM_GUEST_ENV+="
NBD_SERVER='$NBD_SERVER'"
    ;;
  ublk)
    ublk_guest_env
    ;;
  fio)
    start_host_nbd_server
    ublk_guest_env
    GUEST_BINS+=(/usr/sbin/nbd-client /usr/bin/fio)
    if [ "${VM_STRACE:-0}" = 1 ]; then
      command -v strace >/dev/null || { echo "SKIP: VM_STRACE=1 needs strace" >&2; exit 77; }
      GUEST_BINS+=("$(command -v strace)=/usr/bin/strace")
    fi
    VM_GUEST_ENV+="
FIO_RUNTIME=${FIO_RUNTIME:-3}
FIO_IODEPTH=${FIO_IODEPTH:-32}
VM_STRACE=${VM_STRACE:-0}"
    ;;
  *) echo "unknown test $TEST" >&2; exit 2 ;;
esac
export VM_GUEST_ENV
vm_build_initramfs "$W/initrd.cpio" "$TEST" "${GUEST_BINS[@]}"
if ! vm_boot "$W/initrd.cpio" "$W/vm.log" "${NET_ARGS[@]}"; then
  vm_log "FAIL: vm-$TEST (console log: $W/vm.log)"
  exit 1
fi
# The guest's file system really is in the host's backing file.
if [ "$TEST" = nbd ] && [ -f "$W/nbd.img" ]; then
  e2fsck -fn "$W/nbd.img" >"$W/fsck.log" 2>&1 || { cat "$W/fsck.log"; vm_log "FAIL: host e2fsck"; exit 1; }
  vm_log "host: e2fsck of the backing file is clean"
fi
vm_log "PASS: vm-$TEST"

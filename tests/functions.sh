# Shared helpers for tests/e2e/test-*.sh (source it first, after `set -euo pipefail`).
#
#   requires CMD [ARGS...]   skip the test (exit 77) unless CMD ARGS runs successfully
#   start_server SOCKET CMD [ARGS...]
#                            run CMD in the background, wait until SOCKET accepts
#                            connections; sets SERVER_PID; the server is stopped by cleanup
#   stop_server PID          SIGTERM, then fail the test if it has not exited cleanly in time
#   cleanup_fn CMD [ARGS...] run CMD at exit (last registered runs first)
#   fail MESSAGE             print and exit 1
#   qemu_io URI ARGS...      run qemu-io on URI; fail on its exit status or any error/pattern
#                            mismatch in its output
#   start_trickle URI        read 4 KiB every 50 ms through URI in the background until the
#                            server goes away (keeps a cache's idle cleaner from starting);
#                            sets TRICKLE_PID
#
# The build directory comes from $TIERCACHE_BUILD_DIR (set by CTest) or defaults to build/.
# $TEST_TMP is a private scratch directory removed at exit.

# System python first: nbdsh needs the distribution's python3-libnbd, which a pyenv python
# on PATH would hide.
export PATH="/usr/bin:/bin:$PATH"

TIERCACHE_SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TIERCACHE_BUILD_DIR="${TIERCACHE_BUILD_DIR:-$TIERCACHE_SRC_DIR/build}"
NBD_TEST_SERVER="$TIERCACHE_BUILD_DIR/daemon/nbd/nbd_test_server"
# Python helpers of the e2e scripts (tests/e2e/nbd_helpers.py).
export PYTHONPATH="$TIERCACHE_SRC_DIR/tests/e2e${PYTHONPATH:+:$PYTHONPATH}"

# Seconds a server may take to exit after SIGTERM before the test fails.
SHUTDOWN_TIMEOUT="${SHUTDOWN_TIMEOUT:-30}"

TEST_TMP="$(mktemp -d /tmp/tiercache-test.XXXXXX)"
_cleanup_fns=()
_cleanup_failed=0

fail() {
  echo "FAIL: $0: $*" >&2
  exit 1
}

requires() {
  if ! "$@" >/dev/null 2>&1; then
    echo "SKIP: $0: requirement not met: $*" >&2
    exit 77
  fi
}

cleanup_fn() {
  _cleanup_fns+=("$*")
}

_run_cleanup() {
  local rc=$?
  local i
  for ((i = ${#_cleanup_fns[@]} - 1; i >= 0; i--)); do
    eval "${_cleanup_fns[$i]}" || _cleanup_failed=1
  done
  rm -rf "$TEST_TMP"
  if [ "$_cleanup_failed" -ne 0 ] && [ "$rc" -eq 0 ]; then rc=1; fi
  exit "$rc"
}
trap _run_cleanup EXIT
trap 'exit 130' INT TERM

# True when something accepts connections on the Unix socket $1.
_socket_ready() {
  python3 - "$1" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(2)
s.connect(sys.argv[1])
s.recv(1)   # the NBD greeting starts immediately
EOF
}

start_server() {
  local socket="$1"
  shift
  "$@" &
  SERVER_PID=$!
  cleanup_fn stop_server "$SERVER_PID"
  local i
  for ((i = 0; i < 300; i++)); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then fail "server exited during startup: $*"; fi
    if [ -S "$socket" ] && _socket_ready "$socket"; then return 0; fi
    sleep 0.1
  done
  fail "server did not create $socket: $*"
}

# Stops a server with SIGTERM; a hang or a non-zero exit fails the test.
stop_server() {
  local pid="$1"
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid"
  local i
  for ((i = 0; i < SHUTDOWN_TIMEOUT * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      local rc=0
      wait "$pid" || rc=$?
      if [ "$rc" -ne 0 ]; then
        echo "FAIL: $0: server $pid exited with status $rc after SIGTERM" >&2
        _cleanup_failed=1
        return 1
      fi
      return 0
    fi
    sleep 0.1
  done
  echo "FAIL: $0: server $pid still running ${SHUTDOWN_TIMEOUT}s after SIGTERM" >&2
  kill -KILL "$pid" 2>/dev/null || true
  _cleanup_failed=1
  return 1
}

# Starts nbd_test_server on $TEST_TMP/sockdir/sock with the given extra arguments and sets
# NBD_SOCKET and NBD_URI.
start_nbd_test_server() {
  requires test -x "$NBD_TEST_SERVER"
  NBD_SOCKET="$TEST_TMP/sockdir/sock"
  NBD_URI="nbd+unix:///?socket=$NBD_SOCKET"
  start_server "$NBD_SOCKET" "$NBD_TEST_SERVER" --socket "$NBD_SOCKET" "$@"
}

qemu_io() {
  local uri="$1" out
  shift
  out="$(qemu-io -f raw "$uri" "$@" 2>&1)" || { echo "$out"; fail "qemu-io $*"; }
  if grep -q "Pattern verification failed\|failed:\|error" <<<"$out"; then
    echo "$out"
    fail "qemu-io $*"
  fi
}

start_trickle() {
  nbdsh -u "$1" -c '
import time
while True:
    try:
        h.pread(4096, 0)
    except nbd.Error:
        break
    time.sleep(0.05)
' 2>/dev/null &
  TRICKLE_PID=$!
  cleanup_fn "kill $TRICKLE_PID 2>/dev/null || true"
}

# --- tiercached (tests/e2e/test-tiercached-*.sh) -----------------------------------------
#   make_cache SSD SSD_SIZE HDD HDD_SIZE [CREATE ARGS...]
#                            create both files and format SSD with `tiercache create`
#   start_tiercached SSD [ARGS...]
#                            run `tiercached --foreground` on SSD in the background, wait until
#                            its pidfile says it is ready (both sockets listen); sets TC_PID,
#                            TC_SOCKET, TC_URI, TC_CONTROL; stopped by cleanup if still running
#   stop_tiercached          `tiercache stop`, then fail unless the daemon exits with status 0
#   wait_exit_status PID     wait (bounded) for background child PID; sets EXIT_STATUS
#   tc_cli VERB [ARGS...]    `tiercache VERB --control $TC_CONTROL ARGS...`
#   tc_stat FIELD            one counter of `tiercache stats --json`
# Sockets live in $TIERCACHE_RUN_DIR, private to the test.
TIERCACHED="$TIERCACHE_BUILD_DIR/daemon/tiercached/tiercached"
TIERCACHE_CLI="$TIERCACHE_BUILD_DIR/tools/tiercache"
export TIERCACHE_RUN_DIR="$TEST_TMP/run"
TC_PID=""

make_cache() {
  local ssd="$1" ssd_size="$2" hdd="$3" hdd_size="$4"
  shift 4
  requires test -x "$TIERCACHE_CLI"
  truncate -s "$ssd_size" "$ssd"
  truncate -s "$hdd_size" "$hdd"
  "$TIERCACHE_CLI" create --cache "$ssd" --core "$hdd" "$@" >/dev/null ||
    fail "tiercache create --cache $ssd --core $hdd $*"
}

_stop_tiercached_at_exit() {
  if [ -n "$TC_PID" ]; then stop_server "$TC_PID"; fi
}
cleanup_fn _stop_tiercached_at_exit

start_tiercached() {
  requires test -x "$TIERCACHED"
  local cache="$1"
  shift
  [ -z "$TC_PID" ] || fail "start_tiercached: tiercached $TC_PID still running"
  local name
  name="$(basename "$cache")"
  TC_SOCKET="$TIERCACHE_RUN_DIR/$name.sock"
  TC_CONTROL="$TIERCACHE_RUN_DIR/$name.ctl"
  TC_URI="nbd+unix:///?socket=$TC_SOCKET"
  local pidfile="$TEST_TMP/tiercached-$name.pid"
  rm -f "$pidfile"
  # TC_WRAPPER: a command that runs the daemon in its own process (e.g. without-io-uring.py).
  ${TC_WRAPPER:-} "$TIERCACHED" --cache "$cache" --foreground --pidfile "$pidfile" "$@" &
  TC_PID=$!
  local i
  for ((i = 0; i < 300; i++)); do
    if ! kill -0 "$TC_PID" 2>/dev/null; then
      TC_PID=""
      fail "tiercached exited during startup: --cache $cache $*"
    fi
    if [ "$(cat "$pidfile" 2>/dev/null)" = "$TC_PID" ]; then return 0; fi
    sleep 0.1
  done
  fail "tiercached did not become ready: --cache $cache $*"
}

stop_tiercached() {
  [ -n "$TC_PID" ] || fail "stop_tiercached: no tiercached running"
  "$TIERCACHE_CLI" stop --control "$TC_CONTROL" >/dev/null || fail "tiercache stop failed"
  local pid="$TC_PID"
  TC_PID=""
  wait_exit_status "$pid" || fail "tiercached $pid still running after tiercache stop"
  [ "$EXIT_STATUS" -eq 0 ] || fail "tiercached exited with status $EXIT_STATUS after tiercache stop"
}

# Waits for background child PID to exit and sets EXIT_STATUS; returns 1 (after SIGKILL) if
# it is still running after SHUTDOWN_TIMEOUT seconds. Not in a subshell: `wait` needs the
# child's parent.
wait_exit_status() {
  local pid="$1" i
  EXIT_STATUS=0
  for ((i = 0; i < SHUTDOWN_TIMEOUT * 10; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid" || EXIT_STATUS=$?
      return 0
    fi
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return 1
}

# mount_tmpfs DIR SIZE: a tmpfs of SIZE at $TEST_TMP/DIR (needs root; make test runs as root).
# Its lazy unmount at exit runs before the daemon's stop (cleanups run newest first) and frees
# the mount point whatever the daemon still holds open.
mount_tmpfs() {
  [ "$(id -u)" = 0 ] || fail "needs root to mount a tmpfs (make test runs as root)"
  mkdir -p "$TEST_TMP/$1"
  mount -t tmpfs -o "size=$2" tmpfs "$TEST_TMP/$1" || fail "cannot mount a tmpfs"
  cleanup_fn "umount -l '$TEST_TMP/$1'"
}

# volume_file write|write-flush|check FILE: FILE's bytes at offset 0 of the volume at $TC_URI,
# 1 MiB per request; write-flush ends with a FLUSH; check fails naming the first MiB that differs.
volume_file() {
  WHAT="$1" FILE="$2" nbdsh -u "$TC_URI" -c "
import os
what = os.environ['WHAT']
data = open(os.environ['FILE'], 'rb').read()
for off in range(0, len(data), 1 << 20):
    if what != 'check':
        h.pwrite(data[off:off + (1 << 20)], off)
    elif h.pread(1 << 20, off) != data[off:off + (1 << 20)]:
        raise SystemExit('volume differs at %d MiB' % (off >> 20))
if what == 'write-flush':
    h.flush()
"
}

tc_cli() {
  local verb="$1"
  shift
  "$TIERCACHE_CLI" "$verb" --control "$TC_CONTROL" "$@"
}

tc_stat() {
  local out
  out="$(tc_cli stats --json)" || fail "tiercache stats --json"
  jq -er ".stats.$1" <<<"$out" || fail "no counter $1 in: $out"
}

# Runs CMD, expecting exit status STATUS and exactly MESSAGE on stderr.
expect_usage_error() {  # STATUS MESSAGE CMD...
  local status="$1" message="$2" out rc=0
  shift 2
  out="$("$@" 2>&1 >/dev/null)" || rc=$?
  [ "$rc" = "$status" ] || fail "$*: exit $rc, expected $status: $out"
  [ "$out" = "$message" ] || fail "$*: said '$out', expected '$message'"
}

# Runs CMD, expecting it to fail with PATTERN (grep) in its output.
expect_refused() {  # WHAT PATTERN CMD...: CMD fails and says PATTERN
  local what="$1" pattern="$2" out rc=0
  shift 2
  out="$("$@" 2>&1)" || rc=$?
  [ "$rc" != 0 ] || fail "$what: accepted: $out"
  grep -q -- "$pattern" <<<"$out" || fail "$what: message does not say '$pattern': $out"
}

# Asserts that jq FILTER applied to JSON gives EXPECTED.
expect_json() {  # JSON FILTER EXPECTED
  local got
  got="$(jq -c "$2" <<<"$1")" || fail "jq $2 on: $1"
  [ "$got" = "$3" ] || fail "$2 = $got, expected $3"
}

# Shared helpers for tests/e2e/test-*.sh (source it first, after `set -euo pipefail`).
#
#   requires CMD [ARGS...]   skip the test (exit 77) unless CMD ARGS runs successfully
#   start_server SOCKET CMD [ARGS...]
#                            run CMD in the background, wait until SOCKET accepts
#                            connections; sets SERVER_PID; the server is stopped by cleanup
#   stop_server PID          SIGTERM, then fail the test if it has not exited cleanly in time
#   cleanup_fn CMD [ARGS...] run CMD at exit (last registered runs first)
#   fail MESSAGE             print and exit 1
#
# The build directory comes from $TIERCACHE_BUILD_DIR (set by CTest) or defaults to build/.
# $TEST_TMP is a private scratch directory removed at exit.

# System python first: nbdsh needs the distribution's python3-libnbd, which a pyenv python
# on PATH would hide.
export PATH="/usr/bin:/bin:$PATH"

TIERCACHE_SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TIERCACHE_BUILD_DIR="${TIERCACHE_BUILD_DIR:-$TIERCACHE_SRC_DIR/build}"
NBD_TEST_SERVER="$TIERCACHE_BUILD_DIR/daemon/nbd/nbd_test_server"
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

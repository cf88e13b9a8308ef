#!/usr/bin/env bash
# sd_notify(3) readiness of tiercached (Type=notify in systemd/tiercached@.service.in): with
# $NOTIFY_SOCKET pointing at a datagram socket this test listens on, tiercached says
# STATUS=opening the cache, then READY=1 only once its NBD socket accepts (the listener connects
# and reads the NBD greeting the moment READY=1 arrives), STOPPING=1 on SIGTERM, and a STATUS=
# with the error, without READY=1, when it cannot open the cache.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdinfo --version

# Listens on the datagram socket $1 and appends each line of each message to $2; on READY=1 it
# connects to the NBD socket $3 at once and logs "greeting NBDMAGIC" (or the error).
start_notify_listener() {  # NOTIFY_SOCK LOG NBD_SOCKET
  /usr/bin/python3 - "$@" <<'PY' &
import socket, sys
notify_path, log_path, nbd_path = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(notify_path)
with open(log_path, "a", buffering=1) as log:
    log.write("listening\n")
    while True:
        lines = s.recv(4096).decode().split("\n")
        for line in lines:
            log.write(line + "\n")
        if "READY=1" in lines:
            try:
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                c.settimeout(5)
                c.connect(nbd_path)
                log.write("greeting " + c.recv(8).decode(errors="replace") + "\n")
                c.close()
            except OSError as e:
                log.write(f"greeting failed: {e}\n")
PY
  local pid=$!
  cleanup_fn "kill $pid 2>/dev/null || true"
  local i
  for ((i = 0; i < 100; i++)); do
    if grep -qx listening "$2" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  fail "notify listener did not start"
}

wait_for_line() {  # LOG REGEX (a whole line)
  local i
  for ((i = 0; i < 100; i++)); do
    if grep -qx -- "$2" "$1"; then return 0; fi
    sleep 0.1
  done
  fail "no '$2' from tiercached; got: $(cat "$1")"
}

cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M
mkdir -p "$TIERCACHE_RUN_DIR"
start_notify_listener "$TEST_TMP/notify.sock" notify.log "$TIERCACHE_RUN_DIR/ssd.img.sock"
export NOTIFY_SOCKET="$TEST_TMP/notify.sock"
start_tiercached ssd.img
unset NOTIFY_SOCKET
wait_for_line notify.log "greeting NBDMAGIC"
nbdinfo --size "$TC_URI" >/dev/null || fail "nbdinfo right after READY=1"

kill -TERM "$TC_PID"
pid="$TC_PID"
TC_PID=""
wait_exit_status "$pid" || fail "tiercached still running after SIGTERM"
[ "$EXIT_STATUS" -eq 0 ] || fail "tiercached exited with status $EXIT_STATUS after SIGTERM"
wait_for_line notify.log "STOPPING=1"
expected="listening
STATUS=opening the cache
READY=1
STATUS=serving
greeting NBDMAGIC
STOPPING=1
STATUS=stopping: closing the cache"
[ "$(cat notify.log)" = "$expected" ] || fail "notify messages: $(cat notify.log)"

# An SSD that holds no cache: the failure is the status, and READY=1 never comes.
truncate -s 64M blank.img
start_notify_listener "$TEST_TMP/notify2.sock" notify2.log "$TIERCACHE_RUN_DIR/blank.img.sock"
rc=0
NOTIFY_SOCKET="$TEST_TMP/notify2.sock" "$TIERCACHED" --cache blank.img --foreground 2>/dev/null ||
  rc=$?
[ "$rc" -eq 1 ] || fail "tiercached on a blank SSD: exit $rc, expected 1"
wait_for_line notify2.log "STATUS=tiercached: open cache: .*"
[ "$(head -2 notify2.log)" = $'listening\nSTATUS=opening the cache' ] ||
  fail "notify messages: $(cat notify2.log)"
! grep -q "READY=1" notify2.log || fail "READY=1 from a daemon that failed: $(cat notify2.log)"

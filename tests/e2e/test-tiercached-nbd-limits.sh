#!/usr/bin/env bash
# tiercached's NBD client limits: --max-connections 2 refuses the third client while the first
# two keep working, and a slot frees when one leaves; --handshake-timeout 0.5 drops a client
# that never negotiates; both flags refuse values out of range (exit 2).
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires /usr/bin/python3 -c "import nbd"

cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 64M --mode wt

for bad in "--max-connections 0" "--handshake-timeout 0" "--ssd-errors -1" "--ssd-error-window 0"; do
  rc=0
  # shellcheck disable=SC2086
  timeout 20 "$TIERCACHED" --cache ssd.img --foreground $bad 2>/dev/null || rc=$?
  [ "$rc" -eq 2 ] || fail "tiercached $bad: exit $rc, want 2"
done

start_tiercached ssd.img --max-connections 2 --handshake-timeout 0.5 2>"$TEST_TMP/daemon.log"

/usr/bin/python3 - "$TC_SOCKET" <<'EOF'
import socket, sys, time
import nbd

sock = sys.argv[1]


def connect():
    h = nbd.NBD()
    h.connect_unix(sock)
    return h


a, b = connect(), connect()
try:
    connect()
    raise AssertionError('third connection accepted with --max-connections 2')
except nbd.Error as e:
    print('third refused:', e)
a.pwrite(b'\x33' * 4096, 0)
assert b.pread(4096, 0) == b'\x33' * 4096
a.shutdown()
for attempt in range(100):
    try:
        a = connect()
        break
    except nbd.Error:
        time.sleep(0.1)
else:
    raise AssertionError('no connection accepted after one closed')

# b leaves; a client that never negotiates is dropped after 0.5 s.
b.shutdown()
for attempt in range(100):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.settimeout(60)
    if s.recv(18, socket.MSG_WAITALL)[:8] == b'NBDMAGIC':
        break
    time.sleep(0.1)
else:
    raise AssertionError('no greeting')
try:
    assert s.recv(1) == b'', 'data from a dropped connection'
except ConnectionResetError:
    pass
assert a.pread(4096, 0) == b'\x33' * 4096
a.shutdown()
EOF

stop_tiercached
grep -q 'event=nbd_connection_limit max_connections=2 ' daemon.log ||
  { cat daemon.log; fail "limit not logged"; }
grep -q 'handshake not finished within 0.5 s' daemon.log || { cat daemon.log; fail "timeout not logged"; }
echo "PASS: $0"

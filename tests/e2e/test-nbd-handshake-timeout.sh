#!/usr/bin/env bash
# Handshake timeout (1 s here): clients that connect and never finish negotiating are dropped
# (a silent socket, one stopping mid-option, libnbd left in option mode), while a client that
# reached transmission before them stays connected and keeps working. Only the drops are
# asserted, never how long they took.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires /usr/bin/python3 -c "import nbd"

log="$TEST_TMP/server.log"
start_nbd_test_server --memory 16M --threads 1 --handshake-timeout-ms 1000 2>"$log"

/usr/bin/python3 - "$NBD_SOCKET" <<'EOF'
import socket, struct, sys
import nbd

sock = sys.argv[1]


def wait_eof(s):
    """Reads until the server closes; fails (after 60 s) if it never does."""
    s.settimeout(60)
    try:
        while s.recv(65536):
            pass
    except ConnectionResetError:
        pass


good = nbd.NBD()
good.connect_unix(sock)
good.pwrite(b'\x42' * 4096, 0)

# libnbd in option mode stops after the greeting and waits for us to say go. Connected
# first: on the one loop its timer fires before the others', so once `partial` is dropped,
# so is `opt`.
opt = nbd.NBD()
opt.set_opt_mode(True)
opt.connect_unix(sock)
assert opt.aio_is_negotiating()
silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
silent.connect(sock)
assert silent.recv(18, socket.MSG_WAITALL)[:8] == b'NBDMAGIC'
partial = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
partial.connect(sock)
partial.recv(18, socket.MSG_WAITALL)
partial.sendall(struct.pack('>I', 3) + struct.pack('>Q', 0x49484156454F5054))  # half a header

wait_eof(silent)
wait_eof(partial)
try:
    opt.opt_go()
    raise AssertionError('option-mode client still negotiating after the timeout')
except nbd.Error as e:
    print('option-mode client dropped:', e)

# The transmission-phase client, connected longer than the timeout, still works.
assert good.pread(4096, 0) == b'\x42' * 4096
fresh = nbd.NBD()
fresh.connect_unix(sock)
assert fresh.pread(4096, 0) == b'\x42' * 4096
good.shutdown()
fresh.shutdown()
EOF

kill -0 "$SERVER_PID" || fail "server died"
[ "$(grep -c 'handshake not finished within 1 s' "$log")" -eq 3 ] ||
  { cat "$log"; fail "expected three handshake timeouts logged"; }
echo "PASS: $0"

#!/usr/bin/env bash
# Graceful stop on SIGTERM: with writes in flight, an idle connection, a connection still in
# the handshake and a client that never reads its replies, the server exits 0 (within the
# drain timeout), removes its socket, and every write it acknowledged is in the backing file.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version

disk="$TEST_TMP/disk.img"
truncate -s 64M "$disk"
start_nbd_test_server --file "$disk" --drain-timeout-ms 2000

python3 - "$NBD_SOCKET" "$SERVER_PID" "$TEST_TMP/acked" <<'EOF'
import nbd, socket, struct, sys
from nbd_helpers import sigterm_after_first_ack

sock, pid, acked_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
CHUNK = 256 * 1024

# A connection left in the handshake, and a transmission-phase connection that stays idle.
handshaking = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
handshaking.connect(sock)
idle = nbd.NBD()
idle.connect_unix(sock)

# A client that floods reads and never reads the replies: the server must give up on it.
greedy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
greedy.connect(sock)
greedy.recv(18, socket.MSG_WAITALL)
greedy.sendall(struct.pack('>I', 3) + struct.pack('>QII', 0x49484156454F5054, 7, 6) +
               struct.pack('>IH', 0, 0))
greedy.sendall(b''.join(struct.pack('>IHHQQI', 0x25609513, 0, 0, i, 0, 1 << 20)
                        for i in range(400)))

h = nbd.NBD()
h.connect_unix(sock)
cookies = {}
for i in range(64):
    cookies[h.aio_pwrite(bytes([i + 1]) * CHUNK, i * CHUNK)] = i

acked = sigterm_after_first_ack(h, cookies, pid)  # the rest still under way
open(acked_path, 'w').write(' '.join(map(str, acked)))
print('%d of 64 writes acknowledged' % len(acked))
EOF

stop_server "$SERVER_PID"
[ ! -e "$NBD_SOCKET" ] || fail "socket file left behind"
python3 - "$disk" "$TEST_TMP/acked" <<'EOF'
import sys
disk, acked = sys.argv[1], sys.argv[2]
CHUNK = 256 * 1024
data = open(disk, 'rb').read()
for i in map(int, open(acked).read().split()):
    assert data[i * CHUNK:(i + 1) * CHUNK] == bytes([i + 1]) * CHUNK, 'write %d lost' % i
EOF
echo "PASS: $0"

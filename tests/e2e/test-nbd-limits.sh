#!/usr/bin/env bash
# Bounded clients, with libnbd: 64 connections are served and the 65th is refused (closed at
# accept) while the first still works, logged once per episode; a slot frees when a client
# leaves. A client breaking the protocol is dropped and the others keep running. A TRIM and a
# WRITE_ZEROES of almost 4 GiB run as sequential chunks and answer once.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires /usr/bin/python3 -c "import nbd"

log="$TEST_TMP/server.log"
# One loop: the start probe's close is seen before the test's connections are counted.
start_nbd_test_server --memory 8G --threads 1 --max-connections 64 --range-chunk 64M 2>"$log"

/usr/bin/python3 - "$NBD_SOCKET" <<'EOF'
import errno, socket, struct, sys, time
import nbd

sock = sys.argv[1]
blk = lambda i: bytes([i]) * 512


def connect():
    h = nbd.NBD()
    h.connect_unix(sock)
    return h


def refused():
    h = nbd.NBD()
    try:
        h.connect_unix(sock)
    except nbd.Error as e:
        return str(e)
    raise AssertionError('a connection over the limit was accepted')


handles = [connect() for _ in range(64)]
for i, h in enumerate(handles):
    h.pwrite(blk(i + 1), i * 4096)
print('65th:', refused())
print('66th:', refused())
# Every connection still works, the first and the last included.
for i, h in enumerate(handles):
    assert h.pread(512, i * 4096) == blk(i + 1), i
handles[0].pwrite(blk(200), 0)
assert handles[63].pread(512, 0) == blk(200)

# A client leaves; its slot is free once the server has closed it.
handles.pop().shutdown()
for attempt in range(100):
    try:
        handles.append(connect())
        break
    except nbd.Error:
        time.sleep(0.1)
else:
    raise AssertionError('no connection accepted after one closed')
assert handles[-1].pread(512, 0) == blk(200)

# A client that sends a request with a bad magic is dropped; the others carry on.
handles.pop().shutdown()
for attempt in range(100):
    try:
        bad = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        bad.connect(sock)
        greeting = bad.recv(18, socket.MSG_WAITALL)
        if len(greeting) == 18:
            break
    except OSError:
        pass
    time.sleep(0.1)
assert greeting[:8] == b'NBDMAGIC', greeting
# Fixed newstyle + no zeroes, NBD_OPT_GO for "" with no info requests.
bad.sendall(struct.pack('>I', 3) + struct.pack('>QII', 0x49484156454F5054, 7, 6) +
            struct.pack('>IH', 0, 0))
bad.sendall(b'\0' * 28)
bad.settimeout(60)
rest = b''
while True:
    data = bad.recv(65536)
    if not data:
        break
    rest += data
assert rest.endswith(struct.pack('>QIII', 0x0003e889045565a9, 7, 1, 0)), rest[-20:]
for i, h in enumerate(handles):
    assert h.pread(512, 0) == blk(200), i

# Nearly 4 GiB in one TRIM and one WRITE_ZEROES: 64 chunks each, one reply.
big = (4 << 30) - 4096
h = handles[1]
h.pwrite(b'\x77' * 4096, 3 << 30)
h.trim(big, 4096)
assert h.pread(4096, 3 << 30) == bytes(4096)
h.pwrite(b'\x78' * 4096, 3 << 30)
h.zero(big, 4096, nbd.CMD_FLAG_FUA)
assert h.pread(4096, 3 << 30) == bytes(4096)
assert h.pread(4096, 4 << 30) == bytes(4096)
for h in handles:
    h.shutdown()
EOF

kill -0 "$SERVER_PID" || fail "server died"
[ "$(grep -c 'event=nbd_connection_limit max_connections=64 ' "$log")" -eq 1 ] ||
  { cat "$log"; fail "expected the limit logged once"; }
# 65th and 66th, and any retry refused while the slot was still being freed.
grep -qE 'event=nbd_connections_accepted_again refused_at_limit=([2-9]|[1-9][0-9]+)$' "$log" ||
  { cat "$log"; fail "the end of the episode not logged"; }
grep -q 'level=warn event=nbd_connection_error .*bad request magic' "$log" ||
  { cat "$log"; fail "bad magic not logged"; }
echo "PASS: $0"

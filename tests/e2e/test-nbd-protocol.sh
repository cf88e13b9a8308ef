#!/usr/bin/env bash
# Wire-level conformance with a raw-socket client (what libnbd will not send): handshake
# violations, unknown options and commands, pipelined requests answered by cookie, skipped
# payloads, disconnects on oversized writes and bad magic, and that other connections keep
# working throughout.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires python3 -c "import socket, struct"

start_nbd_test_server --memory 4M --export-name disk

python3 - "$NBD_SOCKET" <<'EOF'
import socket, struct, sys

SOCK = sys.argv[1]
OPT_MAGIC = 0x49484156454F5054
REQ_MAGIC = 0x25609513
EINVAL, ENOSPC = 22, 28
SIZE = 4 << 20

def recvn(s, n):
    buf = b''
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError('server closed after %d of %d bytes' % (len(buf), n))
        buf += chunk
    return buf

def closed(s):
    """True when the server closed the connection (EOF, nothing else pending)."""
    s.settimeout(10)
    try:
        return s.recv(1) == b''
    except ConnectionResetError:
        return True

def connect(client_flags=3):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(SOCK)
    magic, opt, hflags = struct.unpack('>QQH', recvn(s, 18))
    assert magic == 0x4e42444d41474943 and opt == OPT_MAGIC and hflags == 3, (magic, opt)
    s.sendall(struct.pack('>I', client_flags))
    return s

def send_opt(s, opt, data=b''):
    s.sendall(struct.pack('>QII', OPT_MAGIC, opt, len(data)) + data)

def recv_opt_reply(s):
    magic, opt, rtype, length = struct.unpack('>QIII', recvn(s, 20))
    assert magic == 0x3e889045565a9, hex(magic)
    return opt, rtype, recvn(s, length)

def go(s, name=b'', structured=False):
    if structured:
        send_opt(s, 8)
        assert recv_opt_reply(s)[1] == 1
    send_opt(s, 7, struct.pack('>I', len(name)) + name + struct.pack('>H', 0))
    while True:
        opt, rtype, data = recv_opt_reply(s)
        if rtype == 1:
            return
        assert rtype == 3, hex(rtype)

def request(s, cmd, cookie, offset, length, flags=0, payload=b''):
    s.sendall(struct.pack('>IHHQQI', REQ_MAGIC, flags, cmd, cookie, offset, length) + payload)

def simple_reply(s, data_len=0):
    magic, err, cookie = struct.unpack('>IIQ', recvn(s, 16))
    assert magic == 0x67446698, hex(magic)
    data = recvn(s, data_len) if err == 0 and data_len else b''
    return err, cookie, data

# --- handshake ---------------------------------------------------------------------------
# Unknown option: NBD_REP_ERR_UNSUP, and the next option is still parsed.
s = connect()
send_opt(s, 42, b'junk')
assert recv_opt_reply(s) == (42, 0x80000001, b'unsupported option 42')
go(s)
request(s, 0, 1, 0, 512)
assert simple_reply(s, 512) == (0, 1, bytes(512))
s.close()

# Option data above 64 KiB: disconnect without waiting for the data.
s = connect()
s.sendall(struct.pack('>QII', OPT_MAGIC, 7, 64 * 1024 + 1))
assert closed(s), 'oversized option not refused'

# Export name longer than 4096 bytes: disconnect.
s = connect()
send_opt(s, 7, struct.pack('>I', 4097) + b'a' * 4097 + struct.pack('>H', 0))
assert closed(s), 'long export name not refused'

# Unknown client flags: disconnect.
s = connect(client_flags=1 << 7)
assert closed(s), 'unknown client flags accepted'

# NBD_OPT_ABORT: acknowledged, then closed.
s = connect()
send_opt(s, 2)
assert recv_opt_reply(s)[1] == 1
assert closed(s)

# NBD_OPT_EXPORT_NAME: size, flags, and the 124 zero bytes unless NO_ZEROES was negotiated.
s = connect(client_flags=1)
send_opt(s, 1, b'disk')
size, flags = struct.unpack('>QH', recvn(s, 10))
assert size == SIZE and flags & 1, (size, flags)
assert recvn(s, 124) == bytes(124)
s.close()
s = connect()
send_opt(s, 1, b'')
size, flags = struct.unpack('>QH', recvn(s, 10))
request(s, 3, 77, 0, 0)          # FLUSH: the next bytes are its reply, not zero padding
assert simple_reply(s) == (0, 77, b'')
s.close()
s = connect()
send_opt(s, 1, b'other')
assert closed(s), 'unknown export name accepted'

# --- transmission ------------------------------------------------------------------------
bystander = connect()
go(bystander, b'disk')

def bystander_works():
    request(bystander, 1, 900, 8192, 512, payload=b'\x77' * 512)
    assert simple_reply(bystander) == (0, 900, b'')
    request(bystander, 0, 901, 8192, 512)
    assert simple_reply(bystander, 512) == (0, 901, b'\x77' * 512)

s = connect()
go(s)
# Unknown command and FLUSH with a nonzero offset: EINVAL, connection alive.
request(s, 42, 5, 0, 512)
assert simple_reply(s) == (EINVAL, 5, b'')
request(s, 3, 6, 512, 0)
assert simple_reply(s) == (EINVAL, 6, b'')
# A rejected write's payload is skipped, not parsed as requests.
request(s, 1, 7, 100, 512, payload=struct.pack('>IHHQQI', REQ_MAGIC, 0, 2, 0, 0, 0) * 18
        + b'\0' * 8)
assert simple_reply(s) == (EINVAL, 7, b'')
request(s, 1, 8, SIZE, 1024, payload=b'\1' * 1024)
assert simple_reply(s) == (ENOSPC, 8, b'')

# Pipelining: 64 writes then 64 reads sent in one go; each cookie answered exactly once.
batch = b''
for i in range(64):
    batch += struct.pack('>IHHQQI', REQ_MAGIC, 0, 1, 1000 + i, i * 4096, 4096)
    batch += bytes([i]) * 4096
s.sendall(batch)
seen = set()
for _ in range(64):
    err, cookie, _ = simple_reply(s)
    assert err == 0 and 1000 <= cookie < 1064 and cookie not in seen, (err, cookie)
    seen.add(cookie)
batch = b''.join(struct.pack('>IHHQQI', REQ_MAGIC, 0, 0, 2000 + i, i * 4096, 4096)
                 for i in range(64))
s.sendall(batch)
for _ in range(64):
    err, cookie, data = simple_reply(s, 4096)
    assert err == 0 and data == bytes([cookie - 2000]) * 4096, (err, cookie)

# WRITE above 32 MiB: earlier requests are answered, then the server disconnects without
# reading the payload; other connections are unaffected.
request(s, 1, 10, 0, 512, payload=b'\x42' * 512)
request(s, 1, 11, 0, (32 << 20) + 512)
assert simple_reply(s) == (0, 10, b'')
assert closed(s), 'oversized write not refused'
bystander_works()

# Bad request magic: disconnect after answering what came before.
s = connect()
go(s)
request(s, 0, 12, 0, 512)
s.sendall(struct.pack('>IHHQQI', 0x12345678, 0, 0, 13, 0, 512))
assert simple_reply(s, 512) == (0, 12, b'\x42' * 512)
assert closed(s), 'bad magic not refused'
bystander_works()

# DISC right behind a write: the write completes and is answered before the close.
s = connect()
go(s)
request(s, 1, 14, 16384, 512, payload=b'\x99' * 512)
request(s, 2, 15, 0, 0)
assert simple_reply(s) == (0, 14, b'')
assert closed(s)
request(bystander, 0, 16, 16384, 512)
assert simple_reply(bystander, 512) == (0, 16, b'\x99' * 512)

# Structured replies: a read is one OFFSET_DATA chunk flagged DONE; errors carry a message.
s = connect()
go(s, structured=True)
request(s, 0, 17, 16384, 512, flags=1 << 2)  # DF
magic, flags, rtype, cookie, length = struct.unpack('>IHHQI', recvn(s, 20))
assert (magic, flags, rtype, cookie, length) == (0x668e33ef, 1, 1, 17, 520)
offset = struct.unpack('>Q', recvn(s, 8))[0]
assert offset == 16384 and recvn(s, 512) == b'\x99' * 512
request(s, 0, 18, SIZE, 512)
magic, flags, rtype, cookie, length = struct.unpack('>IHHQI', recvn(s, 20))
assert (flags, rtype, cookie) == (1, 0x8001, 18), (flags, rtype, cookie)
err, msglen = struct.unpack('>IH', recvn(s, 6))
assert err == EINVAL and msglen == length - 6
recvn(s, msglen)
s.close()
bystander_works()
bystander.close()
print('raw protocol checks passed')
EOF
echo "PASS: $0"

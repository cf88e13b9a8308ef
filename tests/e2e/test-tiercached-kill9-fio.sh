#!/usr/bin/env bash
# kill -9 of tiercached under load keeps everything acknowledged and flushed, in wb and wt (and,
# with --commit-acks, everything acknowledged). Per mode: fio writes region A (4 KiB and 512-byte
# random writes with crc32c verification headers) and flushes; then fio writes region B (with
# --commit-acks saving its verify state, fio's verify-after-crash workflow) while a libnbd writer
# drives region C (512-byte-sector requests, 16 in flight, a FLUSH every 32 writes) and kills the
# daemon with SIGKILL once it has submitted 12 MiB: a point defined by progress, with requests in
# flight. After a restart, fio --verify_only checks region A (and region B up to fio's last
# completed write with --commit-acks), and every sector of region C must hold its last flushed
# write (with --commit-acks: its last acknowledged write) or a later one.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires fio --enghelp=nbd
requires nbdsh --version
requires jq --version

cd "$TEST_TMP"

fio_region_a() {  # the same jobs write, and later verify, region A: [0, 28 MiB)
  fio --output="$TEST_TMP/fio-a.out" --ioengine=nbd --uri="$TC_URI" --iodepth=16 \
      --verify=crc32c --verify_fatal=1 --randseed=1234 --group_reporting "$@" \
      --name=a4k --rw=randwrite --bs=4k --offset=0 --size=24M \
      --name=a512 --rw=randwrite --bs=512 --offset=24M --size=4M ||
    { cat "$TEST_TMP/fio-a.out"; fail "fio region A $*"; }
  grep -q "err= 0" "$TEST_TMP/fio-a.out" || { cat "$TEST_TMP/fio-a.out"; fail "fio errors: $*"; }
}

# Region C: [64 MiB, 96 MiB). Writes, flushes, SIGKILL after 12 MiB, and what each 512-byte
# sector may hold afterwards (its last flushed write or a later one) into the file $3.
kill_during_writes() {
  python3 - "$TC_SOCKET" "$TC_PID" "$1" "$2" <<'EOF'
import json, os, random, signal, sys
import nbd
sock, pid, state, durable_acks = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == '1'
BASE, S, N, KILL_AFTER = 64 << 20, 512, (32 << 20) // 512, 12 << 20
rng = random.Random(7)
entries = [[0] for _ in range(N)]  # write ids that may be in the sector; 0: never written
acked, durable = [0] * N, [0] * N

def data(wid, s, n):
    return b''.join(((wid << 32) | (s + i)).to_bytes(8, 'little') * 64 for i in range(n))

def make_durable(s, wid):
    durable[s] = max(durable[s], wid)

h = nbd.NBD()
h.connect_unix(sock)
pending, wid, submitted, since_flush, flushes, killed = {}, 0, 0, 0, 0, False
while True:
    while not killed and len(pending) < 16:
        if since_flush == 32:
            pending[h.aio_flush()] = ('flush', acked[:])
            since_flush = 0
            continue
        n = rng.choice([1, 3, 7, 8, 8, 16, 24, 64])
        s = rng.randrange(0, N - n + 1)
        if n % 8 == 0:
            s -= s % 8
        wid += 1
        for i in range(s, s + n):
            entries[i].append(wid)
        pending[h.aio_pwrite(data(wid, s, n), BASE + s * S)] = ('write', wid, s, n)
        submitted += n * S
        since_flush += 1
        if submitted >= KILL_AFTER:
            os.kill(pid, signal.SIGKILL)  # with up to 16 requests in flight
            killed = True
    if not pending or h.aio_is_dead() or h.aio_is_closed():
        break
    try:
        h.poll(-1)
    except nbd.Error:
        break
    for cookie in list(pending):
        try:
            if not h.aio_command_completed(cookie):
                continue
        except nbd.Error:
            pending.pop(cookie)  # failed: promises nothing
            continue
        op = pending.pop(cookie)
        if op[0] == 'flush':  # a reply received is a promise kept, even after the kill
            flushes += 1
            for i, w in enumerate(op[1]):
                make_durable(i, w)
        else:
            for i in range(op[2], op[2] + op[3]):
                acked[i] = max(acked[i], op[1])
                if durable_acks:
                    make_durable(i, op[1])
assert killed, 'the writer never reached the kill point'
assert flushes > 0, 'no FLUSH completed before the kill'
allowed = [[w for w in entries[i] if w >= durable[i]] for i in range(N)]
json.dump(allowed, open(state, 'w'))
print('killed after %d writes, %d flushes acknowledged' % (wid, flushes))
EOF
}

check_region_c() {
  python3 - "$TC_SOCKET" "$1" <<'EOF'
import json, sys
import nbd
sock, state = sys.argv[1], sys.argv[2]
BASE, S = 64 << 20, 512
allowed = json.load(open(state))
h = nbd.NBD()
h.connect_unix(sock)
bad = []
for chunk in range(0, len(allowed) * S, 1 << 20):
    buf = h.pread(1 << 20, BASE + chunk)
    for off in range(0, 1 << 20, S):
        s, sector = (chunk + off) // S, buf[off:off + S]
        word = int.from_bytes(sector[:8], 'little')
        if sector != sector[:8] * 64 or (word and (word & 0xffffffff) != s):
            wid = 'garbage'
        else:
            wid = word >> 32
        if wid not in allowed[s]:
            bad.append('sector %d holds write %s, allowed %s' % (s, wid, allowed[s][:8]))
assert not bad, '%d sectors lost flushed data: %s' % (len(bad), '; '.join(bad[:5]))
print('region C: %d sectors hold flushed data or newer' % len(allowed))
EOF
}

run_mode() {  # MODE [tiercached flags...]
  local mode="$1" durable_acks=0
  shift
  [ "$*" != --commit-acks ] || durable_acks=1
  rm -f ssd.img hdd.img
  make_cache ssd.img 64M hdd.img 256M --mode "$mode"
  start_tiercached ssd.img "$@"

  fio_region_a --do_verify=0
  nbdsh -u "$TC_URI" -c "h.flush()"

  # Region B: [32 MiB, 64 MiB), fio under way when the daemon dies (it fails then, as it must).
  # With --commit-acks every completed write must survive: one at a time (fio's saved verify
  # state counts completions in issue order), checked after the restart from that state.
  # Otherwise an unverified load with a FLUSH every 16 writes.
  rm -f local-b-0-verify.state
  local fio_b=(--ioengine=nbd --uri="$TC_URI" --name=b --rw=randwrite --bs=4k --offset=32M
               --size=32M --verify=crc32c --randseed=99)
  if [ "$durable_acks" = 1 ]; then
    fio_b+=(--iodepth=1)
  else
    fio_b+=(--iodepth=8 --fsync=16)
  fi
  local writes0
  writes0=$(($(tc_stat write_hits) + $(tc_stat write_misses)))
  timeout 120 fio --output="$TEST_TMP/fio-b.out" "${fio_b[@]}" --do_verify=0 \
      --verify_state_save="$durable_acks" >/dev/null 2>&1 &
  local fio_pid=$! i
  # The kill point is defined by progress: region B's writer has written 1 MiB.
  for ((i = 0; i < 600; i++)); do
    (($(tc_stat write_hits) + $(tc_stat write_misses) - writes0 >= 256)) && break
    sleep 0.1
  done
  ((i < 600)) || fail "$mode: fio wrote nothing to region B"
  kill_during_writes "state-$mode.json" "$durable_acks" || fail "$mode: writer"
  wait_exit_status "$TC_PID" || true
  TC_PID=""
  wait "$fio_pid" || true

  local check
  check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "$mode: check after kill: $check"
  [ "$(jq -r .clean_shutdown <<<"$check")" = false ] || fail "$mode: clean after kill -9: $check"
  start_tiercached ssd.img "$@"
  fio_region_a --verify_only
  if [ "$durable_acks" = 1 ]; then
    [ -s local-b-0-verify.state ] || fail "$mode: fio saved no verify state"
    fio --output="$TEST_TMP/fio-b.out" "${fio_b[@]}" --verify_only --verify_state_load=1 \
        --verify_fatal=1 || { cat "$TEST_TMP/fio-b.out"; fail "$mode $*: acknowledged writes lost"; }
    grep -E "READ:" "$TEST_TMP/fio-b.out" || fail "$mode: region B not verified"
  fi
  check_region_c "state-$mode.json" || fail "$mode $*: flushed data lost in region C"
  stop_tiercached
  echo "ok: $mode $*"
}

run_mode wb
run_mode wt
run_mode wb --commit-acks
echo "PASS: $0"

#!/usr/bin/env bash
# A write-back cache whose core runs out of space (the core file on a 24 MiB tmpfs, 8 MiB of it
# free): nothing is lost and the daemon says why. 16 MiB of writes are acknowledged from the SSD;
# the cleaner's core writes fail with ENOSPC and are tried again; `tiercache status` shows the
# error and an unknown flush ETA; `stats` counts the failed writes and no bytes for them; the log
# has one cleaning_error for the whole streak; `tiercache flush` fails with the core's error; the
# volume reads back byte for byte, also after a restart. Once space is freed the cleaner finishes
# by itself (cleaning_recovered) and the core file holds every byte. Then, in write-through, a
# write to the full core fails with ENOSPC and its range reads as the core holds it.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version

cd "$TEST_TMP"
mount_tmpfs corefs 24M
truncate -s 64M corefs/hdd.img
head -c 16M /dev/zero >corefs/filler
head -c 16M /dev/urandom >data.bin
make_cache ssd.img 64M corefs/hdd.img 64M --mode wb --admission always --seq-cutoff 0
# Cleaning starts 0.2 s after the writes and is tried again every 0.2 s while it fails.
start_tiercached "$TEST_TMP/ssd.img" --core "$TEST_TMP/corefs/hdd.img" --idle-after 0.2 2>d.log

cleaning() { tc_cli status --json | jq -r ".status.cleaning.$1"; }
# wait_for SECONDS CONDITION...: polls every 0.1 s.
wait_for() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    if eval "$2"; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for: $2"
}

volume_file write-flush data.bin || fail "writes into write-back failed"
# The cleaner fills the core's 8 MiB, then its batch fails (status says why once the batch is
# over), and it tries again.
wait_for 60 '[[ "$(cleaning last_error)" == *"No space left on device"* ]]'
failed="$(tc_stat cleaner_write_errors)"
[ "$failed" -ge 1 ] || fail "cleaner_write_errors $failed"
wait_for 60 '[ "$(tc_stat cleaner_write_errors)" -gt "$failed" ]'
line="$(tc_cli status | grep '^cleaning:')"
[[ "$line" == *"flush ETA unknown (last: error: "*"No space left on device"* ]] ||
  fail "status line: $line"
[ "$(cleaning flush_eta_ms)" = -1 ] || fail "flush ETA while failing: $(cleaning flush_eta_ms)"
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "no dirty line left on a full core"
# Only completed writes count as written, and they fit in the 8 MiB the core had.
[ "$(tc_stat bytes_written_core)" -le $((8 << 20)) ] ||
  fail "bytes_written_core $(tc_stat bytes_written_core) counts failed writes"
[ "$(grep -c 'event=cleaning_error' d.log)" = 1 ] ||
  fail "cleaning_error lines: $(grep -c 'event=cleaning_error' d.log) (one per streak)"
grep 'event=cleaning_error' d.log | grep -q 'No space left on device' ||
  fail "cleaning_error without the reason: $(grep cleaning_error d.log)"
if out="$(tc_cli flush 2>&1)"; then fail "tiercache flush succeeded on a full core"; fi
[[ "$out" == *"No space left on device"* ]] || fail "tiercache flush said: $out"
volume_file check data.bin || fail "the volume lost data while the core was full"

# A restart keeps the dirty data (it is on the SSD and in its records).
stop_tiercached
start_tiercached "$TEST_TMP/ssd.img" --core "$TEST_TMP/corefs/hdd.img" --idle-after 0.2 2>>d.log
volume_file check data.bin || fail "the volume lost data across a restart with a full core"
wait_for 60 '[ "$(grep -c event=cleaning_error d.log)" = 2 ]'  # its cleaner meets the full core

# Space comes back: the cleaner finishes on its own.
rm corefs/filler
wait_for 60 '[ "$(tc_stat lines_dirty)" = 0 ]'
wait_for 60 'grep -q event=cleaning_recovered d.log'  # logged once the batch's records persist
[ "$(cleaning last_error)" = "" ] || fail "last_error after recovery: $(cleaning last_error)"
tc_cli flush >/dev/null || fail "tiercache flush after recovery"
cmp -n $((16 << 20)) data.bin corefs/hdd.img || fail "the core does not hold the data"
volume_file check data.bin || fail "the volume differs after cleaning"

# Write-through on a full core: the client gets ENOSPC, and the range then reads as the core
# holds it (the cache keeps no copy the core does not have).
tc_cli mode wt >/dev/null || fail "tiercache mode wt"
head -c 24M /dev/zero >corefs/filler 2>/dev/null || true  # fills what is left
nbdsh -u "$TC_URI" -c "
try:
    h.pwrite(b'\x5a' * (1 << 20), 32 << 20)
    raise SystemExit('a write-through write to a full core succeeded')
except nbd.Error as e:
    assert 'ENOSPC' in str(e), e
core = open('corefs/hdd.img', 'rb')
core.seek(32 << 20)
want = core.read(1 << 20)
assert h.pread(1 << 20, 32 << 20) == want and h.pread(1 << 20, 32 << 20) == want
" || fail "write-through on a full core"
stop_tiercached
echo "PASS: $0"

#!/usr/bin/env bash
# Warm after a crash (docs/io-paths.md "Warm after a crash"): after kill -9 of tiercached, the
# lines a trust round covered are still cached, without any FLUSH from the client. wt: 4096
# blocks read into the cache, wait until no line is untrusted (`lines_untrusted` 0: the daemon's
# trust round ran: --trust-interval 1 here), kill -9, restart: all 4096 re-reads hit and match the HDD. wb: 1024
# written (dirty, then FLUSHed: unflushed writes may be lost) + 1024 read (clean) blocks, same
# wait, kill -9, restart: 2048 of 2048 re-reads hit, with the written data. Then a write-through
# rewrite of 1024 of the warm blocks and kill -9 at once: they come back with the new data, never
# the old cached copy (hit or miss depends on whether a trust round ran before the kill; the
# power-cut case is cache_test's PowerCutAfterAWriteOverATrustedLineNeverServesTheOldCopy).
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version

cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wt --admission always --seq-cutoff 0
head -c $((48 << 20)) /dev/urandom > core.bin
dd if=core.bin of=hdd.img conv=notrunc status=none

# Waits until `tc_stat $1` is $2 (a read's fill runs after its reply), then until every line is
# trusted (a trust round, within tiercached's --trust-interval, made its clean copies crash-safe).
settle() {
  wait_stat "$1" "$2"
  wait_stat lines_untrusted 0
}

wait_stat() {
  local i
  for ((i = 0; i < 300; i++)); do
    [ "$(tc_stat "$1")" = "$2" ] && return 0
    sleep 0.1
  done
  fail "$1 never reached $2: $(tc_cli stats --json)"
}

kill9() {
  kill -KILL "$TC_PID"
  wait_exit_status "$TC_PID" || true
  TC_PID=""
}

# Reads the blocks listed in $2 (a Python expression) and checks them against core.bin/new.bin.
read_blocks() {
  nbdsh -u "$TC_URI" -c "
core = open('core.bin', 'rb').read()
new = open('new.bin', 'rb').read() if $3 else b''
for i, b in enumerate($2):
    want = new[i * 4096:(i + 1) * 4096] if $3 and i < 1024 else core[b * 4096:(b + 1) * 4096]
    assert h.pread(4096, b * 4096) == want, 'block %d' % b
$1
"
}

# --- write-through --------------------------------------------------------------------------
start_tiercached ssd.img --trust-interval 1
BLOCKS="sorted(range(8192), key=lambda b: (b * 2654435761) % 8192)[:4096]"
read_blocks "" "$BLOCKS" False
[ "$(tc_stat read_misses)" = 4096 ] || fail "wt: first pass not 4096 misses: $(tc_cli stats --json)"
settle lines_used 4096
kill9
start_tiercached ssd.img --trust-interval 1
[ "$(tc_stat lines_used)" = 4096 ] || fail "wt: cache not warm after kill -9: $(tc_cli stats --json)"
read_blocks "" "$BLOCKS" False
[ "$(tc_stat read_hits)" = 4096 ] || fail "wt: re-reads after kill -9: $(tc_cli stats --json)"
[ "$(tc_stat read_misses)" = 0 ] || fail "wt: misses after kill -9: $(tc_cli stats --json)"
echo "wt: 4096 of 4096 re-reads hit after kill -9"

# --- write-back -----------------------------------------------------------------------------
tc_cli mode wb >/dev/null
head -c $((4 << 20)) /dev/urandom > new.bin
WB_BLOCKS="[8192 + i for i in range(0, 2048, 2)] + [8193 + i for i in range(0, 2048, 2)]"
nbdsh -u "$TC_URI" -c "
new = open('new.bin', 'rb').read()
core = open('core.bin', 'rb').read()
blocks = $WB_BLOCKS
for i, b in enumerate(blocks[:1024]):
    h.pwrite(new[i * 4096:(i + 1) * 4096], b * 4096)
for b in blocks[1024:]:
    assert h.pread(4096, b * 4096) == core[b * 4096:(b + 1) * 4096]
"
nbdsh -u "$TC_URI" -c "h.flush()"
settle lines_used $((4096 + 2048))
dirty="$(tc_stat lines_dirty)"
kill9
start_tiercached ssd.img --trust-interval 1
hits0="$(tc_stat read_hits)"
read_blocks "" "$WB_BLOCKS" True
[ "$(tc_stat read_hits)" = 2048 ] || fail "wb: re-reads after kill -9: $(tc_cli stats --json)"
[ "$(tc_stat read_misses)" = 0 ] || fail "wb: misses after kill -9: $(tc_cli stats --json)"
echo "wb: 2048 of 2048 re-reads hit after kill -9 ($dirty dirty lines before the kill)"

# --- a rewrite, then kill -9 before any trust round ----------------------------------------
tc_cli mode wt >/dev/null
head -c $((4 << 20)) /dev/urandom > new.bin
REWRITE="sorted(range(8192), key=lambda b: (b * 2654435761) % 8192)[:1024]"
nbdsh -u "$TC_URI" -c "
new = open('new.bin', 'rb').read()
for i, b in enumerate($REWRITE):
    h.pwrite(new[i * 4096:(i + 1) * 4096], b * 4096)
"
kill9
start_tiercached ssd.img --trust-interval 1
read_blocks "" "$REWRITE" True
echo "rewrite: 1024 rewritten blocks came back with the new data after kill -9"
stop_tiercached
echo "PASS: $0"

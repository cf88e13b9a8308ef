#!/usr/bin/env bash
# Policies end to end: `tiercache create` records --admission, --replacement and --seq-cutoff;
# tiercached runs them, `tiercache status` reports them and `tiercache stats` counts what they
# did (exact values for a known request sequence: a 4 MiB sequential read in 1 MiB requests at a
# 1 MiB cutoff, then 4 KiB re-reads); `tiercache check` shows what was recorded; tiercached's own
# flags override it for one run only; unknown names are usage errors of create and tiercached.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version

K=4096
M=$((1 << 20))

cd "$TEST_TMP"

# Reads LENGTH bytes at each OFFSET through the daemon's NBD socket, one request each, in order.
read_each() {  # LENGTH OFFSET...
  local length="$1"
  shift
  nbdsh -u "$TC_URI" -c "
for offset in [$(IFS=,; echo "$*")]:
    h.pread($length, offset)
" || fail "nbdsh reads of $length bytes at $*"
}

# Writes LENGTH zero bytes at each OFFSET, one request each, in order.
write_each() {  # LENGTH OFFSET...
  local length="$1"
  shift
  nbdsh -u "$TC_URI" -c "
for offset in [$(IFS=,; echo "$*")]:
    h.pwrite(bytearray($length), offset)
" || fail "nbdsh writes of $length bytes at $*"
}

# --- unknown names are usage errors -----------------------------------------------------
truncate -s 64M ssd.img
truncate -s 256M hdd.img
names="lru, clock, s3fifo, sieve, epoch-lru"
expect_usage_error 2 \
    "tiercache create: --replacement: unknown replacement policy 'nope' ($names)" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --replacement nope
expect_usage_error 2 "tiercache create: --admission: unknown admission policy 'nope' (always, nhit, adaptive)" \
    "$TIERCACHE_CLI" create --cache ssd.img --core hdd.img --admission nope

make_cache ssd.img 64M hdd.img 256M --admission always --replacement lru --seq-cutoff 1M
requires test -x "$TIERCACHED"
expect_usage_error 2 \
    "tiercached: --replacement: unknown replacement policy 'nope' ($names)
Run tiercached --help for usage." \
    "$TIERCACHED" --cache ssd.img --foreground --replacement nope
expect_usage_error 2 \
    "tiercached: --seq-cutoff: read_cutoff_bytes must be a multiple of 4096 and >= 4096
Run tiercached --help for usage." \
    "$TIERCACHED" --cache ssd.img --foreground --seq-cutoff 5000

# --- the recorded policies run -----------------------------------------------------------
start_tiercached ssd.img
status="$(tc_cli status --json)" || fail "tiercache status --json"
expect_json "$status" .status.policies.admission '"always"'
expect_json "$status" .status.policies.replacement '"lru"'
expect_json "$status" .status.policies.sequential \
    '{"enabled":true,"read_cutoff_bytes":1048576,"write_cutoff_bytes":1048576,"streams":64}'
lines="$(jq .status.line_count <<<"$status")"
index="$(jq .status.policies.index_bytes <<<"$status")"
# The line index and policies take RAM, but well under 32 bytes per 4 KiB line.
[ "$index" -gt 0 ] && [ "$index" -lt $((32 * lines)) ] ||
    fail "index_bytes $index for $lines lines"
tc_cli status | grep -qx "policies:   admission always, replacement lru, sequential cutoff 1 MiB, index .* of RAM" ||
    fail "no policies line in: $(tc_cli status)"

# A sequential read of 4 MiB in 1 MiB requests: the first request brings its stream to the
# cutoff; the other three are past it, and cached too, since the fresh cache has room (a read
# stream is bypassed only when it would push cached data out). All four miss: 1024 lines.
read_each $M 0 $M $((2 * M)) $((3 * M))
# Blocks (K is 4 KiB) at 1 MiB + 384 KiB, 2 MiB + 8 KiB and 3 MiB + 512 KiB.
cold="$((M + 96 * K)) $((2 * M + 2 * K)) $((3 * M + 128 * K))"
# A read fills the cache after its reply, under the line's shared lock; a write to the line waits
# for that lock. Writing the first MiB and three blocks of the rest (write hits, each a new write
# stream) makes the re-reads below hits however slow the fills are.
write_each $M 0
# shellcheck disable=SC2086
write_each $K $cold
# A sequential write of 4 MiB in 1 MiB requests at 16 MiB: the first is a write miss (cached,
# 256 lines); the other three bypass the cache, room or not.
write_each $M $((16 * M)) $((17 * M)) $((18 * M)) $((19 * M))
# 4 KiB re-reads: three in the first MiB, the three blocks, one of the cached write: hits. Then
# one in a bypassed write: a miss, the start of a new stream, so it is cached.
# shellcheck disable=SC2086
read_each $K $((3 * K)) $((100 * K)) $((255 * K)) $cold $((16 * M + 2 * K))
read_each $K $((17 * M + 2 * K))

stats="$(tc_cli stats --json)" || fail "tiercache stats --json"
expect_json "$stats" '.stats | [.read_hits, .read_partial_hits, .read_misses, .read_bypasses]' \
    '[7,0,5,0]'
expect_json "$stats" '.stats | [.read_hit_bytes, .read_miss_bytes]' \
    "[$((7 * K)),$((4 * M + K))]"
expect_json "$stats" '.stats | [.write_hits, .write_misses, .write_bypasses]' '[4,1,3]'
expect_json "$stats" '.stats | [.write_hit_bytes, .write_miss_bytes]' \
    "[$((M + 3 * K)),$((4 * M))]"
# SSD writes: the fills (4 MiB + 1 block) and the cached writes (1 MiB + 3 blocks, and 1 MiB);
# wt writes the core too.
expect_json "$stats" '.stats | [.bytes_read_ssd, .bytes_written_ssd]' \
    "[$((7 * K)),$((6 * M + 4 * K))]"
expect_json "$stats" '.stats | [.bytes_read_core, .bytes_written_core]' \
    "[$((4 * M + K)),$((5 * M + 3 * K))]"
expect_json "$stats" '.stats | [.lines_used, .evictions, .errors]' '[1281,0,0]'
# wt: nothing dirty, so the cleaner never had to decide anything.
expect_json "$(tc_cli status --json)" '.status.cleaning | [.policy, .dirty_bytes, .flush_eta_ms]' \
    '["target",0,0]'
# Streams: 1 + 6 + 1 + 1 reads, 1 + 3 + 1 writes.
expect_json "$stats" .stats.policy_counters \
    '{"admission":{"admitted":1281,"refused":0},"replacement":{},"sequential":{"bypassed_read_bytes":0,"bypassed_write_bytes":3145728,"bypassed_read_requests":0,"bypassed_write_requests":3,"repeated_read_bytes":0,"repeated_read_requests":0,"room_read_bytes":3145728,"room_read_requests":3,"streams_tracked":14},"cleaning":{"cleaning_batches_drain":0,"cleaning_batches_age":0,"cleaning_batches_high":0,"cleaning_batches_idle":0,"cleaning_batches_ratio":0,"cleaning_waits":0}}'
human="$(tc_cli stats)" || fail "tiercache stats"
for line in "byte hits:  28 KiB of 4.0 MiB read (0.7%), 1.0 MiB of 5.0 MiB written (20.2%)" \
            "admission:  1281 admitted, 0 refused" \
            "replacement: no counters" \
            "sequential: bypassed 0 B read (0 requests), 3 MiB written (3 requests); reads past the cutoff cached: 0 B read again (0 requests), 3 MiB while the cache had room (3 requests); 14 streams tracked"; do
  grep -qxF "$line" <<<"$human" || fail "no line '$line' in: $human"
done
stop_tiercached

# check shows what create recorded.
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check"
expect_json "$check" .policies \
    '{"admission":"always","replacement":"lru","sequential":{"enabled":true,"read_cutoff_bytes":1048576,"write_cutoff_bytes":1048576,"streams":64}}'

# --- tiercached flags override the recorded policies for one run -------------------------
start_tiercached ssd.img --replacement clock
status="$(tc_cli status --json)" || fail "tiercache status --json"
expect_json "$status" '.status.policies | [.admission, .replacement, .sequential.read_cutoff_bytes]' \
    '["always","clock",1048576]'
# Warm restart under clock: the six blocks are hits again; clock keeps no counters.
# shellcheck disable=SC2086
read_each $K $((3 * K)) $((100 * K)) $((255 * K)) $cold
expect_json "$(tc_cli stats --json)" \
    '.stats | [.read_hits, .read_misses, .lines_used, .policy_counters.replacement]' '[6,0,1281,{}]'
stop_tiercached

start_tiercached ssd.img --seq-cutoff 0
status="$(tc_cli status --json)" || fail "tiercache status --json"
expect_json "$status" '.status.policies | [.replacement, .sequential]' \
    '["lru",{"enabled":false,"read_cutoff_bytes":0,"write_cutoff_bytes":0,"streams":64}]'
tc_cli status | grep -qx "policies:   admission always, replacement lru, sequential cutoff off, index .* of RAM" ||
    fail "no policies line in: $(tc_cli status)"
# Without sequential bypass no request of a sequential read bypasses the cache.
read_each $M $((8 * M)) $((9 * M)) $((10 * M)) $((11 * M))
expect_json "$(tc_cli stats --json)" \
    '.stats | [.read_misses, .read_bypasses, .policy_counters.sequential.bypassed_read_bytes]' \
    '[4,0,0]'
stop_tiercached

# All 4 MiB were cached (closing waits for the fills); the superblock still holds what create
# recorded.
check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check"
expect_json "$check" '.lines_used' $((1281 + 1024))
expect_json "$check" '.policies | [.replacement, .sequential.enabled, .sequential.read_cutoff_bytes]' \
    '["lru",true,1048576]'
echo "PASS: $0"

#!/usr/bin/env bash
# Live policy change: `tiercache policy` shows the policies of a running tiercached and changes
# them while it serves, dirty write-back data in the cache. Every pattern written before the
# change reads back exactly after it, after reads of twice the cache forced evictions under the
# new replacement policy, and after a restart; `tiercache status` shows the new names; the
# superblock records them (`tiercache check`, the restarted daemon); unknown names are usage
# errors with create's message.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires qemu-io --version
requires jq --version

K=1024
M=$((1 << 20))
REGIONS=40
REGION_LEN=$((128 * K))
STRIDE=$((M + 256 * K))  # gaps between regions: each write starts a new stream

cd "$TEST_TMP"

# Runs one qemu-io with a command per region (pattern i+1 at region i); fails on any mismatch.
regions() {  # write|read
  local op="$1" cmds=() i out
  for ((i = 0; i < REGIONS; i++)); do
    cmds+=(-c "$op -P $((i + 1)) $((i * STRIDE)) $REGION_LEN")
  done
  out="$(qemu-io -f raw "$TC_URI" "${cmds[@]}" 2>&1)" || { echo "$out"; fail "qemu-io $op"; }
  if grep -q "Pattern verification failed\|failed" <<<"$out"; then echo "$out"; fail "$op"; fi
}

make_cache ssd.img 16M hdd.img 128M --mode wb --admission always --replacement lru
start_tiercached ssd.img
[ "$(tc_cli policy)" = "policies:   admission always, replacement lru, sequential cutoff 4 MiB" ] ||
    fail "tiercache policy: $(tc_cli policy)"

regions write
[ "$(tc_stat lines_dirty)" -gt 0 ] || fail "no dirty line after the writes"

# --- unknown names: usage errors, nothing changes ----------------------------------------
rc=0
out="$(tc_cli policy --replacement nope 2>&1 >/dev/null)" || rc=$?
[ "$rc" = 2 ] || fail "policy --replacement nope: exit $rc"
names="lru, clock, s3fifo, sieve, epoch-lru"
[ "$out" = "tiercache policy: --replacement: unknown replacement policy 'nope' ($names)" ] ||
    fail "policy --replacement nope said: $out"

# --- replacement lru -> clock, live --------------------------------------------------------
reply="$(tc_cli policy --replacement clock --json)" || fail "tiercache policy --replacement clock"
expect_json "$reply" '[.ok, .policies.replacement, .previous_policies.replacement]' \
    '[true,"clock","lru"]'
status="$(tc_cli status --json)" || fail "tiercache status --json"
expect_json "$status" '.status.policies | [.admission, .replacement]' '["always","clock"]'
tc_cli status | grep -q "^policies:   admission always, replacement clock, sequential cutoff 4 MiB, index " ||
    fail "no policies line in: $(tc_cli status)"
regions read

# Reads of 64 KiB every 128 KiB over the whole 128 MiB core (each a new stream): twice the cache,
# so clean lines are evicted under clock while the cleaner writes the dirty ones back.
evictions="$(tc_stat evictions)"
cmds=()
for ((off = 0; off < 128 * M; off += 128 * K)); do cmds+=(-c "read $off $((64 * K))"); done
qemu-io -f raw "$TC_URI" "${cmds[@]}" >/dev/null || fail "scan reads"
[ "$(tc_stat evictions)" -gt "$evictions" ] || fail "no eviction under clock"
[ "$(tc_stat errors)" = 0 ] || fail "engine errors"
regions read

# --- admission and sequential bypass too; then a restart keeps all three ---------------------
reply="$(tc_cli policy --admission adaptive --seq-cutoff 1M --json)" || fail "tiercache policy"
expect_json "$reply" '.policies' \
    '{"admission":"adaptive","replacement":"clock","sequential":{"enabled":true,"read_cutoff_bytes":1048576,"write_cutoff_bytes":1048576,"streams":64}}'
[ "$(tc_cli policy)" = "policies:   admission adaptive, replacement clock, sequential cutoff 1 MiB" ] ||
    fail "tiercache policy: $(tc_cli policy)"
stop_tiercached

check="$("$TIERCACHE_CLI" check --cache ssd.img --json)" || fail "tiercache check"
expect_json "$check" '.policies | [.admission, .replacement, .sequential.read_cutoff_bytes]' \
    '["adaptive","clock",1048576]'
start_tiercached ssd.img
expect_json "$(tc_cli status --json)" '.status.policies | [.admission, .replacement]' \
    '["adaptive","clock"]'
regions read
stop_tiercached
echo "PASS: $0"

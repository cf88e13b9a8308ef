#!/usr/bin/env bash
# Write-back cleaning as an operator sets it: tiercached's --cleaning and the target policy's knobs
# (--dirty-target, --dirty-high, --max-dirty-age, --busy-share, --idle-after) reach the cleaner,
# `tiercache status` reports them, and they change what is cleaned: the defaults clean a write
# once the volume is idle; knobs that never trigger keep it dirty until `tiercache cleaning`
# changes them live; nop keeps it dirty until `tiercache flush`. Bad values are usage errors
# naming the flag, of tiercached and of `tiercache cleaning`.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version

M=$((1 << 20))

cd "$TEST_TMP"

dirty_bytes() { tc_cli status --json | jq -e .status.cleaning.dirty_bytes; }

# Waits up to 60 s for the idle volume to have no dirty data; fails naming WHAT otherwise.
wait_clean() {  # WHAT
  local i
  for ((i = 0; i < 600; i++)); do
    [ "$(dirty_bytes)" = 0 ] && return
    sleep 0.1
  done
  fail "$1 left $(dirty_bytes) bytes dirty on an idle volume"
}

# Writes 1 MiB of 0x5a at offset 0 through the volume.
write_mib() {
  nbdsh -u "$TC_URI" -c "h.pwrite(b'\\x5a' * $M, 0)" || fail "nbdsh write"
}

make_cache ssd.img 64M hdd.img 256M --mode wb --admission always --seq-cutoff 0
requires test -x "$TIERCACHED"

# --- bad values are usage errors ----------------------------------------------------------
usage="Run tiercached --help for usage."
expect_usage_error 2 "tiercached: --cleaning: unknown cleaning policy 'alru' (known: target, nop)
$usage" "$TIERCACHED" --cache ssd.img --foreground --cleaning alru
expect_usage_error 2 "tiercached: dirty-target 0.6 must be below dirty-high 0.5
$usage" "$TIERCACHED" --cache ssd.img --foreground --dirty-target 0.6
expect_usage_error 2 "tiercached: --busy-share: 0 is not in 0.001..1
$usage" "$TIERCACHED" --cache ssd.img --foreground --busy-share 0
expect_usage_error 2 "tiercached: --max-dirty-age: 'soon' is not a number
$usage" "$TIERCACHED" --cache ssd.img --foreground --max-dirty-age soon

# --- the defaults: an idle volume is cleaned -------------------------------------------------
start_tiercached ssd.img
status="$(tc_cli status --json)" || fail "tiercache status --json"
expect_json "$status" '.status.cleaning | [.policy, .dirty_target, .dirty_high, .max_dirty_age_ms,
    .busy_share, .idle_after_ms]' '["target",0.2,0.5,30000,0.1,1000]'
knobs="dirty target 20%, high 50%, max age 30 s, busy share 10%, idle after 1 s"
tc_cli status | grep -qx "            $knobs" ||
    fail "no cleaning knobs line in: $(tc_cli status)"
write_mib
wait_clean "the defaults"
expect_json "$(tc_cli stats --json)" .stats.bytes_written_core $M
stop_tiercached

# --- knobs that never trigger: the write stays dirty; a live change cleans it ----------------
start_tiercached ssd.img --dirty-target 0.9 --dirty-high 1 --max-dirty-age 86400 \
    --busy-share 0.5 --idle-after 86400
expect_json "$(tc_cli status --json)" '.status.cleaning | [.policy, .dirty_target, .dirty_high,
    .max_dirty_age_ms, .busy_share, .idle_after_ms]' '["target",0.9,1,86400000,0.5,86400000]'
write_mib
sleep 3  # the defaults clean within about a second of idleness (above)
expect_json "$(tc_cli status --json)" '.status.cleaning | [.dirty_bytes, .last_reason]' \
    "[$M,\"none\"]"
expect_json "$(tc_cli stats --json)" .stats.bytes_written_core 0
expect_usage_error 2 "tiercache cleaning: dirty-target 0.9 must be below dirty-high 0.5" \
    "$TIERCACHE_CLI" cleaning --control "$TC_CONTROL" --dirty-high 0.5
expect_usage_error 2 "tiercache cleaning: --busy-share: 2 is not in 0.001..1" \
    "$TIERCACHE_CLI" cleaning --control "$TC_CONTROL" --busy-share 2
out="$(tc_cli cleaning --idle-after 0.1)" || fail "tiercache cleaning --idle-after 0.1"
knobs="dirty target 90%, high 100%, max age 86400 s, busy share 50%, idle after"
[ "$out" = "cleaning:   target; $knobs 0.1 s
            (was: target; $knobs 86400 s)" ] || fail "tiercache cleaning said: $out"
wait_clean "--idle-after 0.1"
expect_json "$(tc_cli stats --json)" .stats.bytes_written_core $M
stop_tiercached

# --- nop: only a flush cleans; a live change back to nop keeps new writes dirty ------------------
start_tiercached ssd.img --cleaning nop --idle-after 0.1
expect_json "$(tc_cli status --json)" .status.cleaning.policy '"nop"'
write_mib
sleep 3
expect_json "$(tc_cli status --json)" .status.cleaning.dirty_bytes $M
tc_cli flush >/dev/null || fail "tiercache flush"
[ "$(dirty_bytes)" = 0 ] || fail "tiercache flush left $(dirty_bytes) bytes dirty"
tc_cli cleaning --policy target >/dev/null || fail "tiercache cleaning --policy target"
tc_cli cleaning --policy nop >/dev/null || fail "tiercache cleaning --policy nop"
expect_json "$(tc_cli cleaning --json)" .cleaning.policy '"nop"'
write_mib
sleep 3
expect_json "$(tc_cli status --json)" .status.cleaning.dirty_bytes $M
tc_cli flush >/dev/null || fail "tiercache flush"
stop_tiercached

# The data is on the core, byte for byte.
cmp <(head -c $M hdd.img) <(head -c $M /dev/zero | tr '\0' '\132') ||
    fail "the core does not hold the written MiB"
echo "PASS"

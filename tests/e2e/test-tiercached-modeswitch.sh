#!/usr/bin/env bash
# Live mode switches: fio (nbd engine, 4 connections, randrw of 4-64 KiB blocks over twice the
# cache size, crc32c verified continuously) runs while `tiercache mode` cycles
# wt -> wb -> wa -> pt -> wt, alternately without and with --drain (not to wb: refused, exit 2,
# before the load starts). fio must see no error and
# no bad block. After each switch a pattern is written to a region fio does not use; at the end
# every pattern reads back exactly. After a drained switch out of wb no line may be dirty until
# the next wb. Finally, after `tiercache flush`, the HDD holds exactly what the daemon serves.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires fio --enghelp=nbd
requires qemu-io --version
requires nbdcopy --version
requires jq --version

FIO_RUNTIME="${FIO_RUNTIME:-20}"  # seconds of fio load; the switching goes on as long
MIN_CYCLES=4                      # full cycles, at least, whether or not fio still runs
PATTERN_BASE=$((192 << 20))       # patterns go here, past fio's 128 MiB
PATTERN_LEN=$((256 << 10))

cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wt
start_tiercached ssd.img
rc=0
out="$(tc_cli mode wb --drain 2>&1)" || rc=$?
want="tiercache mode: --drain writes dirty data back for a mode without it: not with wb"
[ "$rc" = 2 ] && [ "$out" = "$want" ] || fail "mode wb --drain: exit $rc: $out"
[ "$(tc_cli mode)" = "mode: wt" ] || fail "a refused switch changed the mode: $(tc_cli mode)"

fio --output=fio.out --ioengine=nbd --uri="$TC_URI" --name=load --numjobs=4 --iodepth=16 \
    --rw=randrw --bsrange=4k-64k --blockalign=4k --size=32M --offset_increment=32M \
    --verify=crc32c --verify_backlog=256 --verify_fatal=1 --verify_state_save=0 \
    --time_based --runtime="$FIO_RUNTIME" &
FIO_PID=$!
cleanup_fn "kill $FIO_PID 2>/dev/null || true"

current=wt
steps=0
under_load=0

# Switches to $1 (with --drain when $2 is "drain"), checks the reply, then writes pattern
# number $steps (1..255) to its own region.
switch_to() {
  local mode="$1" drain="$2" out
  local args=("$mode")
  if [ "$drain" = drain ] && [ "$mode" != wb ]; then args+=(--drain); fi
  out="$(tc_cli mode "${args[@]}" --json)" || fail "tiercache mode ${args[*]}: $out"
  [ "$(jq -r '.ok, .mode, .previous_mode' <<<"$out" | tr '\n' ' ')" = "true $mode $current " ] ||
    fail "tiercache mode ${args[*]} (from $current): $out"
  if kill -0 "$FIO_PID" 2>/dev/null; then under_load=$((under_load + 1)); fi
  if [ "$drain" = drain ] && [ "$mode" != wb ] && [ "$(tc_stat lines_dirty)" != 0 ]; then
    fail "dirty lines in $mode after a drained switch"
  fi
  current="$mode"
  steps=$((steps + 1))
  qemu-io -f raw "$TC_URI" -c "write -P $steps $((PATTERN_BASE + steps * PATTERN_LEN)) $PATTERN_LEN" \
      >/dev/null || fail "pattern write $steps in $mode"
}

cycles=0
while [ "$cycles" -lt "$MIN_CYCLES" ] || kill -0 "$FIO_PID" 2>/dev/null; do
  drain=""
  if [ $((cycles % 2)) = 1 ]; then drain=drain; fi
  for mode in wb wa pt wt; do switch_to "$mode" "$drain"; done
  cycles=$((cycles + 1))
  [ "$steps" -lt 250 ] || break
done
rc=0
wait "$FIO_PID" || rc=$?
[ "$rc" = 0 ] || { cat fio.out; fail "fio exited with status $rc"; }
if grep -q "err= *[1-9]\|verify:" fio.out; then cat fio.out; fail "fio reported errors"; fi
grep -q "err= 0" fio.out || { cat fio.out; fail "no fio result"; }
echo "$steps mode switches in $cycles cycles, $under_load of them under fio load"

# Every pattern is there, byte for byte.
cmds=()
for ((i = 1; i <= steps; i++)); do
  cmds+=(-c "read -P $i $((PATTERN_BASE + i * PATTERN_LEN)) $PATTERN_LEN")
done
out="$(qemu-io -f raw "$TC_URI" "${cmds[@]}" 2>&1)" || { echo "$out"; fail "pattern read"; }
if grep -q "Pattern verification failed\|failed" <<<"$out"; then echo "$out"; fail "patterns"; fi

[ "$(tc_stat errors)" = 0 ] || fail "engine errors"
# The wb periods left dirty data (at least the patterns) that the drained switches cleaned.
[ "$(tc_stat cleaned_lines)" -gt 0 ] || fail "no line was ever cleaned"
tc_cli stats | sed 's/^/  /'
tc_cli flush >/dev/null || fail "tiercache flush"
[ "$(tc_stat lines_dirty)" = 0 ] || fail "dirty lines after tiercache flush"
nbdcopy "$TC_URI" served.img
stop_tiercached
cmp served.img hdd.img || fail "HDD differs from what the daemon served"
echo "PASS: $0"

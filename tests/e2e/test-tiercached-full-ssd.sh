#!/usr/bin/env bash
# A sparse cache file on a filesystem too small for it (96 MiB of lines on a 40 MiB tmpfs):
# `tiercache create` warns and names the fix (text on stderr, JSON `warnings`); in write-back,
# 48 MiB of writes are all acknowledged although the SSD runs out of space under them; the
# cache says so (health failed, SSD write errors counted) and the volume reads back byte for
# byte. Once the filesystem has room and `tiercache reset-health` ran, `tiercache flush` writes
# every dirty byte to the core. The allocated file (`fallocate`, as the warning says) gets no
# warning.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version
requires fallocate --version

cd "$TEST_TMP"
mount_tmpfs ssdfs 40M
truncate -s 96M ssdfs/ssd.img
truncate -s 128M hdd.img
head -c 48M /dev/urandom >data.bin

fix="Allocate it before starting tiercached: fallocate -l 100663296 $TEST_TMP/ssdfs/ssd.img"
"$TIERCACHE_CLI" create --cache ssdfs/ssd.img --core hdd.img --mode wb --admission always \
  --seq-cutoff 0 >create.out 2>create.err || fail "create: $(cat create.err)"
grep -q "^created a tiercache on $TEST_TMP/ssdfs/ssd.img" create.out || fail "$(cat create.out)"
[ "$(wc -l <create.err)" = 1 ] || fail "create's stderr: $(cat create.err)"
warning="tiercache create: warning: $TEST_TMP/ssdfs/ssd.img is a sparse file: "
said="$(cat create.err)"
[[ "$said" == "$warning"*" of it is not allocated and its filesystem has "*" free. "*"$fix" ]] ||
  fail "create's warning: $said"
out="$("$TIERCACHE_CLI" create --cache ssdfs/ssd.img --core hdd.img --mode wb --admission always \
         --seq-cutoff 0 --force --json 2>/dev/null)" || fail "create --force --json: $out"
[ "$(jq '.warnings | length' <<<"$out")" = 1 ] &&
  [[ "$(jq -r '.warnings[0]' <<<"$out")" == *"$fix" ]] || fail "create --json warnings: $out"

start_tiercached "$TEST_TMP/ssdfs/ssd.img" 2>d.log
volume_file write data.bin || fail "writes failed while the SSD filled up"
[ "$(df --output=avail ssdfs | tail -1 | tr -d ' ')" = 0 ] ||
  fail "the SSD's filesystem did not fill up"
status="$(tc_cli status --json)"
[ "$(jq -r .status.health <<<"$status")" = failed ] || fail "health: $status"
[ "$(tc_stat ssd_write_errors)" -ge 1 ] || fail "ssd_write_errors $(tc_stat ssd_write_errors)"
volume_file check data.bin || fail "the volume lost data when the SSD filled up"

# Room again: the operator resets the health, and the flush writes everything to the core.
mount -o remount,size=160M "$TEST_TMP/ssdfs" || fail "cannot grow the tmpfs"
tc_cli reset-health >/dev/null || fail "tiercache reset-health"
[ "$(tc_cli status --json | jq -r .status.health)" = ok ] || fail "health after reset-health"
tc_cli flush >/dev/null || fail "tiercache flush after space came back"
[ "$(tc_stat lines_dirty)" = 0 ] || fail "lines_dirty $(tc_stat lines_dirty) after the flush"
cmp -n $((48 << 20)) data.bin hdd.img || fail "the core does not hold the data"
volume_file check data.bin || fail "the volume differs after the flush"
stop_tiercached

# Allocated as the warning says: no warning.
fallocate -l 100663296 ssdfs/ssd.img
out="$("$TIERCACHE_CLI" create --cache ssdfs/ssd.img --core hdd.img --force --json 2>create.err)" ||
  fail "create on the allocated file: $out"
[ "$(jq -c .warnings <<<"$out")" = "[]" ] && [ ! -s create.err ] ||
  fail "create on the allocated file warned: $out $(cat create.err)"
echo "PASS: $0"

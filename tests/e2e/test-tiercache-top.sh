#!/usr/bin/env bash
# `tiercache top --iterations 2 --interval 1.5`: two plain frames (no escape codes when stdout is
# not a terminal) of rates, hit ratio, dirty data and latency per path, computed from successive
# stats replies; requests made while it runs show up in its frames, exactly once.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version

K=4096
cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wb --admission always
start_tiercached ssd.img

rc=0
tc_cli top --iterations 2 --interval 0 >/dev/null 2>usage.txt || rc=$?
[ "$rc" = 2 ] || fail "--interval 0: exit $rc, expected 2"

tc_cli top --iterations 2 --interval 1.5 >top.txt &
top_pid=$!
# 8 writes of 4 KiB while top runs (its first reply is taken at once, its last after 3 s): they
# fall into one frame or the other.
sleep 0.5
nbdsh -u "$TC_URI" -c "
for i in range(8):
    h.pwrite(bytearray($K), i * $K)
" || fail "nbdsh"
wait "$top_pid" || fail "tiercache top failed: $(cat top.txt)"

[ "$(grep -c '^tiercache top: ssd.img (health ok), last ' top.txt)" = 2 ] ||
  fail "expected 2 frames: $(cat top.txt)"
if grep -q $'\033' top.txt; then fail "escape codes without a terminal"; fi
grep -qE '^IOPS:       read [0-9.]+, write [0-9.]+$' top.txt || fail "no IOPS line: $(cat top.txt)"
grep -qE '^MB/s:       read [0-9.]+, write [0-9.]+$' top.txt || fail "no MB/s line: $(cat top.txt)"
# The cleaner may already be writing them back: at most 32 KiB dirty.
grep -qE '^dirty:      ([0-9]+ B|[0-9.]+ KiB)$' top.txt || fail "no dirty line: $(cat top.txt)"
grep -q '^            flush no requests$' top.txt || fail "no flush line: $(cat top.txt)"
# The write latency lines of the two frames count the 8 writes once in all.
writes=0
while read -r n; do
  writes=$((writes + n))
done < <(sed -nE 's/^            write .*\(([0-9]+) requests?\)$/\1/p' top.txt)
[ "$writes" = 8 ] || fail "write requests in the frames: '$writes', expected 8: $(cat top.txt)"
stop_tiercached

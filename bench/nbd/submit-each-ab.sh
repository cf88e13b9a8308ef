#!/bin/bash
# Submitting each operation on its own (issue 11): one warm volume, the daemon restarted with the
# loop's ring handing every operation to the kernel as the next is prepared ("each", the default)
# and with one submission per loop round (TIERCACHE_SUBMIT_PER_ROUND=1, "round") in turn, ROUNDS
# times; per cell the IOPS, fio's mean latency, the daemon's CPU, system calls and context
# switches per request, the disk's reads and mean time per read (DISK, vda by default), and as
# "counter" the SSD submit calls per request (tiercache status --json: io.cache.submit_calls).
# Usage: bench/nbd/submit-each-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="round each" reverses)
set -u
export DISK="${DISK:-vda}"
source "$(dirname "$0")/volume.sh" "${1:-}"
warm_volume
for _ in $(seq "${2:-3}"); do
  for mode in ${ORDER:-each round}; do
    # shellcheck disable=SC2046  # no word, or one
    restart_daemon_env $([ "$mode" = round ] && echo TIERCACHE_SUBMIT_PER_ROUND=1)
    read_cell "$mode" 4k-qd32 randread 4k 32 .status.io.cache.submit_calls
    read_cell "$mode" 4k-qd1 randread 4k 1 .status.io.cache.submit_calls
    read_cell "$mode" 1m-qd8 read 1M 8 .status.io.cache.submit_calls
  done
done

#!/bin/bash
# Registered buffers on the loop's io_uring (issue 11): one warm volume, the daemon restarted with
# the buffer table ("fixed") and without it (TIERCACHE_NO_FIXED_BUFFERS=1, "plain") in turn,
# ROUNDS times; per cell the IOPS, fio's mean latency, the daemon's CPU, system calls and context
# switches per request, and as "counter" the SSD operations that went fixed per request
# (tiercache status --json: io.cache.fixed_buffers).
# Usage: bench/nbd/fixed-buffers-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="plain fixed" reverses)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
warm_volume
for _ in $(seq "${2:-2}"); do
  for mode in ${ORDER:-fixed plain}; do
    # shellcheck disable=SC2046  # no word, or one
    restart_daemon_env $([ "$mode" = plain ] && echo TIERCACHE_NO_FIXED_BUFFERS=1)
    read_cell "$mode" 4k-qd32 randread 4k 32 .status.io.cache.fixed_buffers
    read_cell "$mode" 1m-qd8 read 1M 8 .status.io.cache.fixed_buffers
  done
done

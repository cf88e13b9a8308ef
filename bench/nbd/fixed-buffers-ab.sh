#!/bin/bash
# Registered buffers on the loop's io_uring (issue 11): one warm volume, the daemon restarted with
# the buffer table ("fixed") and without it (TIERCACHE_NO_FIXED_BUFFERS=1, "plain") in turn,
# ROUNDS times; per cell the IOPS, fio's mean latency, the daemon's CPU, system calls and context
# switches per request, and as "counter" the SSD operations that went fixed per request
# (tiercache status --json: io.cache.fixed_buffers).
# Usage: bench/nbd/fixed-buffers-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="on off" puts "plain" first)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
env_ab "${2:-2}" TIERCACHE_NO_FIXED_BUFFERS fixed plain .status.io.cache.fixed_buffers \
    4k-qd32:randread:4k:32 1m-qd8:read:1M:8

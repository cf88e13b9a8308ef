#!/bin/bash
# Submitting each disk operation on its own (issue 11): one warm volume, the daemon restarted with
# the loop's ring handing each disk operation to the kernel as the next is prepared ("each", the
# default) and with one submission per loop round (TIERCACHE_SUBMIT_PER_ROUND=1, "round") in
# turn, ROUNDS times; per cell the IOPS, fio's mean latency, the daemon's CPU, system calls and
# context switches per request, the disk's reads and mean time per read (DISK: the volume's
# disk as /proc/diskstats names it, vda by default), and as "counter" the SSD submit calls per
# request (tiercache status --json: io.cache.submit_calls).
# Usage: bench/nbd/submit-each-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="on off" puts "round" first)
set -u
export DISK="${DISK:-vda}"
source "$(dirname "$0")/volume.sh" "${1:-}"
env_ab "${2:-3}" TIERCACHE_SUBMIT_PER_ROUND each round .status.io.cache.submit_calls \
    4k-qd32:randread:4k:32 4k-qd1:randread:4k:1 1m-qd8:read:1M:8

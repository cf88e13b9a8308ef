#!/bin/bash
# NBD sockets on the loop's io_uring against epoll (issue 11): one warm volume, the daemon
# restarted with --socket-io ring and --socket-io epoll in turn, ROUNDS times; per cell the IOPS,
# fio's mean latency, the daemon's CPU per request (/proc), its system calls per request (all
# threads: perf stat -e raw_syscalls:sys_enter) and its context switches per request.
# Usage: bench/nbd/socket-io-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="epoll ring" reverses the turn)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
warm_volume
for _ in $(seq "${2:-2}"); do
  for mode in ${ORDER:-ring epoll}; do
    stop_daemon
    start_daemon --socket-io "$mode"
    read_cell "$mode" 4k-qd32 randread 4k 32
    read_cell "$mode" 4k-qd1 randread 4k 1
    read_cell "$mode" 1m-qd8 read 1M 8
  done
done

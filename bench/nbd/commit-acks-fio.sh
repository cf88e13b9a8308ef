#!/bin/bash
# The cost of tiercached --commit-acks (docs/tiercached.8.md): fio 4 KiB random writes at QD1 and
# QD32 through tiercached in wb, without and with the flag, side by side in one run.
# Usage: bench/nbd/commit-acks-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
run() {
  make_volume wb
  start_daemon "$@"
  for qd in 1 32; do
    echo "QD$qd $(fio_nbd randwrite --bs=4k --iodepth=$qd --size=256M --time_based --runtime=8) IOPS ${*:-(default)}"
  done
  stop_daemon
}
run
run --commit-acks

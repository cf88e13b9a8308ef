#!/bin/bash
# The cost of tiercached --commit-acks (docs/tiercached.8.md): fio 4 KiB random writes at QD1 and
# QD32 through tiercached in wb, without and with the flag, side by side in one run.
# Usage: bench/nbd/commit-acks-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
B="$(cd "${1:-$(dirname "$0")/../../build}" && pwd)"
LIB="$(cd "$(dirname "$0")" && pwd)/volume.sh"
W="$(mktemp -d)"
trap 'stop_daemon; rm -rf "$W"' EXIT
cd "$W"
source "$LIB"
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

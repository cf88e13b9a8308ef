#!/bin/bash
# The cost of 512-byte sectors (docs/io-paths.md): fio IOPS of 4 KiB and 512-byte random writes
# and reads at QD1 and QD16 through tiercached (wt, 64 MiB cached), side by side in one run.
# Usage: bench/nbd/partial-sector-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
make_volume wt --seq-cutoff 0
start_daemon
fio_nbd write --bs=1M --size=64M >/dev/null  # warm 64 MiB so both sizes hit
for rw in randwrite randread; do for qd in 1 16; do for bs in 4096 512; do
  echo "$rw QD$qd bs=$bs $(fio_nbd $rw --bs=$bs --iodepth=$qd --size=64M --time_based --runtime=5) IOPS"
done; done; done

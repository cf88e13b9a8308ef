#!/bin/bash
# The cost of 512-byte sectors (docs/io-paths.md): fio IOPS of 4 KiB and 512-byte random writes
# and reads at QD1 and QD16 through tiercached (wt, 64 MiB cached), side by side in one run.
# Usage: bench/nbd/partial-sector-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
B="$(cd "${1:-$(dirname "$0")/../../build}" && pwd)"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
cd "$W"
rm -f ssd hdd; truncate -s 1G ssd; truncate -s 4G hdd
$B/tools/tiercache create --cache ssd --core hdd --mode wt --admission always --seq-cutoff 0 --force >/dev/null || exit 1
$B/daemon/tiercached/tiercached --cache ssd --core hdd --socket $PWD/s.sock --control $PWD/c.ctl -f 2>d.log &
P=$!
for i in $(seq 50); do [ -S s.sock ] && break; sleep 0.1; done
# warm 64 MiB so both sizes hit
fio --name=warm --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=write --bs=1M --size=64M >/dev/null 2>&1
for rw in randwrite randread; do for qd in 1 16; do for bs in 4096 512; do
  fio --name=w --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=$rw --bs=$bs --iodepth=$qd --size=64M --time_based --runtime=5 --output-format=json --output=f.json >/dev/null 2>&1
  echo "$rw QD$qd bs=$bs $(jq ".jobs[0].${rw#rand}.iops|floor" f.json) IOPS"
done; done; done
kill $P; wait $P

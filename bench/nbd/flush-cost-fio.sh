#!/bin/bash
# What FLUSH costs at QD32 (issue 11): fio 4 KiB random writes at QD32 with a FLUSH every N
# writes (fio --fsync=N; 0 = never), through tiercached in wb and wt and on a raw file (libaio,
# fdatasync), side by side in one run, with the mean FLUSH latency fio saw. A tiercached FLUSH
# flushes the core and persists the changed line records (docs/io-paths.md).
# Usage: bench/nbd/flush-cost-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
EVERY="0 256 32 1"
FIO=(--bs=4k --iodepth=32 --size=256M --time_based --runtime=6)
raw() {
  rm -f raw; truncate -s 4G raw
  fio --name=w --ioengine=libaio --direct=1 --filename=raw --rw=randwrite "${FIO[@]}" \
      --fsync="$1" --output-format=json --output=f.json >/dev/null 2>&1
  jq '.jobs[0].write.iops|floor' f.json
}
for setup in wb wt raw; do
  if [ "$setup" != raw ]; then make_volume "$setup" --seq-cutoff 0; start_daemon; fi
  line="$setup:"
  base=""
  for n in $EVERY; do
    if [ "$setup" = raw ]; then iops=$(raw "$n"); else iops=$(fio_nbd randwrite "${FIO[@]}" --fsync="$n"); fi
    base=${base:-$iops}
    line+=" | every $n: ${iops} IOPS ($(echo "scale=2; $iops / $base" | bc)x)"
    [ "$n" != 0 ] && line+=", FLUSH $(jq '.jobs[0].sync.lat_ns.mean/1000|floor' f.json) us"
  done
  echo "$line"
  stop_daemon
done

#!/bin/bash
# The cost of tiercached --commit-acks (docs/tiercached.8.md): fio 4 KiB random writes at QD1 and
# QD32 through tiercached in wb, without and with the flag, side by side in one run.
# Usage: bench/nbd/commit-acks-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
B="$(cd "${1:-$(dirname "$0")/../../build}" && pwd)"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
cd "$W"
run() {
  rm -f ssd hdd s.sock c.ctl; truncate -s 1G ssd; truncate -s 4G hdd
  "$B/tools/tiercache" create --cache ssd --core hdd --mode wb --admission always --force >/dev/null || exit 1
  "$B/daemon/tiercached/tiercached" --cache ssd --core hdd --socket "$PWD/s.sock" \
      --control "$PWD/c.ctl" -f "$@" 2>d.log &
  local pid=$!
  for _ in $(seq 50); do [ -S s.sock ] && break; sleep 0.1; done
  for qd in 1 32; do
    fio --name=w --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=randwrite --bs=4k \
        --iodepth=$qd --size=256M --time_based --runtime=8 --output-format=json --output=f.json \
        >/dev/null 2>&1
    echo "QD$qd $(jq '.jobs[0].write.iops|floor' f.json) IOPS ${*:-(default)}"
  done
  kill "$pid"; wait "$pid"
}
run
run --commit-acks

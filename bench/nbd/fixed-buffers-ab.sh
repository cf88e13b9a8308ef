#!/bin/bash
# Registered buffers on the loop's io_uring (issue 11): one warm volume, the daemon restarted with
# the buffer table ("fixed") and without it (TIERCACHE_NO_FIXED_BUFFERS=1, "plain") in turn,
# ROUNDS times; per cell the IOPS, fio's mean latency, the daemon's CPU per request (/proc), its
# system calls per request (all threads: perf stat) and the SSD operations that went fixed
# (tiercache status --json: io.cache.fixed_buffers) per request.
# Usage: bench/nbd/fixed-buffers-ab.sh [BUILD_DIR] [ROUNDS]   (ORDER="plain fixed" reverses)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
rm -f ssd hdd; truncate -s 2G ssd; truncate -s 1G hdd
"$CLI" create --cache ssd --core hdd --mode wt --admission always --seq-cutoff 0 --force \
    >/dev/null || exit 1
start_daemon
for _ in 1 2 3 4; do  # every block of the 1 GiB core cached
  fio --name=w --ioengine=nbd --uri="$URI" --rw=read --bs=1M --iodepth=8 --output=/dev/null \
      >/dev/null 2>&1
done
ticks() { awk '{print $14+$15}' /proc/"$PID"/stat; }
fixed() { "$CLI" status --control c.ctl --json | jq '.status.io.cache.fixed_buffers'; }
# cell NAME RW BS QD
cell() {
  local t0 f0 t1 f1 ios
  t0=$(ticks) f0=$(fixed)
  perf stat -e raw_syscalls:sys_enter -p "$PID" -x, -o ps.txt -- sleep 6.5 &
  local pp=$!
  fio --name=w --ioengine=nbd --uri="$URI" --rw="$2" --bs="$3" --iodepth="$4" --time_based \
      --runtime=6 --size=1G --output-format=json --output=f.json >/dev/null 2>&1
  wait "$pp"
  t1=$(ticks) f1=$(fixed)
  ios=$(jq '.jobs[0].read.total_ios' f.json)
  awk -v m="$mode" -v n="$1" -v ios="$ios" -v t="$((t1 - t0))" -v f="$((f1 - f0))" \
      -v sys="$(cut -d, -f1 ps.txt | grep -E '^[0-9]+$')" \
      -v iops="$(jq '.jobs[0].read.iops' f.json)" -v lat="$(jq '.jobs[0].read.clat_ns.mean' f.json)" \
      'BEGIN { printf "%-5s %-8s %8.0f IOPS %7.1f us  cpu/req %7.1f us  syscalls/req %5.2f  fixed/req %5.2f\n",
               m, n, iops, lat / 1000, t * 10000 / ios, sys / ios, f / ios }'
}
for _ in $(seq "${2:-2}"); do
  for mode in ${ORDER:-fixed plain}; do
    stop_daemon
    if [ "$mode" = plain ]; then export TIERCACHE_NO_FIXED_BUFFERS=1; fi
    start_daemon
    unset TIERCACHE_NO_FIXED_BUFFERS
    cell 4k-qd32 randread 4k 32
    cell 1m-qd8 read 1M 8
  done
done

#!/bin/bash
# Write-back writes over trusted lines (issue 11, docs/performance.md "Session 9: the record
# journal"): a warm, trusted 1 GiB volume on fully written files, switched to wb, then 6 s of fio
# 4 KiB random writes at QD32 through NBD. Prints the IOPS, the daemon's CPU, system calls, SSD
# queue operations, metadata bytes (its /proc write_bytes minus the data it wrote to both devices)
# and the cleaner's core writes (KiB) per client write. One round per call: alternate it between
# two builds, or two sets of daemon options (e.g. the cleaning knobs), for an A/B.
# Usage: bench/nbd/wb-journal-ab.sh [BUILD_DIR [TIERCACHED OPTIONS...]]
# PERF_RECORD=FILE records a call-graph CPU profile of the daemon during the cell into FILE
# (`perf report -i FILE --sort comm,sym`); system calls then read 0.
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
for f in ssd:1088M hdd:1G; do  # written through, so no read or write meets a hole
  fio --name=fill --filename="${f%%:*}" --size="${f#*:}" --rw=write --bs=1M --direct=1 \
      --ioengine=libaio --output=/dev/null >/dev/null || exit 1
done
"$CLI" create --cache ssd --core hdd --mode wt --admission always --seq-cutoff 0 --force \
    >/dev/null || exit 1
start_daemon "${@:2}"
for _ in 1 2 3 4; do  # every block cached
  fio --name=w --ioengine=nbd --uri="$URI" --rw=read --bs=1M --iodepth=8 --output=/dev/null \
      >/dev/null 2>&1
done
sleep 6  # a trust round: the lines become crash-safe, so wb writes move their blocks
"$CLI" mode wb --control "$PWD/c.ctl" >/dev/null || exit 1
ticks() { awk '{print $14+$15}' /proc/"$PID"/stat; }
written() { awk '/^write_bytes/ {print $2}' /proc/"$PID"/io; }
data() { "$CLI" stats --control "$PWD/c.ctl" --json | jq '.stats.bytes_written_ssd + .stats.bytes_written_core'; }
ops() { "$CLI" status --control "$PWD/c.ctl" --json | jq '.status.io.cache.ops'; }
core() { "$CLI" stats --control "$PWD/c.ctl" --json | jq '.stats.bytes_written_core'; }
o0=$(ops) d0=$(data) w0=$(written) t0=$(ticks) c0=$(core)
if [ -n "${PERF_RECORD:-}" ]; then  # a CPU profile of the daemon instead of its system calls
  perf record -F 2000 -g -p "$PID" -o "$PERF_RECORD" -- sleep 6.5 2>/dev/null &
else
  perf stat -e raw_syscalls:sys_enter -p "$PID" -x, -o ps.txt -- sleep 6.5 &
fi
pp=$!
fio --name=w --ioengine=nbd --uri="$URI" --rw=randwrite --bs=4k --iodepth=32 --time_based \
    --runtime=6 --size=1G --output-format=json --output=f.json >/dev/null 2>&1
wait "$pp"
t1=$(ticks) w1=$(written) d1=$(data) o1=$(ops) c1=$(core)
awk -v ios="$(jq '.jobs[0].write.total_ios' f.json)" -v iops="$(jq '.jobs[0].write.iops' f.json)" \
    -v t="$((t1 - t0))" -v meta="$((w1 - w0 - (d1 - d0)))" -v ops="$((o1 - o0))" -v core="$((c1 - c0))" \
    -v sys="$(cut -d, -f1 ps.txt 2>/dev/null | grep -E '^[0-9]+$')" \
    'BEGIN { printf "%.0f IOPS  cpu/write %.1f us  metadata bytes/write %.0f  ssd ops/write %.2f  syscalls/write %.2f  cleaned KiB/write %.2f\n",
             iops, t * 10000 / ios, meta / ios, ops / ios, sys / ios, core / ios / 1024 }'

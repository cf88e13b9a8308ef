#!/bin/bash
# The cost of staying warm after a crash (docs/io-paths.md "Warm after a crash"): fio 4 KiB random
# writes at QD1 and QD32 through tiercached, over lines a trust round made crash-safe ("trusted":
# a write-through write waits for one untrust persist first; a write-back write of a whole line
# moves to a fresh line instead) and over an uncached region ("new lines": no wait), side by side
# in one run, in wt, in wt with --trust-interval 0 (no trust rounds: no waits, cold after a crash)
# and in wb. Also kill -9 warmth: the share of a 128 MiB read working set that still hits after a
# kill -9.
# Usage: bench/nbd/warm-crash-fio.sh [BUILD_DIR]   (runs in a temporary directory)
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
stat() { "$CLI" stats --control "$PWD/c.ctl" --json | jq ".stats.$1"; }
fio_run() {  # RW OFFSET QD -> IOPS
  fio_nbd "$1" --bs=4k --offset="$2" --size=128M --iodepth="$3" --time_based --runtime=6
}
settle() {  # until a trust round covered every line
  [ -n "$OPTS" ] && return
  for _ in $(seq 300); do [ "$(stat lines_untrusted)" = 0 ] && return; sleep 0.1; done
  echo "lines never became trusted" >&2
}
for setup in wt "wt --trust-interval 0" wb; do
  mode=${setup%% *}
  OPTS=${setup#"$mode"}
  make_volume "$mode" --seq-cutoff 0
  start_daemon $OPTS
  fio_nbd read --bs=1M --size=128M >/dev/null
  settle
  for qd in 1 32; do
    t=$(fio_run randwrite 0 "$qd"); settle
    n=$(fio_run randwrite $(( qd == 1 ? 1 << 30 : 2 << 30 )) "$qd"); settle
    echo "$setup QD$qd: trusted lines $t IOPS, new lines $n IOPS, ratio $(echo "scale=2; $t / $n" | bc)"
  done
  if [ "$mode" = wt ] && [ -z "$OPTS" ]; then
    fio_nbd read --bs=1M --offset=3G --size=128M >/dev/null
    settle
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    start_daemon $OPTS
    h0=$(stat read_hit_bytes)
    fio_nbd read --bs=1M --offset=3G --size=128M >/dev/null
    h1=$(stat read_hit_bytes)
    echo "wt kill -9: $(( (h1 - h0) >> 20 )) of 128 MiB re-read from the SSD"
  fi
  stop_daemon
done

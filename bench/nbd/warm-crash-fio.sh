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
B="$(cd "${1:-$(dirname "$0")/../../build}" && pwd)"
W="$(mktemp -d)"
trap 'kill $PID 2>/dev/null; rm -rf "$W"' EXIT
cd "$W"
PID=""
CLI="$B/tools/tiercache"
stat() { "$CLI" stats --control "$PWD/c.ctl" --json | jq ".stats.$1"; }
start() {
  rm -f s.sock c.ctl  # a kill -9 leaves them behind
  "$B/daemon/tiercached/tiercached" --cache ssd --core hdd --socket "$PWD/s.sock" \
      --control "$PWD/c.ctl" -f $OPTS 2>>d.log &
  PID=$!
  for _ in $(seq 100); do [ -S s.sock ] && [ -S c.ctl ] && break; sleep 0.1; done
}
fio_run() {  # RW OFFSET QD -> IOPS
  fio --name=w --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw="$1" --bs=4k \
      --offset="$2" --size=128M --iodepth="$3" --time_based --runtime=6 --output-format=json \
      --output=f.json >/dev/null 2>&1
  jq ".jobs[0].${1#rand}.iops|floor" f.json
}
settle() {  # until a trust round covered every line
  [ -n "$OPTS" ] && return
  for _ in $(seq 300); do [ "$(stat lines_untrusted)" = 0 ] && return; sleep 0.1; done
  echo "lines never became trusted" >&2
}
for setup in wt "wt --trust-interval 0" wb; do
  mode=${setup%% *}
  OPTS=${setup#"$mode"}
  rm -f ssd hdd s.sock c.ctl; truncate -s 1G ssd; truncate -s 4G hdd
  "$CLI" create --cache ssd --core hdd --mode "$mode" --admission always --seq-cutoff 0 \
      --force >/dev/null || exit 1
  start
  fio --name=fill --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=read --bs=1M \
      --size=128M --output=/dev/null >/dev/null 2>&1
  settle
  for qd in 1 32; do
    t=$(fio_run randwrite 0 "$qd"); settle
    n=$(fio_run randwrite $(( qd == 1 ? 1 << 30 : 2 << 30 )) "$qd"); settle
    echo "$setup QD$qd: trusted lines $t IOPS, new lines $n IOPS, ratio $(echo "scale=2; $t / $n" | bc)"
  done
  if [ "$mode" = wt ] && [ -z "$OPTS" ]; then
    fio --name=reread --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=read --bs=1M \
        --offset=3G --size=128M --output=/dev/null >/dev/null 2>&1
    settle
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    start
    h0=$(stat read_hit_bytes)
    fio --name=reread --ioengine=nbd --uri="nbd+unix:///?socket=$PWD/s.sock" --rw=read --bs=1M \
        --offset=3G --size=128M --output=/dev/null >/dev/null 2>&1
    h1=$(stat read_hit_bytes)
    echo "wt kill -9: $(( (h1 - h0) >> 20 )) of 128 MiB re-read from the SSD"
  fi
  kill "$PID"; wait "$PID" 2>/dev/null; PID=""
done

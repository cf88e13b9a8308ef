# Shared by the bench/nbd/*-fio.sh scripts: a tiercached volume on sparse files in a temporary
# directory (the current one from then on, removed at exit), and fio through its NBD socket.
# Usage, first thing in a script: source "$(dirname "$0")/volume.sh" "${1:-}"  (BUILD_DIR or "")
B="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../../build}" && pwd)" || exit 1
W="$(mktemp -d)"
trap 'stop_daemon; rm -rf "$W"' EXIT
cd "$W" || exit 1
CLI="$B/tools/tiercache"
URI="nbd+unix:///?socket=$PWD/s.sock"
PID=""

# make_volume MODE [CREATE OPTIONS...]: a fresh 1 GiB cache in front of a 4 GiB core.
make_volume() {
  local mode=$1; shift
  rm -f ssd hdd s.sock c.ctl; truncate -s 1G ssd; truncate -s 4G hdd
  "$CLI" create --cache ssd --core hdd --mode "$mode" --admission always --force "$@" \
      >/dev/null || exit 1
}

# start_daemon [TIERCACHED OPTIONS...]: serves the volume; returns once both sockets exist.
start_daemon() {
  rm -f s.sock c.ctl  # a kill -9 leaves them behind
  "$B/daemon/tiercached/tiercached" --cache ssd --core hdd --socket "$PWD/s.sock" \
      --control "$PWD/c.ctl" -f "$@" 2>>d.log &
  PID=$!
  for _ in $(seq 100); do [ -S s.sock ] && [ -S c.ctl ] && return; sleep 0.1; done
  echo "tiercached did not start: $(tail -3 d.log)" >&2; exit 1
}

# env_ab ROUNDS VAR OFF_LABEL ON_LABEL JQ_PATH CELL...: an A/B of one of tiercached's environment
# switches over a warm volume: ROUNDS times, the daemon restarted without VAR, then with VAR=1 in
# its environment (ORDER="on off" reverses the turn), each time running every CELL
# ("NAME:RW:BS:QD") through read_cell, labelled OFF_LABEL or ON_LABEL, with JQ_PATH as its counter.
env_ab() {
  local rounds=$1 var=$2 off=$3 on=$4 path=$5 mode label cell name rw bs qd
  shift 5
  warm_volume
  for _ in $(seq "$rounds"); do
    for mode in ${ORDER:-off on}; do
      stop_daemon
      label=$off
      if [ "$mode" = on ]; then export "$var=1"; label=$on; fi
      start_daemon
      unset "$var"
      for cell in "$@"; do
        IFS=: read -r name rw bs qd <<<"$cell"
        read_cell "$label" "$name" "$rw" "$bs" "$qd" "$path"
      done
    done
  done
}

stop_daemon() {
  [ -n "$PID" ] && kill "$PID" && wait "$PID" 2>/dev/null
  PID=""
}

# fio_nbd RW [FIO OPTIONS...]: runs fio through the volume; prints the IOPS of RW's direction.
fio_nbd() {
  local rw=$1; shift
  fio --name=w --ioengine=nbd --uri="$URI" --rw="$rw" --output-format=json --output=f.json "$@" \
      >/dev/null 2>&1 || { echo "fio failed" >&2; exit 1; }
  jq ".jobs[0].${rw#rand}.iops|floor" f.json
}

# warm_volume [TIERCACHED OPTIONS...]: a 2 GiB cache file over a 1 GiB core file (wt, admit all,
# no bypass), served, with every block cached by four sequential passes.
warm_volume() {
  rm -f ssd hdd; truncate -s 2G ssd; truncate -s 1G hdd
  "$CLI" create --cache ssd --core hdd --mode wt --admission always --seq-cutoff 0 --force \
      >/dev/null || exit 1
  start_daemon "$@"
  for _ in 1 2 3 4; do
    fio --name=w --ioengine=nbd --uri="$URI" --rw=read --bs=1M --iodepth=8 --output=/dev/null \
        >/dev/null 2>&1
  done
}

# read_cell LABEL NAME RW BS QD [JQ_PATH]: 6 s of fio reads through the volume. Prints the IOPS,
# fio's mean latency and, per request, the daemon's CPU (/proc), system calls of all its threads
# (perf stat), context switches, and the growth of `tiercache status --json` field JQ_PATH.
# With DISK set (e.g. DISK=vda) to a disk /proc/diskstats lists, also the disk's reads in the
# cell and its mean time per read (the time from dispatch to completion, queueing in the device
# included); a name it does not list prints no disk figures.
read_cell() {
  local label=$1 name=$2 rw=$3 bs=$4 qd=$5 path=${6:-.ok} t0 c0 s0 t1 c1 s1
  ticks() { awk '{print $14+$15}' /proc/"$PID"/stat; }
  switches() { cat /proc/"$PID"/task/*/status | awk '/ctxt_switches/ {s += $2} END {print s}'; }
  counter() { "$CLI" status --control c.ctl --json | jq "$path | tonumber? // 0"; }
  disk() { awk -v d="${DISK:-none}" '$3 == d {print $4, $7}' /proc/diskstats; }
  local d0 d1
  t0=$(ticks) c0=$(switches) s0=$(counter) d0=$(disk)
  perf stat -e raw_syscalls:sys_enter -p "$PID" -x, -o ps.txt -- sleep 6.5 &
  local pp=$!
  fio --name=w --ioengine=nbd --uri="$URI" --rw="$rw" --bs="$bs" --iodepth="$qd" --time_based \
      --runtime=6 --size=1G --output-format=json --output=f.json >/dev/null 2>&1
  wait "$pp"
  t1=$(ticks) c1=$(switches) s1=$(counter) d1=$(disk)
  if [ -n "$d0" ] && [ -n "$d1" ]; then
    # shellcheck disable=SC2086  # "reads ms" pairs
    set -- $d0 $d1
    awk -v r="$(($3 - $1))" -v ms="$(($4 - $2))" \
        'BEGIN { printf "      disk: %d reads, %.0f us per read; ", r, r ? ms * 1000 / r : 0 }'
  fi
  awk -v m="$label" -v n="$name" -v ios="$(jq '.jobs[0].read.total_ios' f.json)" \
      -v t="$((t1 - t0))" -v c="$((c1 - c0))" -v k="$((s1 - s0))" \
      -v sys="$(cut -d, -f1 ps.txt | grep -E '^[0-9]+$')" \
      -v iops="$(jq '.jobs[0].read.iops' f.json)" -v lat="$(jq '.jobs[0].read.clat_ns.mean' f.json)" \
      'BEGIN { printf "%-5s %-8s %8.0f IOPS %7.1f us  cpu/req %7.1f us  syscalls/req %5.2f  ctx/req %5.3f  counter/req %5.2f\n",
               m, n, iops, lat / 1000, t * 10000 / ios, sys / ios, c / ios, k / ios }'
}

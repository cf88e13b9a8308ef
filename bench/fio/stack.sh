#!/usr/bin/env bash
# Starts and stops one `tiercache-bench --realtime` setup as real processes, for fio's nbd engine
# (docs/bench.md, "Real time"). All files live in DIR (sparse images, sockets, logs).
#
#   bench/fio/stack.sh start SETUP DIR    prints the NBD URI to run fio against
#   bench/fio/stack.sh stats DIR          prints `tiercache stats --json` of the daemon
#   bench/fio/stack.sh stop DIR           stops everything started in DIR
#
# SETUP:
#   hdd           tiercached in pt (pass-through) mode with --core-model $TC_HDD_MODEL: the
#                 modelled HDD alone
#   ssd           tiercached in pt mode with --core-model $TC_SSD_MODEL: the modelled SSD alone
#   wt, wb        a tiercache in that mode: --cache-model $TC_SSD_MODEL over a $TC_CACHE_SIZE
#                 cache file, --core-model $TC_HDD_MODEL, and the tiercached flags in
#                 $TC_CACHE_ARGS (shell words, e.g. "--admission always --cleaning nop")
#   nbdkit-cache  the hdd setup with nbdkit's cache filter in front (cache=writeback
#                 cache-on-read=true), see ../shared/notes/peers.md
# Environment: TIERCACHE_BUILD_DIR (default build/), TC_DISK_SIZE (bytes, default 4 GiB),
# TC_CACHE_SIZE (default 512 MiB), TC_HDD_MODEL (hdd7200), TC_SSD_MODEL (sata-ssd).
set -euo pipefail
export PATH="/usr/bin:/bin:/usr/sbin:/sbin:$PATH"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${TIERCACHE_BUILD_DIR:-$SRC/build}"
TIERCACHED="$BUILD/daemon/tiercached/tiercached"
TIERCACHE="$BUILD/tools/tiercache"

die() { echo "stack.sh: $*" >&2; exit 1; }

wait_for() {  # wait_for SECONDS CONDITION...
  local n=$(($1 * 10)) i
  shift
  for ((i = 0; i < n; i++)); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  return 1
}
pid_ready() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  local setup="$1" dir="$2" mode=pt core_model="${TC_HDD_MODEL:-hdd7200}" cache_model=""
  case "$setup" in
    hdd | nbdkit-cache) ;;
    ssd) core_model="${TC_SSD_MODEL:-sata-ssd}" ;;
    wt | wb) mode="$setup" cache_model="${TC_SSD_MODEL:-sata-ssd}" ;;
    *) die "unknown setup '$setup' (hdd, ssd, wt, wb, nbdkit-cache)" ;;
  esac
  [ -x "$TIERCACHED" ] && [ -x "$TIERCACHE" ] || die "build tiercached and tiercache in $BUILD"
  if [ "$setup" = nbdkit-cache ]; then
    command -v nbdkit >/dev/null || die "NotSupported: nbdkit is not installed"
  fi
  mkdir -p "$dir"
  rm -f "$dir"/*.img "$dir"/*.sock "$dir"/*.pid
  truncate -s "${TC_DISK_SIZE:-4294967296}" "$dir/hdd.img"
  truncate -s "${TC_CACHE_SIZE:-536870912}" "$dir/ssd.img"
  "$TIERCACHE" create --cache "$dir/ssd.img" --core "$dir/hdd.img" --mode "$mode" >/dev/null
  local args=(--cache "$dir/ssd.img" --buffered --foreground --socket "$dir/tiercached.sock"
              --control "$dir/tiercached.ctl" --pidfile "$dir/tiercached.pid"
              --core-model "$core_model")
  if [ -n "$cache_model" ]; then
    local extra=()
    eval "extra=(${TC_CACHE_ARGS:-})"
    args+=(--cache-model "$cache_model" "${extra[@]}")
  fi
  setsid "$TIERCACHED" "${args[@]}" </dev/null >>"$dir/tiercached.log" 2>&1 &
  wait_for 30 pid_ready "$dir/tiercached.pid" || die "tiercached did not start: $(cat "$dir/tiercached.log")"
  local sock="$dir/tiercached.sock"
  if [ "$setup" = nbdkit-cache ]; then
    # nbdkit detaches by itself once it listens (and writes the pidfile).
    nbdkit -U "$dir/nbdkit.sock" -P "$dir/nbdkit.pid" --log=stderr --filter=cache \
      nbd socket="$sock" cache=writeback cache-on-read=true </dev/null >>"$dir/nbdkit.log" 2>&1 ||
      die "nbdkit did not start: $(cat "$dir/nbdkit.log")"
    wait_for 30 pid_ready "$dir/nbdkit.pid" || die "nbdkit did not start: $(cat "$dir/nbdkit.log")"
    sock="$dir/nbdkit.sock"
  fi
  echo "nbd+unix:///?socket=$sock"
}

stop_pid() {  # stop_pid PIDFILE: SIGTERM, wait up to 30 s
  [ -s "$1" ] || return 0
  local pid
  pid="$(cat "$1")"
  kill -TERM "$pid" 2>/dev/null || return 0
  wait_for 30 eval "! kill -0 $pid 2>/dev/null" || die "process $pid did not exit"
}

stop() {
  local dir="$1"
  stop_pid "$dir/nbdkit.pid"
  if [ -S "$dir/tiercached.ctl" ] && [ -s "$dir/tiercached.pid" ]; then
    local pid
    pid="$(cat "$dir/tiercached.pid")"
    "$TIERCACHE" stop --control "$dir/tiercached.ctl" >/dev/null || kill -TERM "$pid" || true
    wait_for 60 eval "! kill -0 $pid 2>/dev/null" || die "tiercached $pid did not exit"
  fi
  rm -f "$dir"/*.img
}

case "${1:-}" in
  start) [ $# = 3 ] || die "usage: stack.sh start SETUP DIR"; start "$2" "$3" ;;
  stats) [ $# = 2 ] || die "usage: stack.sh stats DIR"; "$TIERCACHE" stats --json --control "$2/tiercached.ctl" ;;
  stop) [ $# = 2 ] || die "usage: stack.sh stop DIR"; stop "$2" ;;
  *) die "usage: stack.sh start SETUP DIR | stats DIR | stop DIR" ;;
esac

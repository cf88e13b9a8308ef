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

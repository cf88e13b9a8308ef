#!/usr/bin/env bash
# tiercached next to its peers, in one run on the same disk (a benchmark, not a test: it prints a
# table and the ratios to the targets of issue 3; see docs/performance.md).
#
#   bench/nbd/run-peers.sh [--dir DIR] [--size SIZE] [--runtime S] [--ramp S] [--rounds N]
#                          [--threads N] [--build-dir DIR] [--json FILE]
#
# Setups (all fio; each NBD setup on its own Unix socket, fio's nbd engine, one connection):
#   raw      fio libaio, O_DIRECT, on the cache file's data region (the very bytes tiercached
#            serves its hits from)
#   tc       tiercached (O_DIRECT, default threads) over that cache file, warm: every line of
#            the volume is cached; the core is a second file
#   nbdfile  `nbdkit file CACHEFILE cache=none` on the same data region
#   nbdcache nbdkit's cache filter (cache-on-read, writeback) over the core file; its cache is
#            a page-cached temporary file in DIR: a RAM-speed reference, not a target
# Every file is fully written first (a sparse file reads holes for free). Read tests run in
# rounds, setups interleaved, and the median of the rounds is printed; then the write test
# (4 KiB random writes QD32; tiercached in wb, raw and nbdkit file on a scratch file).
set -euo pipefail

SRC_DIR="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD_DIR="${TIERCACHE_BUILD_DIR:-$SRC_DIR/build}"
DIR=""
SIZE=1G
RUNTIME=5
RAMP=1
ROUNDS=3
THREADS=""
JSON_OUT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR="$2"; shift 2 ;;
    --size) SIZE="$2"; shift 2 ;;
    --runtime) RUNTIME="$2"; shift 2 ;;
    --ramp) RAMP="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --build-dir) BUILD_DIR="$2"; shift 2 ;;
    --json) JSON_OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run-peers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
export PATH="/usr/bin:/bin:$PATH"
TIERCACHED="$BUILD_DIR/daemon/tiercached/tiercached"
TIERCACHE="$BUILD_DIR/tools/tiercache"
for tool in "$TIERCACHED" "$TIERCACHE"; do
  [ -x "$tool" ] || { echo "run-peers.sh: $tool not built (--build-dir)" >&2; exit 1; }
done
for tool in fio nbdkit jq; do
  command -v "$tool" >/dev/null || { echo "run-peers.sh: $tool is missing" >&2; exit 1; }
done

BYTES="$(numfmt --from=iec "$SIZE")"
[ -n "$DIR" ] || DIR="$(mktemp -d "${TMPDIR:-/var/tmp}/tiercache-peers.XXXXXX")"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
export TIERCACHE_RUN_DIR="$DIR/run"
RESULTS="$DIR/results"  # one line per run: test setup round iops bw_bytes lat_us p99_us
: >"$RESULTS"
PIDS=()

cleanup() {
  local pid
  if [ -S "$TIERCACHE_RUN_DIR/ssd.img.ctl" ]; then
    "$TIERCACHE" stop --control "$TIERCACHE_RUN_DIR/ssd.img.ctl" >/dev/null 2>&1 || true
  fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "$DIR"/*.img "$DIR"/nbdkit* 2>/dev/null || true
}
trap cleanup EXIT

log() { echo "run-peers: $*" >&2; }

fill() {  # FILE BYTES: write every byte (fio's default buffers are random)
  fio --name=fill --filename="$1" --size="$2" --rw=write --bs=1M --iodepth=16 \
      --ioengine=libaio --direct=1 --output=/dev/null
}

wait_for() {  # FILE PID: until FILE exists (pidfile) or PID died
  local i
  for ((i = 0; i < 600; i++)); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || { echo "run-peers.sh: process $2 died" >&2; exit 1; }
    sleep 0.1
  done
  echo "run-peers.sh: timed out waiting for $1" >&2
  exit 1
}

start_nbdkit() {  # NAME NBDKIT-ARGS...: serve on $DIR/NAME.sock
  local name="$1"
  shift
  rm -f "$DIR/$name.pid"
  TMPDIR="$DIR" nbdkit -f -U "$DIR/$name.sock" -P "$DIR/$name.pid" "$@" &
  PIDS+=($!)
  wait_for "$DIR/$name.pid" $!
}

uri() { echo "nbd+unix:///?socket=$1"; }

# --- setup ------------------------------------------------------------------------------------
LINE=$((64 << 10))
log "filling files in $DIR (${SIZE} each)"
fill "$DIR/hdd.img" "$BYTES"
# The cache file: the data region plus room for metadata, all of it written before the format
# (which writes only the metadata), so no read anywhere hits a hole.
fill "$DIR/ssd.img" $((BYTES + (64 << 20)))
fill "$DIR/scratch.img" "$BYTES"
created="$("$TIERCACHE" create --cache "$DIR/ssd.img" --core "$DIR/hdd.img" --mode wt --force --json)"
DATA_OFF="$(jq -r .data_offset <<<"$created")"
LINES="$(jq -r .line_count <<<"$created")"
[ "$LINES" -ge $((BYTES / LINE)) ] || { echo "cache too small: $created" >&2; exit 1; }

tc_args=(--cache "$DIR/ssd.img" --pidfile "$DIR/tiercached.pid")
[ -z "$THREADS" ] || tc_args+=(--threads "$THREADS")
"$TIERCACHED" "${tc_args[@]}"
CTL="$TIERCACHE_RUN_DIR/ssd.img.ctl"
TC_URI="$(uri "$TIERCACHE_RUN_DIR/ssd.img.sock")"
start_nbdkit nbdfile file "$DIR/ssd.img" cache=none
start_nbdkit nbdcache --filter=cache file "$DIR/hdd.img" cache=writeback cache-on-read=true

tc_stat() { "$TIERCACHE" stats --json --control "$CTL" | jq -r ".stats.$1"; }

# fio on one setup; appends "TEST SETUP ROUND iops bw lat_us p99_us" to $RESULTS.
run_fio() {
  local test="$1" setup="$2" round="$3"
  shift 3
  local target=()
  case "$setup" in
    raw) target=(--ioengine=libaio --direct=1 --filename="$DIR/ssd.img" --offset="$DATA_OFF") ;;
    rawscratch) target=(--ioengine=libaio --direct=1 --filename="$DIR/scratch.img") ;;
    tc) target=(--ioengine=nbd --uri="$TC_URI") ;;
    nbdfile) target=(--ioengine=nbd --uri="$(uri "$DIR/nbdfile.sock")" --offset="$DATA_OFF") ;;
    nbdscratch) target=(--ioengine=nbd --uri="$(uri "$DIR/nbdscratch.sock")") ;;
    nbdcache) target=(--ioengine=nbd --uri="$(uri "$DIR/nbdcache.sock")") ;;
  esac
  local out="$DIR/fio-$test-$setup-$round.json"
  fio --name="$test" "${target[@]}" --size="$BYTES" --time_based --runtime="$RUNTIME" \
      --ramp_time="$RAMP" --norandommap --randrepeat=0 --output-format=json --output="$out" "$@"
  local dir=read
  if [ "$(jq -r '.jobs[0].write.io_bytes' "$out")" != 0 ]; then dir=write; fi
  jq -r --arg t "$test" --arg s "$setup" --arg r "$round" ".jobs[0].$dir |
    [\$t, \$s, \$r, .iops, .bw_bytes, .lat_ns.mean / 1000,
     (.clat_ns.percentile[\"99.000000\"] // 0) / 1000] | @tsv" "$out" >>"$RESULTS"
}

randread32=(--rw=randread --bs=4k --iodepth=32)
randread1=(--rw=randread --bs=4k --iodepth=1)
seqread8=(--rw=read --bs=1M --iodepth=8)
randwrite32=(--rw=randwrite --bs=4k --iodepth=32)

# Warm: one sequential pass through tiercached (every line filled) and nbdkit's cache filter.
log "warming the caches"
for setup in tc nbdcache; do run_fio warm "$setup" 0 "${seqread8[@]}" --time_based=0 --runtime=0; done
used="$(tc_stat lines_used)"
[ "$used" -ge $((BYTES / LINE)) ] || { echo "tiercached not warm: $used lines used" >&2; exit 1; }
log "tiercached warm: $used lines cached; load average $(cut -d' ' -f1-3 /proc/loadavg)"

misses0="$(tc_stat read_misses)"
partial0="$(tc_stat read_partial_hits)"
for ((round = 1; round <= ROUNDS; round++)); do
  for test in randread32 randread1 seqread8; do
    declare -n args="$test"
    for setup in raw tc nbdfile nbdcache; do
      log "round $round/$ROUNDS: $test on $setup"
      run_fio "$test" "$setup" "$round" "${args[@]}"
    done
  done
done
TC_MISSES=$(($(tc_stat read_misses) - misses0 + $(tc_stat read_partial_hits) - partial0))

# Writes: tiercached in wb over its warm lines; raw and nbdkit file on a scratch file of the
# same size on the same disk; nbdkit's cache filter in writeback.
"$TIERCACHE" mode wb --control "$CTL" >/dev/null
start_nbdkit nbdscratch file "$DIR/scratch.img" cache=none
for ((round = 1; round <= ROUNDS; round++)); do
  for setup in rawscratch tc nbdscratch nbdcache; do
    log "round $round/$ROUNDS: randwrite32 on $setup"
    run_fio randwrite32 "$setup" "$round" "${randwrite32[@]}"
  done
done
TC_DIRTY="$(tc_stat lines_dirty)"
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- report -----------------------------------------------------------------------------------
median() {  # TEST SETUP COLUMN(4 iops, 5 bw, 6 lat, 7 p99)
  awk -v t="$1" -v s="$2" -v c="$3" '$1 == t && $2 == s { print $c }' "$RESULTS" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
                             else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
fmt_iops() { awk -v v="$1" 'BEGIN { printf "%.1fk", v / 1000 }'; }
fmt_bw() { awk -v v="$1" 'BEGIN { printf "%.2f GB/s", v / 1e9 }'; }
fmt_us() { awk -v v="$1" 'BEGIN { printf "%.1f us", v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "met" : "MISSED") }'; }

rr_raw=$(median randread32 raw 4); rr_tc=$(median randread32 tc 4)
rr_file=$(median randread32 nbdfile 4); rr_cache=$(median randread32 nbdcache 4)
l_raw=$(median randread1 raw 6); l_tc=$(median randread1 tc 6)
l_file=$(median randread1 nbdfile 6); l_cache=$(median randread1 nbdcache 6)
p_raw=$(median randread1 raw 7); p_tc=$(median randread1 tc 7)
s_raw=$(median seqread8 raw 5); s_tc=$(median seqread8 tc 5)
s_file=$(median seqread8 nbdfile 5); s_cache=$(median seqread8 nbdcache 5)
w_raw=$(median randwrite32 rawscratch 4); w_tc=$(median randwrite32 tc 4)
w_file=$(median randwrite32 nbdscratch 4); w_cache=$(median randwrite32 nbdcache 4)

cat <<EOF

tiercached vs peers: $(nproc) CPUs, $(uname -r), $(fio --version), $(nbdkit --version | head -1)
volume $SIZE, ${ROUNDS} rounds of ${RUNTIME} s (+${RAMP} s ramp) per cell, medians; load average
at the end $LOAD_END; tiercached misses during the read tests: $TC_MISSES; dirty lines after the
write test: $TC_DIRTY

| test | raw libaio | tiercached | nbdkit file | nbdkit cache filter | tiercached / raw | tiercached / nbdkit file | tiercached / cache filter |
|---|---|---|---|---|---|---|---|
| 4K randread QD32 IOPS | $(fmt_iops "$rr_raw") | $(fmt_iops "$rr_tc") | $(fmt_iops "$rr_file") | $(fmt_iops "$rr_cache") | $(ratio "$rr_tc" "$rr_raw") | $(ratio "$rr_tc" "$rr_file") | $(ratio "$rr_tc" "$rr_cache") |
| 4K randread QD1 mean latency | $(fmt_us "$l_raw") | $(fmt_us "$l_tc") | $(fmt_us "$l_file") | $(fmt_us "$l_cache") | +$(awk -v a="$l_tc" -v b="$l_raw" 'BEGIN { printf "%.1f us", a - b }') | | |
| 4K randread QD1 p99 latency | $(fmt_us "$p_raw") | $(fmt_us "$p_tc") | | | +$(awk -v a="$p_tc" -v b="$p_raw" 'BEGIN { printf "%.1f us", a - b }') | | |
| 1M seq read QD8 | $(fmt_bw "$s_raw") | $(fmt_bw "$s_tc") | $(fmt_bw "$s_file") | $(fmt_bw "$s_cache") | $(ratio "$s_tc" "$s_raw") | $(ratio "$s_tc" "$s_file") | $(ratio "$s_tc" "$s_cache") |
| 4K randwrite QD32 IOPS (tiercached wb) | $(fmt_iops "$w_raw") | $(fmt_iops "$w_tc") | $(fmt_iops "$w_file") | $(fmt_iops "$w_cache") | $(ratio "$w_tc" "$w_raw") | $(ratio "$w_tc" "$w_file") | $(ratio "$w_tc" "$w_cache") |

| target | measured | verdict |
|---|---|---|
| 4K randread QD32 >= 0.9x raw libaio | $(ratio "$rr_tc" "$rr_raw") | $(verdict "$(awk -v a="$rr_tc" -v b="$rr_raw" 'BEGIN { print (a >= 0.9 * b) }')") |
| 4K randread QD32 >= 2x nbdkit file | $(ratio "$rr_tc" "$rr_file") | $(verdict "$(awk -v a="$rr_tc" -v b="$rr_file" 'BEGIN { print (a >= 2 * b) }')") |
| QD1 latency <= raw + 15 us | +$(awk -v a="$l_tc" -v b="$l_raw" 'BEGIN { printf "%.1f us", a - b }') | $(verdict "$(awk -v a="$l_tc" -v b="$l_raw" 'BEGIN { print (a <= b + 15) }')") |
| 1M seq read QD8 >= 0.9x raw | $(ratio "$s_tc" "$s_raw") | $(verdict "$(awk -v a="$s_tc" -v b="$s_raw" 'BEGIN { print (a >= 0.9 * b) }')") |
EOF
if [ -n "$JSON_OUT" ]; then
  jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], setup: .[1], round: (.[2] | tonumber), iops: (.[3] | tonumber),
     bw_bytes: (.[4] | tonumber), lat_us: (.[5] | tonumber), p99_us: (.[6] | tonumber)})' \
    "$RESULTS" >"$JSON_OUT"
fi

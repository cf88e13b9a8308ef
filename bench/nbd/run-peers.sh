#!/usr/bin/env bash
# tiercached next to its peers, in one run on the same disk. A benchmark, not a test: it prints
# a table and the ratios to the targets of issue 3 (docs/performance.md has results).
#
#   bench/nbd/run-peers.sh [--dir DIR] [--size SIZE] [--runtime S] [--ramp S] [--rounds N]
#                          [--threads N] [--build-dir DIR] [--json FILE]
#                          [--tiercached-args "ARGS"]   (extra daemon options, e.g. "--poll-us 50")
#
# Setups: fio 3.33; NBD setups through fio's nbd engine (libnbd), one connection, Unix socket.
#   raw       fio libaio, O_DIRECT, on the cache file's data region: the bytes tiercached serves
#             its hits from
#   tiercached  over that cache file (O_DIRECT), warm: every line of the volume is cached;
#             its core is a second file of the volume's size
#   nbdkit-file `nbdkit file CACHEFILE cache=none` on the same data region
#   cache-filter  nbdkit's cache filter (cache-on-read, writeback) over the core file; its cache
#             is a page-cached temporary file in DIR: a RAM-speed reference, not a target
#   nbd-mem   our NBD server (daemon/nbd nbd_test_server) over RAM: the NBD transport floor,
#             no engine and no disk
#   nbdkit-mem `nbdkit memory`: the same floor for nbdkit
# Every file and memory export is fully written first (holes read for free). Read tests run in
# rounds with the setups interleaved, and the median of the rounds is printed. Then 4 KiB
# random writes QD32: tiercached in wb over its warm lines, raw and nbdkit file on a scratch
# file of the same size, the cache filter in writeback.
# On a shared machine run it with priority, e.g. `nice -n -10 bench/nbd/run-peers.sh`.
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
TC_EXTRA=""
usage() { sed -n '2,28p' "$0"; }
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
    --tiercached-args) TC_EXTRA="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run-peers.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
export PATH="/usr/bin:/bin:$PATH"
TIERCACHED="$BUILD_DIR/daemon/tiercached/tiercached"
TIERCACHE="$BUILD_DIR/tools/tiercache"
NBD_TEST_SERVER="$BUILD_DIR/daemon/nbd/nbd_test_server"
for tool in "$TIERCACHED" "$TIERCACHE" "$NBD_TEST_SERVER"; do
  [ -x "$tool" ] || { echo "run-peers.sh: $tool is not built (see --build-dir)" >&2; exit 1; }
done
for tool in fio nbdkit jq numfmt; do
  command -v "$tool" >/dev/null || { echo "run-peers.sh: $tool is missing" >&2; exit 1; }
done

BYTES="$(numfmt --from=iec "$SIZE")"
OWN_DIR=0
if [ -z "$DIR" ]; then
  DIR="$(mktemp -d "${TMPDIR:-/var/tmp}/tiercache-peers.XXXXXX")"
  OWN_DIR=1
fi
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
export TIERCACHE_RUN_DIR="$DIR/run"
CTL="$TIERCACHE_RUN_DIR/ssd.img.ctl"
RESULTS="$DIR/results.tsv"  # test setup round iops bw_bytes lat_us p99_us
: >"$RESULTS"
COSTS="$DIR/costs.tsv"  # test round cpu_us faults ctxsw (tiercached, per request)
: >"$COSTS"
PIDS=()

cleanup() {
  local pid
  if [ -S "$CTL" ]; then "$TIERCACHE" stop --control "$CTL" >/dev/null 2>&1 || true; fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "$DIR"/*.img "$DIR"/nbdkit* 2>/dev/null || true
  if [ "$OWN_DIR" = 1 ]; then rm -rf "$DIR"; fi  # --json keeps the figures
}
trap cleanup EXIT

log() { echo "run-peers: $*" >&2; }
uri() { echo "nbd+unix:///?socket=$DIR/$1.sock"; }

wait_for() {  # FILE PID: until FILE (a pidfile) is written, or PID died
  local i
  for ((i = 0; i < 600; i++)); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || { echo "run-peers.sh: process $2 died" >&2; exit 1; }
    sleep 0.1
  done
  echo "run-peers.sh: timed out waiting for $1" >&2
  exit 1
}

start_bg() {  # NAME CMD...: a server in the background that writes $DIR/NAME.pid when ready
  local name="$1"
  shift
  rm -f "$DIR/$name.pid"
  TMPDIR="$DIR" "$@" &
  PIDS+=($!)
  wait_for "$DIR/$name.pid" $!
}

tc_stat() { "$TIERCACHE" stats --json --control "$CTL" | jq -r ".stats.$1"; }

# tiercached's cost so far: "CPU_US MINOR_FAULTS CONTEXT_SWITCHES REQUESTS", from /proc (all
# threads) and its request counters. Differences over one fio run give the cost per request:
# figures of CPU work that noise on a shared machine moves far less than throughput.
tc_cost() {
  local pid cpu faults cs=0 t
  pid="$(cat "$DIR/tiercached.pid")"
  read -r cpu faults < <(awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1e6 / hz, $10 }' \
                          "/proc/$pid/stat")
  for t in /proc/"$pid"/task/*/status; do
    cs=$((cs + $(awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' "$t")))
  done
  local requests
  requests="$("$TIERCACHE" stats --json --control "$CTL" | jq '.stats | .read_hits +
    .read_partial_hits + .read_misses + .read_bypasses + .write_hits + .write_misses +
    .write_bypasses')"
  echo "$cpu $faults $cs $requests"
}

# fio on one setup; appends "TEST SETUP ROUND iops bw_bytes lat_us p99_us" to $RESULTS.
run_fio() {
  local test="$1" setup="$2" round="$3"
  shift 3
  local target=()
  case "$setup" in
    raw) target=(--ioengine=libaio --direct=1 --filename="$DIR/ssd.img" --offset="$DATA_OFF") ;;
    raw-scratch) target=(--ioengine=libaio --direct=1 --filename="$DIR/scratch.img") ;;
    tiercached) target=(--ioengine=nbd --uri="nbd+unix:///?socket=$TIERCACHE_RUN_DIR/ssd.img.sock") ;;
    nbdkit-file) target=(--ioengine=nbd --uri="$(uri nbdkit-file)" --offset="$DATA_OFF") ;;
    *) target=(--ioengine=nbd --uri="$(uri "$setup")") ;;
  esac
  local out="$DIR/fio-$test-$setup-$round.json" before=""
  if [ "$setup" = tiercached ]; then before="$(tc_cost)"; fi
  fio --name="$test" "${target[@]}" --size="$BYTES" --time_based --runtime="$RUNTIME" \
      --ramp_time="$RAMP" --norandommap --randrepeat=0 --output-format=json --output="$out" "$@"
  if [ -n "$before" ]; then
    echo "$before $(tc_cost)" | awk -v t="$test" -v r="$round" '$8 > $4 {
      n = $8 - $4; printf "%s\t%s\t%.2f\t%.4f\t%.3f\n", t, r, ($5 - $1) / n, ($6 - $2) / n, ($7 - $3) / n
    }' >>"$COSTS"
  fi
  local dir=read
  if [ "$(jq -r '.jobs[0].write.io_bytes' "$out")" != 0 ]; then dir=write; fi
  jq -r --arg t "$test" --arg s "$setup" --arg r "$round" ".jobs[0].$dir |
    [\$t, \$s, \$r, .iops, .bw_bytes, .lat_ns.mean / 1000,
     (.clat_ns.percentile[\"99.000000\"] // 0) / 1000] | @tsv" "$out" >>"$RESULTS"
}

RANDREAD32=(--rw=randread --bs=4k --iodepth=32)
RANDREAD1=(--rw=randread --bs=4k --iodepth=1)
SEQREAD8=(--rw=read --bs=1M --iodepth=8)
RANDWRITE32=(--rw=randwrite --bs=4k --iodepth=32)
SEQWRITE=(--rw=write --bs=1M --iodepth=8 --time_based=0 --runtime=0 --ramp_time=0)
SEQREAD_ONCE=(--rw=read --bs=1M --iodepth=8 --time_based=0 --runtime=0 --ramp_time=0)
READ_SETUPS=(raw tiercached nbdkit-file cache-filter nbd-mem nbdkit-mem)
WRITE_SETUPS=(raw-scratch tiercached nbdkit-scratch cache-filter)

# --- setup ------------------------------------------------------------------------------------
log "filling the files in $DIR ($SIZE each)"
fill() { fio --name=fill --filename="$1" --size="$2" "${SEQWRITE[@]}" --ioengine=libaio \
             --direct=1 --output=/dev/null; }
fill "$DIR/hdd.img" "$BYTES"
# The cache file: room for the metadata and every line, all written before the format (which
# writes only the metadata), so that no read anywhere hits a hole.
fill "$DIR/ssd.img" $((BYTES + (64 << 20)))
fill "$DIR/scratch.img" "$BYTES"
# Sequential bypass off: the warm-up is one sequential pass, and every block must end up cached.
created="$("$TIERCACHE" create --cache "$DIR/ssd.img" --core "$DIR/hdd.img" --mode wt --force \
           --seq-cutoff 0 --json)"
DATA_OFF="$(jq -r .data_offset <<<"$created")"
LINE="$(jq -r .line_size <<<"$created")"

tc_args=(--cache "$DIR/ssd.img" --pidfile "$DIR/tiercached.pid")
[ -z "$THREADS" ] || tc_args+=(--threads "$THREADS")
read -r -a extra <<<"$TC_EXTRA"
tc_args+=("${extra[@]}")
"$TIERCACHED" "${tc_args[@]}"  # detaches once it serves
start_bg nbdkit-file nbdkit -f -U "$DIR/nbdkit-file.sock" -P "$DIR/nbdkit-file.pid" \
    file "$DIR/ssd.img" cache=none
start_bg nbdkit-scratch nbdkit -f -U "$DIR/nbdkit-scratch.sock" -P "$DIR/nbdkit-scratch.pid" \
    file "$DIR/scratch.img" cache=none
start_bg cache-filter nbdkit -f -U "$DIR/cache-filter.sock" -P "$DIR/cache-filter.pid" \
    --filter=cache file "$DIR/hdd.img" cache=writeback cache-on-read=true
start_bg nbd-mem "$NBD_TEST_SERVER" --socket "$DIR/nbd-mem.sock" --pidfile "$DIR/nbd-mem.pid" \
    --memory "$SIZE"
start_bg nbdkit-mem nbdkit -f -U "$DIR/nbdkit-mem.sock" -P "$DIR/nbdkit-mem.pid" memory "$SIZE"

log "warming: one sequential pass through tiercached and the cache filter; filling RAM exports"
run_fio warm tiercached 0 "${SEQREAD_ONCE[@]}"
run_fio warm cache-filter 0 "${SEQREAD_ONCE[@]}"
run_fio fill nbd-mem 0 "${SEQWRITE[@]}"
run_fio fill nbdkit-mem 0 "${SEQWRITE[@]}"
used="$(tc_stat lines_used)"
[ "$used" -ge $((BYTES / LINE)) ] || { echo "tiercached not warm: $used lines used" >&2; exit 1; }
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- measure ----------------------------------------------------------------------------------
misses0=$(($(tc_stat read_misses) + $(tc_stat read_partial_hits)))
for ((round = 1; round <= ROUNDS; round++)); do
  for test in RANDREAD32 RANDREAD1 SEQREAD8; do
    declare -n args="$test"
    for setup in "${READ_SETUPS[@]}"; do
      log "round $round/$ROUNDS: $test on $setup"
      run_fio "$test" "$setup" "$round" "${args[@]}"
    done
  done
done
TC_MISSES=$(($(tc_stat read_misses) + $(tc_stat read_partial_hits) - misses0))

"$TIERCACHE" mode wb --control "$CTL" >/dev/null
TC_DIRTY=0
for ((round = 1; round <= ROUNDS; round++)); do
  for setup in "${WRITE_SETUPS[@]}"; do
    log "round $round/$ROUNDS: RANDWRITE32 on $setup"
    run_fio RANDWRITE32 "$setup" "$round" "${RANDWRITE32[@]}"
    if [ "$setup" = tiercached ]; then TC_DIRTY="$(tc_stat lines_dirty)"; fi
  done
done
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- report -----------------------------------------------------------------------------------
median_of_input() {  # the median of the numbers on stdin, one per line; nan for none
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
                                      else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
median() {  # TEST SETUP COLUMN (4 iops, 5 bw, 6 mean latency, 7 p99)
  awk -v t="$1" -v s="$2" -v c="$3" '$1 == t && $2 == s { print $c }' "$RESULTS" | median_of_input
}
calc() { awk "BEGIN { $1 }"; }
cost_median() {  # TEST COLUMN (3 cpu_us, 4 faults, 5 ctxsw)
  awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$COSTS" | median_of_input
}
cost_row() {
  echo "| $1 | $(cost_median "$1" 3) us | $(cost_median "$1" 4) | $(cost_median "$1" 5) |"
}
cell() {  # TEST SETUP KIND
  local v
  case "$3" in
    iops) v="$(median "$1" "$2" 4)"; calc "printf \"%.1fk\", $v / 1000" ;;
    bw) v="$(median "$1" "$2" 5)"; calc "printf \"%.2f GB/s\", $v / 1e9" ;;
    lat) v="$(median "$1" "$2" 6)"; calc "printf \"%.1f us\", $v" ;;
    p99) v="$(median "$1" "$2" 7)"; calc "printf \"%.1f us\", $v" ;;
  esac
}
row() {  # LABEL TEST KIND SETUPS...
  local label="$1" test="$2" kind="$3" line setup
  shift 3
  line="| $label |"
  for setup in "$@"; do line+=" $(cell "$test" "$setup" "$kind") |"; done
  echo "$line"
}
ratio() { calc "printf \"%.2fx\", $1 / $2"; }
verdict() { calc "print (($1) ? \"met\" : \"MISSED\")"; }

rr_raw=$(median RANDREAD32 raw 4); rr_tc=$(median RANDREAD32 tiercached 4)
rr_file=$(median RANDREAD32 nbdkit-file 4); rr_cf=$(median RANDREAD32 cache-filter 4)
l_raw=$(median RANDREAD1 raw 6); l_tc=$(median RANDREAD1 tiercached 6)
l_cf=$(median RANDREAD1 cache-filter 6); l_mem=$(median RANDREAD1 nbd-mem 6)
s_raw=$(median SEQREAD8 raw 5); s_tc=$(median SEQREAD8 tiercached 5)
w_tc=$(median RANDWRITE32 tiercached 4); w_cf=$(median RANDWRITE32 cache-filter 4)

cat <<EOF

tiercached vs peers: $(nproc) CPUs, kernel $(uname -r), $(fio --version), $(nbdkit --version | head -1)
volume $SIZE; $ROUNDS rounds of ${RUNTIME} s (+${RAMP} s ramp) per cell, medians
load average $LOAD_START at the start, $LOAD_END at the end
tiercached misses + partial hits during the read tests: $TC_MISSES
tiercached dirty lines after its last write run: $TC_DIRTY
tiercached options: ${tc_args[*]}

| test | raw libaio | tiercached | nbdkit file | nbdkit cache filter | nbd_test_server RAM | nbdkit memory |
|---|---|---|---|---|---|---|
$(row "4K randread QD32 IOPS" RANDREAD32 iops "${READ_SETUPS[@]}")
$(row "4K randread QD1 mean latency" RANDREAD1 lat "${READ_SETUPS[@]}")
$(row "4K randread QD1 p99 latency" RANDREAD1 p99 "${READ_SETUPS[@]}")
$(row "1M seq read QD8" SEQREAD8 bw "${READ_SETUPS[@]}")
$(row "4K randwrite QD32 IOPS (tiercached in wb)" RANDWRITE32 iops raw-scratch tiercached nbdkit-scratch cache-filter) | |

tiercached's own cost per request (CPU time of all its threads, minor page faults, context
switches; medians of the rounds; /proc and its request counters, including fio's ramp):

| test | CPU per request | page faults per request | context switches per request |
|---|---|---|---|
$(for t in RANDREAD32 RANDREAD1 SEQREAD8 RANDWRITE32; do cost_row "$t"; done)

| target | measured | verdict |
|---|---|---|
| 4K randread QD32 >= 0.9x raw libaio | $(ratio "$rr_tc" "$rr_raw") | $(verdict "$rr_tc >= 0.9 * $rr_raw") |
| 4K randread QD32 >= 2x nbdkit file | $(ratio "$rr_tc" "$rr_file") | $(verdict "$rr_tc >= 2 * $rr_file") |
| QD1 mean latency <= raw + 15 us | +$(calc "printf \"%.1f us\", $l_tc - $l_raw") | $(verdict "$l_tc <= $l_raw + 15") |
| 1M seq read QD8 >= 0.9x raw | $(ratio "$s_tc" "$s_raw") | $(verdict "$s_tc >= 0.9 * $s_raw") |
| reference: hot 4K randread QD32 vs nbdkit cache filter | $(ratio "$rr_tc" "$rr_cf") | |
| reference: hot 4K randread QD1 latency vs nbdkit cache filter | $(ratio "$l_tc" "$l_cf") | |
| reference: NBD round trip alone (nbd_test_server over RAM, QD1) vs the 15 us budget | $(calc "printf \"%.1f us\", $l_mem") | $(calc "print (($l_mem <= 15) ? \"within\" : \"above: the QD1 target is below this machine's NBD floor\")") |
| reference: wb 4K randwrite QD32 vs nbdkit cache filter | $(ratio "$w_tc" "$w_cf") | |
EOF
if [ -n "$JSON_OUT" ]; then
  # {"results": [per fio run], "tiercached_costs": [per tiercached run, per request]}
  results="$(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], setup: .[1], round: (.[2] | tonumber), iops: (.[3] | tonumber),
     bw_bytes: (.[4] | tonumber), lat_us: (.[5] | tonumber), p99_us: (.[6] | tonumber)})' \
    "$RESULTS")"
  costs="$(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], round: (.[1] | tonumber), cpu_us: (.[2] | tonumber),
     page_faults: (.[3] | tonumber), context_switches: (.[4] | tonumber)})' "$COSTS")"
  jq -n --argjson r "$results" --argjson c "$costs" '{results: $r, tiercached_costs: $c}' \
    >"$JSON_OUT"
fi

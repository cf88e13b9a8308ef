#!/usr/bin/env bash
# tiercached next to its peers, in one run on the same disk. A benchmark, not a test: it prints
# a table and the ratios to the targets of issues 3 and 11 (docs/performance.md has results).
#
#   bench/nbd/run-peers.sh [--dir DIR] [--size SIZE] [--runtime S] [--ramp S] [--rounds N]
#                          [--threads N] [--build-dir DIR] [--json FILE]
#                          [--tiercached-args "ARGS"]   (extra daemon options, e.g. "--poll-us 50")
#                          [--io-backends "uring aio"]  (one tiercached per --io-backend, each
#                                                        its own column: setup tiercached-BACKEND)
#                          [--pin-qd1 CPU]  (adds the QD1 cell with fio and the server both on
#                                            CPU: the latency without a cross-CPU wake-up)
#
# Setups: fio 3.33; NBD setups through fio's nbd engine (libnbd), one connection, Unix socket.
#   raw       fio libaio, O_DIRECT, on the cache file's data region: the bytes tiercached serves
#             its hits from
#   tiercached  over that cache file (O_DIRECT), warm: every line of the volume is cached;
#             its core is a second file of the volume's size. With --io-backends, one daemon per
#             backend, each with its own cache and core files (the first one's is raw's file)
#   nbd-direct  our NBD server (daemon/nbd nbd_test_server --direct-file) on the same data
#             region through tiercached's own FileDevice (O_DIRECT, io_uring): tiercached's
#             front-end and device path without the cache engine, so tiercached against it is
#             what the engine costs and it against raw is what NBD costs on this machine
#   nbdkit-file `nbdkit file CACHEFILE cache=none` on the same data region
#   cache-filter  nbdkit's cache filter (cache-on-read, writeback) over the core file; its cache
#             is a page-cached temporary file in DIR: a RAM-speed reference, not a target
#   nbd-mem   our NBD server (daemon/nbd nbd_test_server) over RAM: the NBD transport floor,
#             no engine and no disk
#   nbdkit-mem `nbdkit memory`: the same floor for nbdkit
# Every file and memory export is fully written first (holes read for free). Read tests run in
# rounds with the setups interleaved, and the median of the rounds is printed. Then 4 KiB
# random writes QD32: tiercached in wb over its warm lines, raw, nbd-direct and nbdkit file on a
# scratch file of the same size, the cache filter in writeback. After each tiercached write run
# its dirty lines are flushed (untimed), so that its write-back does not run under the next cell.
# Device queue depth, for raw and each tiercached: the mean number of operations in the kernel
# right after each submission (fio's "IO depths" for raw, bucketed; tiercached's `status` io
# counters for its cache device), and the disk's own mean queue (`aqu-sz` of iostat: weighted
# I/O time over elapsed time in /proc/diskstats, which counts any other I/O on the disk too).
# With --pin-qd1 CPU the QD1 read cell runs a second time with fio and the server's threads on
# that one CPU (taskset), for every read setup. An NBD request wakes the server and its reply
# wakes fio: on a VM whose idle vCPUs halt each such wake-up across CPUs costs tens of
# microseconds, which the pinned cell leaves out (pick the CPU that takes the disk's interrupts,
# /proc/interrupts, or raw fio pays one such wake-up per read too).
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
IO_BACKENDS=""
PIN_CPU=""
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d'; }
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
    --io-backends) IO_BACKENDS="$2"; shift 2 ;;
    --pin-qd1) PIN_CPU="$2"; shift 2 ;;
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
if [ -n "$PIN_CPU" ] && ! taskset -c "$PIN_CPU" true 2>/dev/null; then
  echo "run-peers.sh: --pin-qd1 $PIN_CPU is not a CPU this process may use ($(taskset -p -c $$ |
    sed 's/.*: //'))" >&2
  exit 2
fi
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
RESULTS="$DIR/results.tsv"  # test setup round iops bw_bytes lat_us p99_us
: >"$RESULTS"
COSTS="$DIR/costs.tsv"  # test setup round cpu_us faults ctxsw (tiercached, per request)
: >"$COSTS"
DEPTHS="$DIR/depths.tsv"  # test setup round submit_depth disk_aqu (raw and tiercached)
: >"$DEPTHS"
PIDS=()

# The tiercached setups: "tiercached" (default options), or one per --io-backends entry.
TC_SETUPS=(tiercached)
if [ -n "$IO_BACKENDS" ]; then
  TC_SETUPS=()
  for b in $IO_BACKENDS; do TC_SETUPS+=("tiercached-$b"); done
fi
tc_files() { local b="${1#tiercached}"; echo "${b#-}"; }  # SETUP: "" or the backend
tc_cache() { local b; b="$(tc_files "$1")"; echo "$DIR/ssd${b:+-$b}.img"; }
tc_core() { local b; b="$(tc_files "$1")"; echo "$DIR/hdd${b:+-$b}.img"; }
tc_ctl() { echo "$TIERCACHE_RUN_DIR/$(basename "$(tc_cache "$1")").ctl"; }
tc_sock() { echo "$TIERCACHE_RUN_DIR/$(basename "$(tc_cache "$1")").sock"; }
is_tc() { case "$1" in tiercached*) return 0 ;; esac; return 1; }
RAW_FILE="$(tc_cache "${TC_SETUPS[0]}")"

cleanup() {
  local pid setup
  for setup in "${TC_SETUPS[@]}"; do
    if [ -S "$(tc_ctl "$setup")" ]; then
      "$TIERCACHE" stop --control "$(tc_ctl "$setup")" >/dev/null 2>&1 || true
    fi
  done
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

tc_stat() { "$TIERCACHE" stats --json --control "$(tc_ctl "$1")" | jq -r ".stats.$2"; }

# tiercached's cost so far: "CPU_US MINOR_FAULTS CONTEXT_SWITCHES REQUESTS ROUNDS IN_FLIGHT_SUM",
# from /proc (all threads), its request counters and its cache device's queue counters.
# Differences over one fio run give the cost per request (figures of CPU work that noise on a
# shared machine moves far less than throughput) and the mean device queue depth.
tc_cost() {
  local pid cpu faults cs=0 t
  pid="$(cat "$DIR/$1.pid")"
  read -r cpu faults < <(awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1e6 / hz, $10 }' \
                          "/proc/$pid/stat")
  for t in /proc/"$pid"/task/*/status; do
    cs=$((cs + $(awk '/ctxt_switches/ { s += $2 } END { print s + 0 }' "$t")))
  done
  local requests
  requests="$("$TIERCACHE" stats --json --control "$(tc_ctl "$1")" | jq '.stats | .read_hits +
    .read_partial_hits + .read_misses + .read_bypasses + .write_hits + .write_misses +
    .write_bypasses')"
  echo "$cpu $faults $cs $requests $("$TIERCACHE" status --json --control "$(tc_ctl "$1")" |
    jq -r '.status.io.cache | "\(.rounds // 0) \(.in_flight_sum // 0)"')"
}

# The disk under DIR in /proc/diskstats ("" when it is not there, e.g. overlay filesystems).
DISK="$(basename "$(df --output=source "$DIR" | tail -1)")"
grep -q " $DISK " /proc/diskstats || DISK=""
disk_sample() {  # "WEIGHTED_MS NOW_MS" (field 14 of diskstats: time-weighted I/O time)
  if [ -z "$DISK" ]; then echo "0 0"; return; fi
  echo "$(awk -v d="$DISK" '$3 == d { print $14 }' /proc/diskstats) $(($(date +%s%N) / 1000000))"
}

# pin SETUP CPUS: moves every thread of SETUP's server (none for raw) to CPUS.
pin() {
  [ -s "$DIR/$1.pid" ] || return 0
  taskset -a -p -c "$2" "$(cat "$DIR/$1.pid")" >/dev/null
}
ALL_CPUS="$(taskset -p -c $$ | sed 's/.*: //')"
FIO_PREFIX=()  # e.g. (taskset -c 1) while a pinned cell runs

# fio on one setup; appends "TEST SETUP ROUND iops bw_bytes lat_us p99_us" to $RESULTS.
run_fio() {
  local test="$1" setup="$2" round="$3"
  shift 3
  local target=()
  case "$setup" in
    raw) target=(--ioengine=libaio --direct=1 --filename="$RAW_FILE" --offset="$DATA_OFF") ;;
    raw-scratch) target=(--ioengine=libaio --direct=1 --filename="$DIR/scratch.img") ;;
    tiercached*) target=(--ioengine=nbd --uri="nbd+unix:///?socket=$(tc_sock "$setup")") ;;
    nbdkit-file|nbd-direct) target=(--ioengine=nbd --uri="$(uri "$setup")" --offset="$DATA_OFF") ;;
    *) target=(--ioengine=nbd --uri="$(uri "$setup")") ;;
  esac
  local out="$DIR/fio-$test-$setup-$round.json" before="" disk_before
  if is_tc "$setup"; then before="$(tc_cost "$setup")"; fi
  disk_before="$(disk_sample)"
  "${FIO_PREFIX[@]}" fio --name="$test" "${target[@]}" --size="$BYTES" --time_based \
      --runtime="$RUNTIME" --ramp_time="$RAMP" --norandommap --randrepeat=0 \
      --output-format=json --output="$out" "$@"
  local aqu
  aqu="$(echo "$disk_before $(disk_sample)" |
    awk '$4 > $2 && $1 + $3 > 0 { printf "%.2f", ($3 - $1) / ($4 - $2); next } { print "nan" }')"
  if [ -n "$before" ]; then
    local after
    after="$(tc_cost "$setup")"
    echo "$before $after" | awk -v t="$test" -v s="$setup" -v r="$round" '$10 > $4 {
      n = $10 - $4; printf "%s\t%s\t%s\t%.2f\t%.4f\t%.3f\n", t, s, r, ($7 - $1) / n, ($8 - $2) / n, ($9 - $3) / n
    }' >>"$COSTS"
    echo "$before $after" | awk -v t="$test" -v s="$setup" -v r="$round" -v a="$aqu" '{
      printf "%s\t%s\t%s\t%s\t%s\n", t, s, r, ($11 > $5) ? sprintf("%.2f", ($12 - $6) / ($11 - $5)) : "nan", a
    }' >>"$DEPTHS"
  elif [ "${setup%-scratch}" = raw ]; then
    # fio's "IO depths" at submission, by bucket (1, 2, 4, ... 32, >=64): the mean of the
    # buckets' lower bounds, weighted by their share.
    jq -r --arg t "$test" --arg s "$setup" --arg r "$round" --arg a "$aqu" '.jobs[0].iodepth_level |
      [to_entries[] | (.key | ltrimstr(">=") | tonumber) * .value] | add / 100 |
      [$t, $s, $r, (. * 100 | round / 100), $a] | @tsv' "$out" >>"$DEPTHS"
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
READ_SETUPS=(raw "${TC_SETUPS[@]}" nbd-direct nbdkit-file cache-filter nbd-mem nbdkit-mem)
WRITE_SETUPS=(raw-scratch "${TC_SETUPS[@]}" nbd-direct-scratch nbdkit-scratch cache-filter)

# --- setup ------------------------------------------------------------------------------------
log "filling the files in $DIR ($SIZE each)"
fill() { fio --name=fill --filename="$1" --size="$2" "${SEQWRITE[@]}" --ioengine=libaio \
             --direct=1 --output=/dev/null; }
fill "$DIR/scratch.img" "$BYTES"
read -r -a extra <<<"$TC_EXTRA"
for setup in "${TC_SETUPS[@]}"; do
  fill "$(tc_core "$setup")" "$BYTES"
  # The cache file: room for the metadata and every line, all written before the format (which
  # writes only the metadata), so that no read anywhere hits a hole.
  fill "$(tc_cache "$setup")" $((BYTES + (64 << 20)))
  # Sequential bypass off: the warm-up is one sequential pass, and every block must end up cached.
  created="$("$TIERCACHE" create --cache "$(tc_cache "$setup")" --core "$(tc_core "$setup")" \
             --mode wt --force --seq-cutoff 0 --json)"
  DATA_OFF="$(jq -r .data_offset <<<"$created")"
  LINE="$(jq -r .line_size <<<"$created")"
  tc_args=(--cache "$(tc_cache "$setup")" --pidfile "$DIR/$setup.pid")
  [ -z "$THREADS" ] || tc_args+=(--threads "$THREADS")
  backend="$(tc_files "$setup")"
  [ -z "$backend" ] || tc_args+=(--io-backend "$backend")
  tc_args+=("${extra[@]}")
  "$TIERCACHED" "${tc_args[@]}"  # detaches once it serves
done
start_bg nbd-direct "$NBD_TEST_SERVER" --socket "$DIR/nbd-direct.sock" \
    --pidfile "$DIR/nbd-direct.pid" --direct-file "$RAW_FILE"
start_bg nbd-direct-scratch "$NBD_TEST_SERVER" --socket "$DIR/nbd-direct-scratch.sock" \
    --pidfile "$DIR/nbd-direct-scratch.pid" --direct-file "$DIR/scratch.img"
start_bg nbdkit-file nbdkit -f -U "$DIR/nbdkit-file.sock" -P "$DIR/nbdkit-file.pid" \
    file "$RAW_FILE" cache=none
start_bg nbdkit-scratch nbdkit -f -U "$DIR/nbdkit-scratch.sock" -P "$DIR/nbdkit-scratch.pid" \
    file "$DIR/scratch.img" cache=none
start_bg cache-filter nbdkit -f -U "$DIR/cache-filter.sock" -P "$DIR/cache-filter.pid" \
    --filter=cache file "$(tc_core "${TC_SETUPS[0]}")" cache=writeback cache-on-read=true
start_bg nbd-mem "$NBD_TEST_SERVER" --socket "$DIR/nbd-mem.sock" --pidfile "$DIR/nbd-mem.pid" \
    --memory "$SIZE"
start_bg nbdkit-mem nbdkit -f -U "$DIR/nbdkit-mem.sock" -P "$DIR/nbdkit-mem.pid" memory "$SIZE"

log "warming: sequential passes through tiercached and the cache filter; filling RAM exports"
# tiercached skips the fills of misses the SSD is too far behind to take (max_fill_backlog_bytes),
# so a fast core can take more than one pass to warm it.
for setup in "${TC_SETUPS[@]}"; do
  for pass in 1 2 3 4 5 6; do
    run_fio warm "$setup" 0 "${SEQREAD_ONCE[@]}"
    used="$(tc_stat "$setup" lines_used)"
    [ "$used" -lt $((BYTES / LINE)) ] || break
    [ "$pass" -lt 6 ] || { echo "$setup not warm: $used lines used" >&2; exit 1; }
  done
done
run_fio warm cache-filter 0 "${SEQREAD_ONCE[@]}"
run_fio fill nbd-mem 0 "${SEQWRITE[@]}"
run_fio fill nbdkit-mem 0 "${SEQWRITE[@]}"
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- measure ----------------------------------------------------------------------------------
tc_misses() {  # read misses + partial hits, summed over the tiercached setups
  local setup n=0
  for setup in "${TC_SETUPS[@]}"; do
    n=$((n + $(tc_stat "$setup" read_misses) + $(tc_stat "$setup" read_partial_hits)))
  done
  echo "$n"
}
misses0="$(tc_misses)"
for ((round = 1; round <= ROUNDS; round++)); do
  for test in RANDREAD32 RANDREAD1 SEQREAD8; do
    declare -n args="$test"
    for setup in "${READ_SETUPS[@]}"; do
      log "round $round/$ROUNDS: $test on $setup"
      run_fio "$test" "$setup" "$round" "${args[@]}"
    done
  done
  [ -n "$PIN_CPU" ] || continue
  for setup in "${READ_SETUPS[@]}"; do
    log "round $round/$ROUNDS: RANDREAD1 on $setup, fio and server on CPU $PIN_CPU"
    pin "$setup" "$PIN_CPU"
    FIO_PREFIX=(taskset -c "$PIN_CPU")
    run_fio RANDREAD1_PINNED "$setup" "$round" "${RANDREAD1[@]}"
    FIO_PREFIX=()
    pin "$setup" "$ALL_CPUS"
  done
done
TC_MISSES=$(($(tc_misses) - misses0))

for setup in "${TC_SETUPS[@]}"; do "$TIERCACHE" mode wb --control "$(tc_ctl "$setup")" >/dev/null; done
TC_DIRTY=0
for ((round = 1; round <= ROUNDS; round++)); do
  for setup in "${WRITE_SETUPS[@]}"; do
    log "round $round/$ROUNDS: RANDWRITE32 on $setup"
    run_fio RANDWRITE32 "$setup" "$round" "${RANDWRITE32[@]}"
    if is_tc "$setup"; then
      TC_DIRTY="$(tc_stat "$setup" lines_dirty)"
      "$TIERCACHE" flush --control "$(tc_ctl "$setup")" >/dev/null
    fi
  done
done
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- report -----------------------------------------------------------------------------------
median_of_input() {  # the median of the numbers on stdin, one per line (nan skipped); nan for none
  grep -v nan | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan";
    else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
median() {  # TEST SETUP COLUMN (4 iops, 5 bw, 6 mean latency, 7 p99)
  awk -v t="$1" -v s="$2" -v c="$3" '$1 == t && $2 == s { print $c }' "$RESULTS" | median_of_input
}
calc() { awk "BEGIN { $1 }"; }
cost_median() {  # TEST SETUP COLUMN (4 cpu_us, 5 faults, 6 ctxsw)
  awk -v t="$1" -v s="$2" -v c="$3" '$1 == t && $2 == s { print $c }' "$COSTS" | median_of_input
}
cost_row() {  # TEST SETUP
  echo "| $1 | $(label "$2") | $(cost_median "$1" "$2" 4) us | $(cost_median "$1" "$2" 5) |" \
       "$(cost_median "$1" "$2" 6) |"
}
depth_cell() {  # TEST SETUP: "submission depth / disk aqu-sz"
  local col
  for col in 4 5; do
    awk -v t="$1" -v s="$2" -v c="$col" '$1 == t && $2 == s { print $c }' "$DEPTHS" |
      median_of_input
  done | paste -sd/ | sed 's|/| / |'
}
depth_row() {  # TEST RAW_SETUP: one cell for raw, one per tiercached setup
  local line="| $1 | $(depth_cell "$1" "$2") |" setup
  for setup in "${TC_SETUPS[@]}"; do line+=" $(depth_cell "$1" "$setup") |"; done
  echo "$line"
}
label() {  # SETUP: its column name
  case "$1" in
    raw|raw-scratch) echo "raw libaio" ;;
    tiercached) echo "tiercached" ;;
    tiercached-uring) echo "tiercached io_uring" ;;
    tiercached-aio) echo "tiercached libaio" ;;
    tiercached-*) echo "tiercached ${1#tiercached-}" ;;
    nbd-direct|nbd-direct-scratch) echo "nbd_test_server O_DIRECT" ;;
    nbdkit-file|nbdkit-scratch) echo "nbdkit file" ;;
    cache-filter) echo "nbdkit cache filter" ;;
    nbd-mem) echo "nbd_test_server RAM" ;;
    nbdkit-mem) echo "nbdkit memory" ;;
    *) echo "$1" ;;
  esac
}
header() {  # FIRST SETUPS...: a table header and its separator
  local line="| $1 |" sep="|---|" setup
  shift
  for setup in "$@"; do line+=" $(label "$setup") |"; sep+="---|"; done
  printf '%s\n%s\n' "$line" "$sep"
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

rr_raw=$(median RANDREAD32 raw 4); rr_file=$(median RANDREAD32 nbdkit-file 4)
rr_cf=$(median RANDREAD32 cache-filter 4)
l_raw=$(median RANDREAD1 raw 6); l_cf=$(median RANDREAD1 cache-filter 6)
l_mem=$(median RANDREAD1 nbd-mem 6)
rr_nd=$(median RANDREAD32 nbd-direct 4); l_nd=$(median RANDREAD1 nbd-direct 6)
s_nd=$(median SEQREAD8 nbd-direct 5); w_nd=$(median RANDWRITE32 nbd-direct-scratch 4)
[ -z "$PIN_CPU" ] || lp_raw=$(median RANDREAD1_PINNED raw 6)
s_raw=$(median SEQREAD8 raw 5)
w_raw=$(median RANDWRITE32 raw-scratch 4); w_cf=$(median RANDWRITE32 cache-filter 4)

# One line of the targets table: LABEL then, per tiercached setup, "MEASURED|VERDICT" from
# FN SETUP (VERDICT may be empty).
target_row() {
  local line="| $1 |" fn="$2" setup out
  for setup in "${TC_SETUPS[@]}"; do
    out="$("$fn" "$setup")"
    line+=" ${out%%|*} | ${out#*|} |"
  done
  echo "$line"
}
t_rr_raw() { local v; v=$(median RANDREAD32 "$1" 4); echo "$(ratio "$v" "$rr_raw")|$(verdict "$v >= 0.9 * $rr_raw")"; }
t_rr_file() { local v; v=$(median RANDREAD32 "$1" 4); echo "$(ratio "$v" "$rr_file")|$(verdict "$v >= 2 * $rr_file")"; }
t_l15() { local v; v=$(median RANDREAD1 "$1" 6); echo "+$(calc "printf \"%.1f us\", $v - $l_raw")|$(verdict "$v <= $l_raw + 15")"; }
t_l10() { local v; v=$(median RANDREAD1 "$1" 6); echo "+$(calc "printf \"%.1f us\", $v - $l_raw")|$(verdict "$v <= $l_raw + 10")"; }
t_l10_pinned() {
  local v; v=$(median RANDREAD1_PINNED "$1" 6)
  echo "+$(calc "printf \"%.1f us\", $v - $lp_raw")|$(verdict "$v <= $lp_raw + 10")"
}
t_s_raw() { local v; v=$(median SEQREAD8 "$1" 5); echo "$(ratio "$v" "$s_raw")|$(verdict "$v >= 0.9 * $s_raw")"; }
t_w_raw() { local v; v=$(median RANDWRITE32 "$1" 4); echo "$(ratio "$v" "$w_raw")|$(verdict "$v >= 0.9 * $w_raw")"; }
t_rr_cf() { echo "$(ratio "$(median RANDREAD32 "$1" 4)" "$rr_cf")|"; }
t_l_cf() { echo "$(ratio "$(median RANDREAD1 "$1" 6)" "$l_cf")|"; }
t_mem() { echo "$(calc "printf \"%.1f us\", $l_mem")|$(calc "print (($l_mem <= 15) ? \"within\" : \"above: the QD1 target is below this machine's NBD floor\")")"; }
t_rr_nd() { echo "$(ratio "$(median RANDREAD32 "$1" 4)" "$rr_nd")|"; }
t_l_nd() { echo "$(calc "printf \"%+.1f us\", $(median RANDREAD1 "$1" 6) - $l_nd")|"; }
t_s_nd() { echo "$(ratio "$(median SEQREAD8 "$1" 5)" "$s_nd")|"; }
t_w_nd() { echo "$(ratio "$(median RANDWRITE32 "$1" 4)" "$w_nd")|"; }
t_w_cf() { echo "$(ratio "$(median RANDWRITE32 "$1" 4)" "$w_cf")|"; }
# One line of the floor table: LABEL "MEASURED|VERDICT" (nbd-direct against raw).
floor_row() { echo "| $1 | ${2%%|*} | ${2#*|} |"; }
target_header() {
  local line="| target |" sep="|---|" setup
  for setup in "${TC_SETUPS[@]}"; do
    if [ "${#TC_SETUPS[@]}" = 1 ]; then line+=" measured | verdict |"; else line+=" $(label "$setup") | verdict |"; fi
    sep+="---|---|"
  done
  printf '%s\n%s\n' "$line" "$sep"
}

PINNED_ROW="4K randread QD1 mean latency, fio and server on CPU $PIN_CPU"
PINNED_TARGET="QD1 mean latency <= raw + 10 us, fio and server on CPU $PIN_CPU"
PINNED_TARGET+=" (no cross-CPU wake-up)"
tc_options="${tc_args[*]}"  # the last daemon's
[ "${#TC_SETUPS[@]}" = 1 ] || tc_options+=" (one daemon per --io-backend: $IO_BACKENDS)"

cat <<EOT

tiercached vs peers: $(nproc) CPUs, kernel $(uname -r), $(fio --version), $(nbdkit --version | head -1)
volume $SIZE; $ROUNDS rounds of ${RUNTIME} s (+${RAMP} s ramp) per cell, medians
load average $LOAD_START at the start, $LOAD_END at the end
tiercached misses + partial hits during the read tests: $TC_MISSES
tiercached dirty lines after its last write run: $TC_DIRTY
tiercached options: $tc_options

$(header test "${READ_SETUPS[@]}")
$(row "4K randread QD32 IOPS" RANDREAD32 iops "${READ_SETUPS[@]}")
$(row "4K randread QD1 mean latency" RANDREAD1 lat "${READ_SETUPS[@]}")
$(row "4K randread QD1 p99 latency" RANDREAD1 p99 "${READ_SETUPS[@]}")
$([ -z "$PIN_CPU" ] || row "$PINNED_ROW" RANDREAD1_PINNED lat "${READ_SETUPS[@]}")
$(row "1M seq read QD8" SEQREAD8 bw "${READ_SETUPS[@]}")
$(row "4K randwrite QD32 IOPS (tiercached in wb)" RANDWRITE32 iops "${WRITE_SETUPS[@]}") | |

tiercached's own cost per request (CPU time of all its threads, minor page faults, context
switches; medians of the rounds; /proc and its request counters, including fio's ramp):

| test | setup | CPU per request | page faults per request | context switches per request |
|---|---|---|---|---|
$(for t in RANDREAD32 RANDREAD1 ${PIN_CPU:+RANDREAD1_PINNED} SEQREAD8 RANDWRITE32; do
    for s in "${TC_SETUPS[@]}"; do cost_row "$t" "$s"; done
  done)

Device queue depth, "at submission / disk": the mean number of operations in the kernel right
after each submission (raw: fio's IO depths, bucketed, so a lower bound; tiercached: its cache
device's io counters), then the disk's mean queue over the run (diskstats of ${DISK:-no disk}:
weighted I/O time / elapsed time, iostat's aqu-sz; other I/O on that disk counts too):

$(header test raw "${TC_SETUPS[@]}")
$(for t in RANDREAD32 RANDREAD1 ${PIN_CPU:+RANDREAD1_PINNED} SEQREAD8; do depth_row "$t" raw; done)
$(depth_row RANDWRITE32 raw-scratch)

$(target_header)
$(target_row "4K randread QD32 >= 0.9x raw libaio" t_rr_raw)
$(target_row "4K randread QD32 >= 2x nbdkit file" t_rr_file)
$(target_row "QD1 mean latency <= raw + 15 us" t_l15)
$(target_row "QD1 mean latency <= raw + 10 us (issue 11)" t_l10)
$([ -z "$PIN_CPU" ] || target_row "$PINNED_TARGET" t_l10_pinned)
$(target_row "1M seq read QD8 >= 0.9x raw" t_s_raw)
$(target_row "4K randwrite QD32 (wb) >= 0.9x raw libaio (issue 11)" t_w_raw)
$(target_row "reference: hot 4K randread QD32 vs nbdkit cache filter" t_rr_cf)
$(target_row "reference: hot 4K randread QD1 latency vs nbdkit cache filter" t_l_cf)
$(target_row "reference: NBD round trip alone (nbd_test_server over RAM, QD1) vs the 15 us budget" t_mem)
$(target_row "reference: wb 4K randwrite QD32 vs nbdkit cache filter" t_w_cf)

What the engine costs: tiercached against nbd_test_server O_DIRECT, the same NBD front-end and
device path on the same bytes without the cache engine (wb writes against plain writes):

$(target_header)
$(target_row "4K randread QD32 IOPS, tiercached / no engine" t_rr_nd)
$(target_row "4K randread QD1 mean latency, tiercached - no engine" t_l_nd)
$(target_row "1M seq read QD8, tiercached / no engine" t_s_nd)
$(target_row "4K randwrite QD32 IOPS, tiercached wb / no engine" t_w_nd)

The floor: the issue-11 targets applied to nbd_test_server O_DIRECT itself (what NBD through
fio's nbd engine costs on this machine before any cache work):

| target | measured | verdict |
|---|---|---|
$(floor_row "4K randread QD32 >= 0.9x raw libaio" \
    "$(ratio "$rr_nd" "$rr_raw")|$(verdict "$rr_nd >= 0.9 * $rr_raw")")
$(floor_row "QD1 mean latency <= raw + 10 us" \
    "$(calc "printf \"%+.1f us\", $l_nd - $l_raw")|$(verdict "$l_nd <= $l_raw + 10")")
$(floor_row "1M seq read QD8 >= 0.9x raw" "$(ratio "$s_nd" "$s_raw")|$(verdict "$s_nd >= 0.9 * $s_raw")")
$(floor_row "4K randwrite QD32 >= 0.9x raw libaio" \
    "$(ratio "$w_nd" "$w_raw")|$(verdict "$w_nd >= 0.9 * $w_raw")")
EOT
if [ -n "$JSON_OUT" ]; then
  # {"results": [per fio run], "tiercached_costs": [per tiercached run, per request],
  #  "depths": [per raw and tiercached run: queue depth at submission, disk aqu-sz]}
  results="$(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], setup: .[1], round: (.[2] | tonumber), iops: (.[3] | tonumber),
     bw_bytes: (.[4] | tonumber), lat_us: (.[5] | tonumber), p99_us: (.[6] | tonumber)})' \
    "$RESULTS")"
  costs="$(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], setup: .[1], round: (.[2] | tonumber), cpu_us: (.[3] | tonumber),
     page_faults: (.[4] | tonumber), context_switches: (.[5] | tonumber)})' "$COSTS")"
  depths="$(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
    {test: .[0], setup: .[1], round: (.[2] | tonumber), submit_depth: (.[3] | tonumber? // null),
     disk_aqu: (.[4] | tonumber? // null)})' "$DEPTHS")"
  jq -n --argjson r "$results" --argjson c "$costs" --argjson d "$depths" \
    '{results: $r, tiercached_costs: $c, depths: $d}' >"$JSON_OUT"
fi

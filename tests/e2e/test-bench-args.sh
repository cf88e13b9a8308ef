#!/usr/bin/env bash
# tiercache bench refuses a bad argument before any setup runs (no table on stdout), with exit 1
# as docs/bench.md says: bad values of CLI11's own checks, policy names and cutoffs the engine
# would refuse at its wt rows, sizes too small or too large, an output file that could not be
# written.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
CLI="$TIERCACHE_BUILD_DIR/tools/tiercache"
requires test -x "$CLI"

# ARGS... : exit 1, nothing on stdout, PATTERN (first argument) on stderr. WORKLOADS: boot.
refused() {
  local pattern="$1" out err rc=0
  shift
  out="$("$CLI" bench --quick --workloads "${WORKLOADS-boot}" --setups hdd,wt --passes 1 "$@" \
           2>"$TEST_TMP/err")" || rc=$?
  err="$(cat "$TEST_TMP/err")"
  [ "$rc" = 1 ] || fail "bench $*: exit $rc, expected 1: $err"
  [ -z "$out" ] || fail "bench $*: ran before refusing: $out"
  grep -qF -- "$pattern" <<<"$err" || fail "bench $*: said '$err', expected '$pattern'"
}

refused "--passes: Value 0 not in range 1 to 1000" --passes 0
refused "The following argument was not expected: --bogus" --bogus
refused "--idle: Value -1 not in range" --idle -1
refused "--fio-runtime: Value 0 not in range" --fio-runtime 0
refused "--seq-cutoff 3K: must be a multiple of 4 KiB (0: bypass off)" --seq-cutoff 3K
refused "unknown replacement policy 'arc' (lru, clock, s3fifo, sieve, epoch-lru)" --replacement arc
refused "unknown admission policy 'lfu'" --admission lfu
refused "--test-size 1: must be at least 1 MiB" --test-size 1
refused "--cache-size 1: too small, a cache needs at least 147456 bytes" --cache-size 1
# Sizes past the HDD model (1 TB) or the memory its in-memory disks take: refused up front, not
# an OOM kill hours later.
refused "--test-size 2T: the test area (from 64 GiB) must fit on the HDD model hdd7200" \
  --test-size 2T
refused "--cache-size 1T: larger than the HDD model hdd7200 (931.5 GiB)" --cache-size 1T
refused "--test-size 1048577: must be a multiple of 1 MiB" --test-size 1048577
WORKLOADS="" refused "no workloads selected"
WORKLOADS=cdm-large:RND4K-Q1T1-read refused \
  "the test area (800 GiB) and the cache (400 GiB) need 1.2 TiB of memory" --cache-size 400G
refused "--json /nonexistent/dir/x.json: no directory /nonexistent/dir" \
  --json /nonexistent/dir/x.json
# Imported traces: a name of a built-in workload, a name given twice, a file that does not parse
# (named with its line).
printf '1,h,0,Read,0,4096,1\n' >"$TEST_TMP/t.csv"
printf '1,h,0,Read\n' >"$TEST_TMP/bad.csv"
refused "--trace boot=...: the name of a built-in workload or group; choose another" \
  --trace "boot=msr:$TEST_TMP/t.csv"
refused "--trace x=...: a second trace of that name" \
  --trace "x=msr:$TEST_TMP/t.csv" --trace "x=msr:$TEST_TMP/t.csv"
refused "$TEST_TMP/bad.csv: MSR CSV line 1: expected 7 fields" --trace "y=msr:$TEST_TMP/bad.csv"
# --help still exits 0.
"$CLI" bench --help >/dev/null || fail "bench --help: exit $?"
echo "PASS"

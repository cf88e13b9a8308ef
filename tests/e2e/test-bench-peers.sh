#!/usr/bin/env bash
# bench/nbd/run-peers.sh end to end on a small volume (1 round of 1 s per cell): every setup and
# test measured something, the read tests were all cache hits, tiercached's cost per request
# was recorded for each test, the extra daemon options reached the daemon, the pinned QD1 cell
# ran on every read setup, the engine-free floor (nbd_test_server --direct-file) was measured
# and compared, and the report prints every target line. Asserts the output's shape, not speed.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires fio --enghelp=nbd
requires nbdkit --version
requires jq --version
requires numfmt --version
requires test -x "$TIERCACHED"
requires test -x "$TIERCACHE_CLI"
requires test -x "$NBD_TEST_SERVER"

json="$TEST_TMP/peers.json"
out="$TEST_TMP/peers.txt"
bash "$TIERCACHE_SRC_DIR/bench/nbd/run-peers.sh" --build-dir "$TIERCACHE_BUILD_DIR" \
  --dir "$TEST_TMP/peers" --size 64M --rounds 1 --runtime 1 --ramp 0 \
  --tiercached-args "--poll-us 20" --pin-qd1 0 --json "$json" >"$out" 2>"$TEST_TMP/peers.err" ||
  { cat "$TEST_TMP/peers.err" "$out"; fail "run-peers.sh failed"; }

# 4 read tests (QD1 twice: the second pinned) x 7 setups, then 5 write setups: 33 measurements
# (round 0 is the warm-up and the filling of the RAM exports), each with I/O done.
[ "$(jq '[.results[] | select(.round > 0)] | length' "$json")" = 33 ] ||
  fail "results: $(jq -c '.results' "$json")"
for setup in raw tiercached nbd-direct nbdkit-file cache-filter nbd-mem nbdkit-mem; do
  for test in RANDREAD32 RANDREAD1 SEQREAD8 RANDREAD1_PINNED; do
    [ "$(jq --arg s "$setup" --arg t "$test" \
         '[.results[] | select(.setup == $s and .test == $t and .iops > 0)] | length' "$json")" = 1 ] ||
      fail "no measurement of $test on $setup"
  done
done
[ "$(jq '[.results[] | select(.test == "RANDWRITE32" and .iops > 0)] | length' "$json")" = 5 ] ||
  fail "random write measurements: $(jq -c '[.results[] | select(.test == "RANDWRITE32")]' "$json")"

# tiercached's cost per request: one entry per test, with CPU time spent.
[ "$(jq -r '[.tiercached_costs[] | select(.round > 0) | .test] | join(",")' "$json")" = \
  "RANDREAD32,RANDREAD1,SEQREAD8,RANDREAD1_PINNED,RANDWRITE32" ] ||
  fail "costs: $(jq -c .tiercached_costs "$json")"
[ "$(jq '[.tiercached_costs[] | select(.round > 0 and .cpu_us > 0)] | length' "$json")" = 5 ] ||
  fail "costs without CPU time: $(jq -c .tiercached_costs "$json")"

grep -qx "tiercached misses + partial hits during the read tests: 0" "$out" ||
  { cat "$out"; fail "the read tests missed the warm cache"; }
grep -q "^tiercached options: .* --poll-us 20$" "$out" || { cat "$out"; fail "--tiercached-args did not reach the daemon"; }
for line in "4K randread QD32 >= 0.9x raw libaio" "4K randread QD32 >= 2x nbdkit file" \
            "QD1 mean latency <= raw + 15 us" "1M seq read QD8 >= 0.9x raw" \
            "NBD round trip alone" "| RANDREAD32 |" \
            "QD1 mean latency <= raw + 10 us, fio and server on CPU 0 (no cross-CPU wake-up)" \
            "| 4K randread QD1 mean latency, fio and server on CPU 0 |" \
            "| 4K randread QD32 IOPS, tiercached / no engine |" \
            "| 4K randwrite QD32 IOPS, tiercached wb / no engine |"; do
  grep -qF "$line" "$out" || { cat "$out"; fail "report lacks: $line"; }
done
# The floor table: nbd_test_server O_DIRECT against raw, with figures and verdicts.
grep -Eq '^\| 4K randwrite QD32 >= 0\.9x raw libaio \| [0-9.]+x \| (met|MISSED) \|$' "$out" &&
  grep -Eq '^\| QD1 mean latency <= raw \+ 10 us \| [-+][0-9.]+ us \| (met|MISSED) \|$' "$out" ||
  { cat "$out"; fail "the floor table lacks figures"; }
# A CPU the script may not use is refused before anything starts.
if bash "$TIERCACHE_SRC_DIR/bench/nbd/run-peers.sh" --pin-qd1 4096 >/dev/null \
     2>"$TEST_TMP/pin.err"; then
  fail "--pin-qd1 4096 was accepted"
fi
grep -q "^run-peers.sh: --pin-qd1 4096 is not a CPU this process may use" "$TEST_TMP/pin.err" ||
  fail "--pin-qd1 4096: $(cat "$TEST_TMP/pin.err")"
echo "PASS: $0"

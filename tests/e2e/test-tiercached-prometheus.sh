#!/usr/bin/env bash
# `tiercache stats --prometheus`: the counters in the Prometheus text format, parsed by the
# Prometheus Python client's own parser, with exact values after a known request sequence (three
# cold 4 KiB reads, writes to the same blocks, re-reads, one flush) equal to what `stats --json`
# reports; the latency histograms count exactly those requests per path, their buckets are
# cumulative and end in _count; every sample is labelled with the cache name; the health is a
# gauge per state; --prometheus with --json is a usage error.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires nbdsh --version
requires jq --version
requires /usr/bin/python3 -c 'import prometheus_client.parser'

K=4096
cd "$TEST_TMP"
make_cache ssd.img 64M hdd.img 256M --mode wt --admission always
start_tiercached ssd.img

# Runs OP (pread or pwrite) of 4 KiB at each OFFSET, one request each, in order.
io_each() {  # OP OFFSET...
  local op="$1" call
  shift
  if [ "$op" = pread ]; then call="h.pread($K, offset)"; else call="h.pwrite(bytearray($K), offset)"; fi
  nbdsh -u "$TC_URI" -c "
for offset in [$(IFS=,; echo "$*")]:
    $call
" || fail "nbdsh $op at $*"
}

blocks="$((100 * K)) $((5000 * K)) $((20000 * K))"
# Cold reads miss; a write waits for its line's fill, so it hits and the re-reads hit too.
# shellcheck disable=SC2086
io_each pread $blocks
# shellcheck disable=SC2086
io_each pwrite $blocks
# shellcheck disable=SC2086
io_each pread $blocks
nbdsh -u "$TC_URI" -c 'h.flush()' || fail "nbdsh flush"

rc=0
"$TIERCACHE_CLI" stats --control "$TC_CONTROL" --prometheus --json >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "--prometheus --json: exit $rc, expected 2"

tc_cli stats --prometheus >prom.txt || fail "tiercache stats --prometheus"
tc_cli stats --json >stats.json || fail "tiercache stats --json"
# Prints "name{labels} value" per sample (labels sorted) and "TYPE family type" per family.
/usr/bin/python3 - prom.txt >parsed.txt <<'PY' || fail "parser rejected: $(cat prom.txt)"
import sys
from prometheus_client.parser import text_string_to_metric_families
for family in text_string_to_metric_families(open(sys.argv[1]).read()):
    print("TYPE", family.name, family.type)
    for s in family.samples:
        labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
        print(f"{s.name}{{{labels}}} {int(s.value)}")
PY

expect_sample() {  # SAMPLE VALUE
  grep -qxF "$1 $2" parsed.txt || fail "no '$1 $2' in: $(cat parsed.txt)"
}
C='cache="ssd.img"'
expect_sample "tiercache_requests_total{$C,op=\"read\",result=\"miss\"}" 3
expect_sample "tiercache_requests_total{$C,op=\"read\",result=\"hit\"}" 3
expect_sample "tiercache_requests_total{$C,op=\"write\",result=\"hit\"}" 3
expect_sample "tiercache_requests_total{$C,op=\"write\",result=\"miss\"}" 0
expect_sample "tiercache_request_bytes_total{$C,op=\"read\",result=\"hit\"}" $((3 * K))
expect_sample "tiercache_lines_used{$C}" 3
expect_sample "tiercache_lines_dirty{$C}" 0
expect_sample "tiercache_flushes_total{$C}" 1
expect_sample "tiercache_policy_events_total{$C,name=\"admitted\",policy=\"admission\"}" 3
expect_sample "tiercache_health{$C,state=\"ok\"}" 1
expect_sample "tiercache_health{$C,state=\"failed\"}" 0
grep -qxF "TYPE tiercache_requests counter" parsed.txt || fail "requests not a counter"
grep -qxF "TYPE tiercache_lines_used gauge" parsed.txt || fail "lines_used not a gauge"
grep -qxF "TYPE tiercache_health gauge" parsed.txt || fail "health not a gauge"
grep -qxF "TYPE tiercache_latency_seconds histogram" parsed.txt || fail "latency not a histogram"
# Every sample carries the cache label.
unlabelled="$(grep -v '^TYPE ' parsed.txt | grep -vF "{$C" || true)"
[ -z "$unlabelled" ] || fail "samples without $C: $unlabelled"
# Every device byte counter equals its --json twin.
for dev in ssd core; do
  expect_sample "tiercache_bytes_read_total{$C,device=\"$dev\"}" \
      "$(jq .stats.bytes_read_$dev stats.json)"
  expect_sample "tiercache_bytes_written_total{$C,device=\"$dev\"}" \
      "$(jq .stats.bytes_written_$dev stats.json)"
done
# The histograms: the requests sent per path, cumulative buckets in le order ending in _count,
# and the same counts in --json.
/usr/bin/python3 - prom.txt >histograms.txt <<'PY' || fail "histogram check: $(cat histograms.txt)"
import sys
from prometheus_client.parser import text_string_to_metric_families
expected = {"hit": 3, "miss": 3, "write": 3, "flush": 1}
families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
samples = families["tiercache_latency_seconds"].samples
for path, want in expected.items():
    mine = [s for s in samples if s.labels.get("path") == path]
    buckets = [s for s in mine if s.name.endswith("_bucket")]
    les = [float(s.labels["le"]) for s in buckets]
    values = [int(s.value) for s in buckets]
    count = [int(s.value) for s in mine if s.name.endswith("_count")]
    assert les == sorted(les) and les[0] == 0.00001 and les[-2] == 1.0 and les[-1] == float("inf"), les
    assert len(les) == 17, les
    assert values == sorted(values), (path, values)
    assert count == [want] and values[-1] == want, (path, count, values)
    assert len([s for s in mine if s.name.endswith("_sum")]) == 1, path
print("ok")
PY
for path in hit:3 miss:3 write:3 flush:1; do
  [ "$(jq ".stats.latency.${path%:*}.count" stats.json)" = "${path#*:}" ] ||
    fail "stats --json latency ${path%:*}: $(jq -c ".stats.latency.${path%:*}" stats.json)"
done
# `tiercache stats` prints the percentiles per path.
tc_cli stats >stats.txt || fail "tiercache stats"
grep -qE '^latency:    hit   p50 [0-9.]+ (us|ms|s), p99 .*, p99\.9 .* \(3 requests\)$' stats.txt ||
  fail "no hit percentiles in: $(cat stats.txt)"
grep -qE '^            flush p50 .* \(1 request\)$' stats.txt || fail "no flush line: $(cat stats.txt)"
stop_tiercached

#!/usr/bin/env bash
# `tiercache stats --prometheus`: the counters in the Prometheus text format, parsed by the
# Prometheus Python client's own parser, with exact values after a known request sequence (three
# cold 4 KiB reads, writes to the same blocks, re-reads) equal to what `stats --json` reports;
# --prometheus with --json is a usage error.
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
expect_sample 'tiercache_requests_total{op="read",result="miss"}' 3
expect_sample 'tiercache_requests_total{op="read",result="hit"}' 3
expect_sample 'tiercache_requests_total{op="write",result="hit"}' 3
expect_sample 'tiercache_requests_total{op="write",result="miss"}' 0
expect_sample 'tiercache_request_bytes_total{op="read",result="hit"}' $((3 * K))
expect_sample 'tiercache_lines_used{}' 3
expect_sample 'tiercache_lines_dirty{}' 0
expect_sample 'tiercache_policy_events_total{name="admitted",policy="admission"}' 3
grep -qxF "TYPE tiercache_requests counter" parsed.txt || fail "requests not a counter"
grep -qxF "TYPE tiercache_lines_used gauge" parsed.txt || fail "lines_used not a gauge"
# Every device byte counter equals its --json twin.
for dev in ssd core; do
  expect_sample "tiercache_bytes_read_total{device=\"$dev\"}" "$(jq .stats.bytes_read_$dev stats.json)"
  expect_sample "tiercache_bytes_written_total{device=\"$dev\"}" \
      "$(jq .stats.bytes_written_$dev stats.json)"
done
stop_tiercached

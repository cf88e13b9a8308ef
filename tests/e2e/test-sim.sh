#!/usr/bin/env bash
# tiercache sim against the policy referee (bench/policy-eval, docs/sim.md), on small trace
# families with one shard and no sequential bypass:
# - the block accesses agree with the referee's for every trace and policy, and the judge reads
#   the JSON;
# - the engine's LRU misses exactly what the referee's LRU misses on `shift` (single-block
#   requests), and on every trace exactly what a textbook LRU misses when, as in the engine, a
#   request looks up all its blocks before the missed ones are filled;
# - the HTML report draws one curve per combination and trace.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires test -x "$TIERCACHE_CLI"
requires jq --version
requires /usr/bin/python3 --version

eval_dir="$TIERCACHE_SRC_DIR/bench/policy-eval"
/usr/bin/python3 "$eval_dir/families.py" --out "$TEST_TMP/f" --scale 0.0625 \
  --families hotset,shift,loop12 >/dev/null || fail "families.py failed"

# C = 512 blocks (2 MiB) at this scale: sizes C/2 and C.
"$TIERCACHE_CLI" sim --trace "msr:$TEST_TMP/f/hotset.csv" --trace "msr:$TEST_TMP/f/shift.csv" \
  --trace "msr:$TEST_TMP/f/loop12.csv" --cache-size 1M,2M --admission always \
  --replacement lru,sieve --shards 1 --seq-cutoff 0 --json "$TEST_TMP/sim.json" \
  --report "$TEST_TMP/sim.html" >"$TEST_TMP/sim.txt" 2>"$TEST_TMP/sim.err" ||
  { cat "$TEST_TMP/sim.err"; fail "tiercache sim failed"; }

[ "$(jq '[.traces[].results[]] | length' "$TEST_TMP/sim.json")" = 12 ] ||
  fail "expected 3 traces x 2 sizes x 2 policies: $(jq -c . "$TEST_TMP/sim.json")"
[ "$(jq -r '.traces[0].results[0] | keys_unsorted | join(",")' "$TEST_TMP/sim.json")" = \
  "cache_bytes,admission,replacement,default,block_accesses,block_misses,miss_ratio,ssd_bytes_written,hdd_bytes_read,requests,policy_counters" ] ||
  fail "result keys: $(jq -c '.traces[0].results[0]' "$TEST_TMP/sim.json")"

# The judge fails the targets (no adaptive admission here), so only bad input (2) is an error.
rc=0
(cd "$eval_dir" && /usr/bin/python3 evaluate.py --compare "$TEST_TMP/sim.json" \
   --json "$TEST_TMP/judge.json" >"$TEST_TMP/judge.txt") || rc=$?
[ "$rc" -le 1 ] || { cat "$TEST_TMP/judge.txt"; fail "evaluate.py --compare exit $rc"; }
[ "$(jq '.access_mismatches | length' "$TEST_TMP/judge.json")" = 0 ] ||
  fail "block accesses differ from the referee's: $(jq -c .access_mismatches "$TEST_TMP/judge.json")"
shift_lru="$(jq '[.points[] | select(.trace == "shift") | .referee.lru.misses as $m
                  | .engine[] | select(.replacement == "lru") | .block_misses == $m]' \
              "$TEST_TMP/judge.json")"
[ "$(jq 'length' <<<"$shift_lru")" = 2 ] && [ "$(jq 'all' <<<"$shift_lru")" = true ] ||
  fail "engine LRU misses differ from the referee's on shift: $(cat "$TEST_TMP/judge.txt")"

# LRU at request granularity: (trace, cache bytes, misses) lines, compared with the engine's.
PYTHONPATH="$eval_dir" /usr/bin/python3 - "$TEST_TMP/f" >"$TEST_TMP/model.txt" <<'PY'
import sys
from collections import OrderedDict
import msr
for name in ("hotset", "shift", "loop12"):
    reqs = msr.read_msr(f"{sys.argv[1]}/{name}.csv")
    for cap in (256, 512):
        cache, misses = OrderedDict(), 0
        for _, off, size in reqs:
            missed = []
            for b in range(off // 4096, (off + size + 4095) // 4096):
                if b in cache:
                    cache.move_to_end(b)
                else:
                    missed.append(b)
            misses += len(missed)
            for b in missed:
                cache[b] = True
                if len(cache) > cap:
                    cache.popitem(last=False)
        print(name, cap * 4096, misses)
PY
jq -r '.traces[] | .trace as $t | .results[] | select(.replacement == "lru")
       | "\($t) \(.cache_bytes) \(.block_misses)"' "$TEST_TMP/sim.json" >"$TEST_TMP/engine.txt"
diff "$TEST_TMP/model.txt" "$TEST_TMP/engine.txt" >&2 ||
  fail "engine LRU differs from request-granular LRU (model left, engine right)"

[ "$(grep -o '<svg' "$TEST_TMP/sim.html" | wc -l)" = 3 ] || fail "expected one chart per trace"
[ "$(grep -o '<polyline' "$TEST_TMP/sim.html" | wc -l)" = 6 ] || fail "expected 2 curves per chart"
grep -q '^hotset (msr:' "$TEST_TMP/sim.txt" || fail "text report: $(cat "$TEST_TMP/sim.txt")"
echo "PASS: $0"

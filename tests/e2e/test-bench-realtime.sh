#!/usr/bin/env bash
# tiercache-bench --realtime: two CrystalDiskMark tests through fio's nbd engine against real
# setups (tiercached with --core-model/--cache-model; nbdkit's cache filter when installed),
# 2 passes of 1 s each. Asserts the JSON shape and that every setup and pass measured something
# (numbers > 0, no errors); not speed. Then one run with engine options, checking that the wb
# daemon ran with them.
set -euo pipefail
source "$(dirname "$0")/../functions.sh"
requires fio --enghelp=nbd
requires jq --version
BENCH="$TIERCACHE_BUILD_DIR/bench/runner/tiercache-bench"
requires test -x "$BENCH"
requires test -x "$TIERCACHED"
requires test -x "$TIERCACHE_CLI"

setups=hdd,ssd,wt,wb
if nbdkit --dump-config >/dev/null 2>&1 && nbdkit --filter=cache null --dump-plugin >/dev/null 2>&1; then
  setups="$setups,nbdkit-cache"
fi
json="$TEST_TMP/rt.json"
"$BENCH" --realtime --quick --passes 2 --fio-runtime 1 --setups "$setups" \
  --workloads cdm:RND4K-Q1T1-read,cdm:SEQ1M-Q8T1-write --json "$json" >"$TEST_TMP/out.txt" 2>&1 ||
  { cat "$TEST_TMP/out.txt"; fail "tiercache-bench --realtime failed"; }

[ "$(jq -r .mode "$json")" = realtime ] || fail "mode is not realtime"
[ "$(jq -r '[.workloads[].name] | join(",")' "$json")" = \
  "cdm:RND4K-Q1T1-read,cdm:SEQ1M-Q8T1-write" ] || fail "workload names: $(jq -c '[.workloads[].name]' "$json")"
for w in 0 1; do
  [ "$(jq -r ".workloads[$w].setups | map(.name) | join(\",\")" "$json")" = "$setups" ] ||
    fail "workload $w setups: $(jq -c ".workloads[$w].setups | map(.name)" "$json")"
  [ "$(jq ".workloads[$w].setups | map(select(.error)) | length" "$json")" = 0 ] ||
    fail "setup errors: $(jq -c ".workloads[$w].setups | map(select(.error))" "$json")"
  [ "$(jq ".workloads[$w].setups | map(.passes | length) | unique" "$json")" = "$(printf '[\n  2\n]')" ] ||
    fail "every setup needs 2 passes"
  # Every pass: seconds, mb_per_s and iops numbers > 0, hit_ratio present, no I/O errors.
  bad="$(jq -c "[.workloads[$w].setups[] as \$s | \$s.passes[] |
      select((.seconds > 0 and .mb_per_s > 0 and .iops > 0 and (.ssd_bytes_written | type) == \"number\"
              and has(\"hit_ratio\") and .errors == 0) | not) | \$s.name]" "$json")"
  [ "$bad" = "[]" ] || fail "workload $w: passes without figures in $bad"
  # The caches report hit ratios; the disks alone do not.
  [ "$(jq "[.workloads[$w].setups[] | select(.name == \"wt\" or .name == \"wb\") | .passes[].hit_ratio | type] | unique" "$json" | tr -d ' \n')" = '["number"]' ] ||
    fail "wt/wb hit ratios missing"
  [ "$(jq "[.workloads[$w].setups[] | select(.name == \"hdd\") | .passes[].hit_ratio] | unique" "$json" | tr -d ' \n')" = '[null]' ] ||
    fail "hdd has a hit ratio"
done
# The read test read and the write test wrote.
[ "$(jq '.workloads[0].setups[0].passes[0].bytes_read > 0' "$json")" = true ] || fail "no bytes read"
[ "$(jq '.workloads[1].setups[0].passes[0].bytes_written > 0' "$json")" = true ] || fail "no bytes written"
# The engine options reach the wt/wb daemons: admitting everything with bypass off, a sequential
# write puts all its bytes on the SSD, and with nop cleaning none reaches the HDD during the pass.
json="$TEST_TMP/options.json"
out="$TEST_TMP/out.txt"
"$BENCH" --realtime --quick --passes 1 --fio-runtime 1 --setups wb \
  --workloads cdm:SEQ1M-Q8T1-write --admission always --seq-cutoff 0 --cleaning nop \
  --dirty-high 0.9 --json "$json" >"$out" 2>&1 ||
  { cat "$out"; fail "tiercache-bench with options failed"; }
header="wt/wb engine policies: admission always, replacement default, seq cutoff 0 B"
header="$header, cleaning nop (dirty target 20%, high 90%,"
grep -qF "$header" "$out" || fail "options missing from the header: $(grep policies "$out")"
[ "$(jq -c '[.admission, .seq_cutoff_bytes, .cleaning, .cleaning_options.dirty_high]' "$json")" = \
  '["always",0,"nop",0.9]' ] ||
  fail "options in JSON: $(jq -c '[.admission, .cleaning_options]' "$json")"
pass="$(jq -c '.workloads[0].setups[0].passes[0]' "$json")"
[ "$(jq '.error // empty' <<<"$pass")" = "" ] || fail "wb failed: $pass"
[ "$(jq '.bytes_written > 0 and .ssd_bytes_written >= .bytes_written' <<<"$pass")" = true ] ||
  fail "not every written byte went to the SSD: $pass"
[ "$(jq .hdd_bytes_written <<<"$pass")" = 0 ] || fail "nop cleaning wrote to the HDD: $pass"
echo "PASS: $0"

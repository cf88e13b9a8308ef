#!/bin/bash
# The default policies judged on several sets of trace families at once (docs/policies.md,
# "Across more parameter draws"): for each VARIANT (0: families.py's defaults, N > 0: parameters
# drawn with seed N), the traces are generated into OUT/vN (kept when already there), run through
# `tiercache sim` (always and adaptive, with epoch-lru, at C/2 and C: 16 and 32 MiB unless
# --cache-blocks says otherwise) and judged by evaluate.py;
# across.py then prints, per family and size, in how many sets the default failed.
# Usage: bench/policy-eval/across-variants.sh [--build DIR] [--out DIR] [--shards N]
#            [--cache-blocks C] [--replacement NAME] [--set KNOB=VALUE]... VARIANT...
#   e.g. bench/policy-eval/across-variants.sh 0 3 7 11 12 13 14 15 16 17 18
# VARIANT `held` is the set of held_out.py's shapes (OUT/held), which families.py does not draw.
# --shards N runs the engine with N shards instead of its default (1: fully associative, each
# shard as large as the shards of a cache of a few hundred MiB and more). --cache-blocks C builds
# the traces for a cache of C 4 KiB blocks (default 8192) and judges them at C/2 and C.
# --set KNOB=VALUE (repeatable) runs adaptive with that knob changed (`tiercache sim --set`,
# docs/policy-admission.md) and judges adaptive/epoch-lru as if it were the default: a variant
# of the policy measured with the shipped build. --replacement NAME runs both admissions with
# that replacement policy instead of epoch-lru, and judges adaptive/NAME as the default.
# The textbook policies' results are kept in OUT/referee-cache.json (by trace content and the
# referee's source), so a rerun after an engine change replays only the engine.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../../build" out=/tmp/across-variants shards=() blocks=8192 knobs=() repl=epoch-lru
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --shards) shards=(--shards "$2"); shift 2 ;;
    --cache-blocks) blocks="$2"; shift 2 ;;
    --replacement) repl="$2"; shift 2 ;;
    --set) knobs+=(--set "$2"); shift 2 ;;
    *) break ;;
  esac
done
# The combination judged as the default: adaptive with the replacement run (what the engine's
# defaults are unless --replacement or --set says otherwise).
judge=(--default "adaptive/$repl")
usage="usage: $0 [--build DIR] [--out DIR] [--shards N] [--cache-blocks C]"
usage+=" [--replacement NAME] [--set KNOB=VALUE]... VARIANT..."
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
case "$blocks" in '' | *[!0-9]*) blocks=x ;; esac
[ "$blocks" != x ] && [ "$blocks" -ge 16 ] && [ $((blocks % 2)) = 0 ] ||
  { echo "$0: --cache-blocks wants an even number of blocks >= 16" >&2; exit 2; }
cli="$build/tools/tiercache"
[ -x "$cli" ] || { echo "$0: no $cli (make build first)" >&2; exit 2; }
judged=()
for v in "$@"; do
  if [ "$v" = held ]; then
    dir="$out/held"
    [ -f "$dir/manifest.json" ] || /usr/bin/python3 "$here/held_out.py" --out "$dir" \
        --cache-blocks "$blocks" >/dev/null
  else
    dir="$out/v$v"
    [ -f "$dir/manifest.json" ] ||
      /usr/bin/python3 "$here/families.py" --out "$dir" --variant "$v" \
          --cache-blocks "$blocks" >/dev/null
  fi
  traces=()
  for f in "$dir"/*.csv; do traces+=(--trace "$(basename "$f" .csv)=msr:$f"); done
  "$cli" sim "${traces[@]}" --cache-size "$((blocks * 2))K,$((blocks * 4))K" \
      --admission always,adaptive --replacement "$repl" "${shards[@]}" "${knobs[@]}" \
      --json "$dir/sim.json" -q >/dev/null
  # Exit 1 is a failing verdict, which is what is being counted.
  /usr/bin/python3 "$here/evaluate.py" --compare "$dir/sim.json" "${judge[@]}" \
      --json "$dir/judged.json" \
      --referee-cache "$out/referee-cache.json" >/dev/null || [ $? = 1 ]
  judged+=("$dir/judged.json")
done
/usr/bin/python3 "$here/across.py" "${judged[@]}"

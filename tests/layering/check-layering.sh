#!/usr/bin/env bash
# Keeps the layering (README "Layout"): data flows front-end -> engine -> devices, so
#   cachelib/ includes nothing from daemon/, tools/, bench/;
#   policy/   includes nothing from daemon/, tools/, bench/;
#   daemon/   includes nothing from tools/ or bench/.
# Prints every offending #include and fails if there is one.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bad=0
check() {  # DIR FORBIDDEN-PREFIX...
  local dir="$1"
  shift
  for prefix in "$@"; do
    while IFS= read -r hit; do
      echo "layering: $hit (${dir}/ must not include ${prefix}/)"
      bad=1
    done < <(cd "$root" && grep -rnE "^#include \"${prefix}/" "$dir" --include='*.h' --include='*.cpp' --include='*.in')
  done
}
check cachelib daemon tools bench
check policy daemon tools bench
check daemon tools bench
[ "$bad" = 0 ] && echo "layering: ok"
exit "$bad"

#!/usr/bin/env bash
# The main job, quick form: `tiercache bench --quick` on emulated devices (virtual time): boot,
# application launch, game load and CrystalDiskMark-style tests on an HDD model, an SSD model, and
# the HDD cached by tiercache in write-through (SRT Enhanced) and write-back (SRT Maximized) modes,
# 5 passes each. Prints the tables and where the HTML report and JSON are.
set -euo pipefail
BUILD=${1:-build}
OUT="$BUILD/demo"
mkdir -p "$OUT"
"$BUILD/tools/tiercache" bench --quick --json "$OUT/bench.json" --report "$OUT/bench-report.html"
echo
echo "demo: report  $(realpath "$OUT/bench-report.html")"
echo "demo: JSON    $(realpath "$OUT/bench.json")"

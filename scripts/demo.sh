#!/usr/bin/env bash
# The main job on emulated devices (replaced by `tiercache bench --quick` once the bench exists).
set -euo pipefail
BUILD=${1:-build}
echo "demo: nothing to run yet"

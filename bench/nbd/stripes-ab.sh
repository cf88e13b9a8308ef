#!/bin/bash
# Shard stripes (issue 11, docs/performance.md "Session 21: shard stripes"): a warm 1 GiB volume
# made by BUILD_DIR's `tiercache create` (format version 7: 64 KiB stripes of lines per shard;
# a build before it: one range per shard), then 6 s each of 1 MiB sequential reads at QD8 and
# 4 KiB random reads at QD32. Prints read_cell's figures with SSD operations per request as its
# counter (`io.cache.ops`). One round per call: alternate it between two builds for an A/B.
# Usage: bench/nbd/stripes-ab.sh [BUILD_DIR [LABEL]]
set -u
source "$(dirname "$0")/volume.sh" "${1:-}"
warm_volume
read_cell "${2:-run}" seq1m read 1M 8 .status.io.cache.ops
read_cell "${2:-run}" rand4k randread 4k 32 .status.io.cache.ops

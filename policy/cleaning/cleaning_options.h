// CleaningOptions: the knobs of the "target" cleaning policy (DirtyTargetPolicy): how much dirty
// data write-back may hold, how old it may get, how much HDD time cleaning may take while clients
// are active; and how large the cleaner's coalesced core writes get. Plain value type;
// thread-compatible.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "cachelib/common/clock.h"
#include "cachelib/common/status.h"

namespace tiercache {

struct CleaningOptions {
  // Above this fraction of the cache's blocks dirty, clean even while clients are active, within
  // busy_share of wall time. Fraction, in [0, dirty_high). Default: 0.2.
  double dirty_target = 0.2;
  // Above this fraction dirty, clean back to back whatever the clients do.
  // Fraction, in (0, 1] and above dirty_target. Default: 0.5.
  double dirty_high = 0.5;
  // Bound on how long a block stays dirty (what a lost SSD can cost). > 0. Default: 30 s.
  Nanos max_dirty_age = std::chrono::seconds(30);
  // Clean oldest-first, whatever the clients do, once the oldest dirty block is this close to
  // max_dirty_age. In [0, max_dirty_age). Default: 5 s.
  Nanos age_margin = std::chrono::seconds(5);
  // Share of wall time the cleaner's batches may take while clients are active: after a batch of
  // duration d, the next starts d * (1 - busy_share) / busy_share later. In (0, 1]. Default: 0.1.
  double busy_share = 0.1;
  // No foreground request for this long means idle: clean continuously in large batches. > 0.
  // Default: 1 s.
  Nanos idle_after = std::chrono::seconds(1);
  // Blocks (4 KiB) per batch while clients are active: small, so a batch delays them little.
  // In [1, 1048576]. Default: 64 (256 KiB).
  uint32_t busy_batch_blocks = 64;
  // Blocks (4 KiB) per batch when idle or draining: large, so LBA-order writes coalesce and the
  // core flush ending each batch (the disk idles and loses about a rotation) is amortized.
  // In [busy_batch_blocks, 1048576]. Default: 4096 (16 MiB).
  uint32_t idle_batch_blocks = 4096;
  // Bytes of adjacent dirty data in a batch the cleaner writes to the core as one write (one
  // line's dirty run is never split, so a write can reach the line size). A multiple of 4096 in
  // [4096, 67108864]. Default: 1 MiB.
  uint64_t max_write_bytes = uint64_t{1} << 20;
  // Separate core writes (runs of adjacent dirty blocks) in one batch, at most: scattered blocks
  // cost an HDD a seek each, and the policy plans again only between batches. Sequential dirty
  // data still goes in full batches. In [1, 1048576]. Default: 1024 (docs/policy-cleaning.md,
  // "Scattered batches and client writes": 64 drained scattered blocks at 0.60x the HDD's rate,
  // the batch-ending flushes).
  uint32_t max_batch_runs = 1024;
  // Core writes of a batch in flight at once. The cleaner locks a group of adjacent lines (one
  // core write's worth) only when it starts copying it, until the copy reached the core: a
  // client write to a line of a running batch waits for at most this many core writes, not for
  // the batch, and a client coming back to an idle cache finds at most this many in the disk's
  // queue. More lets the disk reorder scattered writes (16 drained dense scattered blocks 1.34x
  // faster on the models). In [1, 1024]. Default: 4.
  uint32_t writes_in_flight = 4;

  // The age_margin that goes with a max_dirty_age set by an operator: a sixth of it (the
  // defaults: 5 s of 30).
  static Nanos AgeMarginFor(Nanos max_dirty_age) { return max_dirty_age / 6; }

  // InvalidArgument naming the first bad field.
  Status validate() const;
  // The knobs an operator sets: "dirty target 20%, high 50%, max age 30 s, busy share 10%, idle
  // after 1 s".
  std::string describe() const;
};

}  // namespace tiercache

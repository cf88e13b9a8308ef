#include "cachelib/engine/stream_readahead.h"

#include <algorithm>

#include "cachelib/engine/engine.h"

namespace tiercache {

bool StreamReadahead::cached(uint64_t core_line) {
  Shard& shard = engine_.shard_for(core_line);
  std::lock_guard lock(shard.mu);
  const uint32_t id = shard.lookup(core_line);
  return id != Shard::kNoLine && shard.valid(id).count() == engine_.sectors_per_line;
}

uint64_t StreamReadahead::next_where(uint64_t first, uint64_t end, bool is_cached) {
  for (uint64_t line = first; line < end; ++line) {
    if (cached(line) == is_cached) return line;
  }
  return end;
}

void StreamReadahead::consider(uint64_t offset, uint64_t length, uint64_t stream_bytes) {
  // Only large requests of streams that already ran a read-ahead's worth (and one request): a
  // boot's runs of 128 KiB reads end often, and reading ahead of them cost the warm boot 2% of
  // its time in the HDD model.
  if (window_ == 0 || length < kMinRequestBytes ||
      stream_bytes < std::max(length, kReadaheadBytes)) {
    return;
  }
  const uint64_t line_size = engine_.line_size;
  const uint64_t size = engine_.core.size();
  const uint64_t end = offset + length;
  const uint64_t first = (end + line_size - 1) / line_size;
  const uint64_t limit = std::min(end + window_, size) / line_size;
  // Cheap tests first: a stream the SSD does not serve goes to the core anyway, and one whose
  // window's last block is cached most likely has the whole window cached.
  if (first >= limit || !cached((end - 1) / line_size) || cached(limit - 1)) return;
  const uint64_t missing = next_where(first, limit, false);
  if (missing == limit) return;
  const uint64_t at = missing * line_size;
  // Only the missing run (up to kReadaheadBytes): the stream reads it next; more may be waste.
  const uint64_t run_end =
      next_where(missing, std::min(size, at + kReadaheadBytes) / line_size, true) * line_size;
  {
    std::lock_guard lock(mu_);
    // Once per approach: the stream's later reads come closer and find it issued; a new pass
    // over the same blocks starts further back and issues it again.
    auto same = std::find_if(recent_.begin(), recent_.end(),
                             [at](const Issued& i) { return i.at == at; });
    if (same != recent_.end() && same->from < end) {
      same->from = end;
      return;
    }
    Issued& slot = same != recent_.end() ? *same : recent_[next_++ % recent_.size()];
    slot = Issued{at, end};
  }
  engine_.inflight.fetch_add(1, std::memory_order_relaxed);
  // A hint: its outcome changes nothing but timing.
  engine_.core.prefetch(at, run_end - at, [this](Status) {
    engine_.inflight.fetch_sub(1, std::memory_order_release);
  });
}

}  // namespace tiercache

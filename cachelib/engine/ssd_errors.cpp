#include "cachelib/engine/ssd_errors.h"

#include "cachelib/common/logger.h"
#include "cachelib/common/pooled_once.h"
#include "cachelib/engine/io_paths.h"

namespace tiercache {
namespace {

const char* KindName(SsdErrorKind kind) {
  switch (kind) {
    case SsdErrorKind::kRead: return "read";
    case SsdErrorKind::kWrite: return "write";
    case SsdErrorKind::kPersist: return "persist";
  }
  return "?";
}

}  // namespace

void NoteSsdError(Engine& e, SsdErrorKind kind, const Status& error) {
  // Errors are rare; reading the state twice costs nothing on the paths that work.
  const Nanos now = e.options.background_loop->clock().now();
  const SsdHealthState before = e.ssd_health.state();
  e.ssd_health.record(kind, now);
  const SsdHealthState after = e.ssd_health.state();
  if (uint64_t unlogged = 0; e.ssd_health.error_line_due(now, &unlogged)) {
    LogError("ssd_error", {{"ssd", e.ssd.name()},
                           {"op", KindName(kind)},
                           {"error", error.ToString()},
                           {"unlogged", std::to_string(unlogged)}});
  }
  if (after != before) {
    LogWarn("health_change",
            {{"ssd", e.ssd.name()}, {"from", SsdHealthName(before)}, {"to", SsdHealthName(after)}});
  }
}

IoCallback NotingSsdErrors(Engine& e, SsdErrorKind kind, IoCallback cb) {
  return PooledOnce([&e, kind, cb = std::move(cb)](Status s) mutable {
    if (!s.ok()) NoteSsdError(e, kind, s);
    cb(std::move(s));
  });
}

void RecoverSsdRead(Engine& e, uint64_t core_line, uint32_t line_id, uint32_t first, uint32_t n,
                    std::byte* dst, Status ssd_status, IoCallback cb) {
  NoteSsdError(e, SsdErrorKind::kRead, ssd_status);
  const SectorBits run = Segment{.first_sector = first, .sectors = n}.mask();
  bool dirty;
  {
    Shard& shard = e.shard_for(core_line);
    std::lock_guard lock(shard.mu);
    dirty = (shard.dirty(line_id) & run).any();
    // The SSD copy may be unreadable for good: later reads of these sectors go to the core.
    InvalidateClean(e, shard, line_id, run);
  }
  // Never answer a dirty sector from the core: its copy there is older than what was written.
  if (dirty) return cb(std::move(ssd_status));
  const uint64_t bytes = uint64_t(n) * kSectorSize;
  EngineCounters::add(e.counters.bytes_read_core, bytes);
  e.core.read(core_line * e.line_size + uint64_t(first) * kSectorSize,
              std::span<std::byte>(dst, bytes), std::move(cb));
}

void SsdReadOrRecover(Engine& e, uint64_t core_line, uint32_t line_id, uint32_t first, uint32_t n,
                      std::byte* dst, IoCallback cb) {
  // Pooled: on the read-hit path, too big for std::function's inline buffer.
  auto read = [&e, core_line, line_id, first, n, dst, cb = std::move(cb)](Status s) mutable {
    if (s.ok()) return cb(std::move(s));
    RecoverSsdRead(e, core_line, line_id, first, n, dst, std::move(s), std::move(cb));
  };
  SsdReadSectors(e, line_id, first, n, dst, PooledOnce(std::move(read)));
}

void DropSsdCopyAfterCoreWrite(Engine& e, const Segment& seg, uint32_t line_id, IoCallback done) {
  Shard& shard = e.shard_for(seg.core_line);
  bool any_dirty;
  {
    std::lock_guard lock(shard.mu);
    shard.set_clean_pending(line_id, false);
    InvalidateClean(e, shard, line_id, seg.mask());
    any_dirty = (shard.dirty(line_id) & seg.mask()).any();
  }
  if (!any_dirty) return done(Status::Ok());
  // Dropping a dirty sector before the core's new copy is durable could bring back data older
  // than a flushed write after a power cut (the core never held the dirty data).
  e.core.flush([&e, &shard, seg, line_id, done = std::move(done)](Status s) mutable {
    if (s.ok()) {
      std::lock_guard lock(shard.mu);
      shard.set_valid(line_id, shard.valid(line_id) & ~seg.mask());
      e.set_dirty(shard, line_id, shard.dirty(line_id) & ~seg.mask());
      e.note_changed(line_id);
    }
    done(std::move(s));
  });
}

}  // namespace tiercache

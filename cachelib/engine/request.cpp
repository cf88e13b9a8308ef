#include "cachelib/engine/request.h"

#include "cachelib/common/slot_pool.h"
#include "cachelib/engine/partial_sectors.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <new>

namespace tiercache {

namespace {

// kLowSectors[n]: the n lowest sectors. Two loads and a xor make any run's mask; shifting a
// 256-bit std::bitset loops over its words (~50 instructions, several times per request).
const std::array<SectorBits, kMaxSectorsPerLine + 1> kLowSectors = [] {
  std::array<SectorBits, kMaxSectorsPerLine + 1> low{};
  for (uint32_t n = 1; n <= kMaxSectorsPerLine; ++n) {
    low[n] = low[n - 1];
    low[n].set(n - 1);
  }
  return low;
}();

}  // namespace

SectorBits Segment::mask() const {
  return kLowSectors[first_sector + sectors] ^ kLowSectors[first_sector];
}

namespace {

constexpr uint64_t kMaxMergedBytes = 4ull << 20;

void Issue(Engine& e, bool write, uint64_t offset, std::byte* data, uint64_t bytes, IoCallback done) {
  if (write) {
    e.core.write(offset, std::span<const std::byte>(data, bytes), {}, std::move(done));
  } else {
    e.core.read(offset, std::span<std::byte>(data, bytes), std::move(done));
  }
}

// Issues the batch, merging runs of same-direction I/Os contiguous on the core and in memory.
void IssueCoreBatch(Request& req) {
  req.batching_core_io = false;
  std::vector<Request::CoreIo> batch = std::move(req.core_batch);
  for (size_t i = 0; i < batch.size();) {
    size_t j = i + 1;
    uint64_t bytes = batch[i].bytes;
    while (j < batch.size() && batch[j].write == batch[i].write &&
           batch[j].offset == batch[i].offset + bytes && batch[j].data == batch[i].data + bytes &&
           bytes + batch[j].bytes <= kMaxMergedBytes) {
      bytes += batch[j].bytes;
      ++j;
    }
    if (j == i + 1) {
      Issue(req.engine, batch[i].write, batch[i].offset, batch[i].data, bytes,
            std::move(batch[i].done));
    } else {
      auto dones = std::make_shared<std::vector<IoCallback>>();
      for (size_t k = i; k < j; ++k) dones->push_back(std::move(batch[k].done));
      Issue(req.engine, batch[i].write, batch[i].offset, batch[i].data, bytes,
            [dones](Status s) {
              for (IoCallback& done : *dones) done(s);
            });
    }
    i = j;
  }
}

void Queue(Request& req, bool write, uint64_t offset, std::byte* data, uint64_t bytes,
           IoCallback done) {
  if (!req.batching_core_io) return Issue(req.engine, write, offset, data, bytes, std::move(done));
  req.core_batch.push_back({write, offset, data, bytes, std::move(done)});
}

}  // namespace

void CoreRead(Request& req, uint64_t offset, std::span<std::byte> dst, IoCallback done) {
  Queue(req, false, offset, dst.data(), dst.size(), std::move(done));
}

void CoreWrite(Request& req, uint64_t offset, std::span<const std::byte> src, IoCallback done) {
  // The core only reads from `src`; the batch keeps one pointer type for both directions.
  Queue(req, true, offset, const_cast<std::byte*>(src.data()), src.size(), std::move(done));
}

Request* NewRequest(Engine& engine, RequestKind kind, uint64_t offset, uint64_t length,
                    IoCallback done) {
  assert(EventLoop::current() != nullptr);
  engine.inflight.fetch_add(1, std::memory_order_relaxed);
  engine.foreground_ops.fetch_add(1, std::memory_order_relaxed);
  // From the loop's pool: no heap allocation per request once warm.
  static_assert(sizeof(Request) <= SlotPool::kMaxBytes);
  Request* r = new (SlotPool::Allocate(sizeof(Request)))
      Request{.engine = engine,
              .loop = EventLoop::current(),
              .kind = kind,
              .mode = engine.mode.load(std::memory_order_acquire),
              .offset = offset,
              .length = length,
              .flags = {},
              .done = std::move(done),
              .status = Status::Ok()};
  if (kind == RequestKind::kRead || kind == RequestKind::kWrite) r->started = r->loop->clock().now();
  return r;
}

template <class Fn>
void Request::for_each_segment(Fn&& fn) {
  // Segments are made one at a time, not collected in a vector: most requests are one segment
  // and the hit path should not allocate for them. All segments are counted before any starts,
  // so an early completion cannot finish the request.
  const uint64_t first_line = offset / engine.line_size;
  const uint64_t last_line = (offset + length - 1) / engine.line_size;
  pending = uint32_t(last_line - first_line + 1);
  batching_core_io = pending > 1;
  for (uint64_t line = first_line; line <= last_line; ++line) fn(segment_at(line));
}

Segment Request::segment_at(uint64_t core_line) const {
  const uint64_t line_start = core_line * engine.line_size;
  const uint64_t pos = std::max(offset, line_start);
  const uint64_t end = std::min(offset + length, line_start + engine.line_size);
  return Segment{.core_line = core_line,
                 .first_sector = uint32_t((pos - line_start) / kSectorSize),
                 .sectors = uint32_t((end - pos) / kSectorSize),
                 .buf_offset = pos - offset};
}

void Request::start(SegmentFn fn) {
  for_each_segment([this, fn](const Segment& seg) { fn(*this, seg); });
  // No segment can finish before this returns (completions are never inline): `this` lives.
  if (batching_core_io) IssueCoreBatch(*this);
}

void Request::start_runs(RunFn fn) {
  // The run so far, handed over when the next segment leaves its shard or it is full.
  std::array<Segment, kMaxRun> run;
  uint32_t n = 0;
  const Shard* run_shard = nullptr;
  for_each_segment([&](const Segment& seg) {
    const Shard* shard = &engine.shard_for(seg.core_line);
    if (n == kMaxRun || (n > 0 && shard != run_shard)) {
      fn(*this, std::span<const Segment>(run.data(), n));
      n = 0;
    }
    run_shard = shard;
    run[n++] = seg;
  });
  if (n > 0) fn(*this, std::span<const Segment>(run.data(), n));
  if (batching_core_io) IssueCoreBatch(*this);
}

void Request::segments_done(uint32_t n, Status s) {
  if (!s.ok() && status.ok()) status = std::move(s);
  assert(pending >= n);
  pending -= n;
  if (pending == 0) finish();
}

void Request::finish() {
  EngineCounters& c = engine.counters;
  if (!status.ok()) EngineCounters::add(c.errors);
  LatencyHistogram* latency = nullptr;
  if (kind == RequestKind::kRead) {
    latency = !bypassed && !any_core ? &c.latency_hit : &c.latency_miss;
    if (bypassed) {
      EngineCounters::add(c.read_bypasses);
    } else if (any_ssd && any_core) {
      EngineCounters::add(c.read_partial_hits);
    } else if (any_core) {
      EngineCounters::add(c.read_misses);
    } else {
      EngineCounters::add(c.read_hits);
    }
  } else if (kind == RequestKind::kWrite) {
    latency = &c.latency_write;
    if (bypassed) {
      EngineCounters::add(c.write_bypasses);
    } else {
      EngineCounters::add(all_cached ? c.write_hits : c.write_misses);
    }
  }
  auto complete = [this, latency](Status s) {
    // Before the callback: a client that saw its reply also finds the request in the stats.
    if (latency != nullptr) latency->record(loop->clock().now() - started);
    IoCallback cb = std::move(done);
    Engine& e = engine;
    this->~Request();
    SlotPool::Release(this, sizeof(Request));
    cb(std::move(s));
    e.inflight.fetch_sub(1, std::memory_order_release);
  };
  // FUA is emulated in one place: a write (or zeroing) with FUA is followed by a full flush.
  if (status.ok() && flags.fua) {
    return engine.flush_all(std::move(complete));
  }
  // A client that outlives a crash of the server must find every acknowledged change.
  if (status.ok() && engine.options.commit_before_ack && kind != RequestKind::kRead &&
      kind != RequestKind::kPrefetch) {
    return engine.commit_then(offset, length, std::move(complete));
  }
  complete(std::move(status));
}

}  // namespace tiercache

#include "cachelib/engine/partial_sectors.h"

#include <cstdlib>
#include <cstring>

#include "cachelib/engine/io_paths.h"
#include "cachelib/engine/ssd_errors.h"

namespace tiercache {

std::shared_ptr<std::byte> NewSectorBuffer(uint64_t bytes) {
  return std::shared_ptr<std::byte>(static_cast<std::byte*>(std::aligned_alloc(kSectorSize, bytes)),
                                    std::free);
}

Request* NewPartialWrite(Engine& engine, uint64_t offset, std::span<const std::byte> buf,
                         IoCallback done) {
  const uint64_t start = CoverStart(offset), end = CoverEnd(offset + buf.size());
  auto partial = std::make_shared<PartialWrite>();
  partial->client_offset = offset;
  partial->client_length = buf.size();
  partial->client_buf = buf.data();
  partial->bounce = NewSectorBuffer(end - start);
  std::memcpy(partial->bounce.get() + (offset - start), buf.data(), buf.size());
  Request* r = NewRequest(engine, RequestKind::kWrite, start, end - start, std::move(done));
  r->write_buf = partial->bounce.get();
  r->partial = std::move(partial);
  return r;
}

namespace {

// The sectors (absolute byte offsets) of `seg` the client's bytes cover only in part.
std::vector<uint64_t> PartialSectorsOf(const Request& req, const Segment& seg) {
  const PartialWrite& p = *req.partial;
  const uint64_t seg_start = seg.core_offset(req.engine.line_size), seg_end = seg_start + seg.bytes();
  const uint64_t client_end = p.client_offset + p.client_length;
  std::vector<uint64_t> out;
  auto consider = [&](uint64_t sector) {
    if (sector >= seg_start && sector < seg_end && (out.empty() || out.back() != sector)) {
      out.push_back(sector);
    }
  };
  if (p.client_offset % kSectorSize != 0) consider(CoverStart(p.client_offset));
  if (client_end % kSectorSize != 0) consider(CoverStart(client_end));
  return out;
}

}  // namespace

void FillPartialSectorsThen(Request& req, const Segment& seg, EventLoop::Task then) {
  std::vector<uint64_t> sectors = PartialSectorsOf(req, seg);
  if (sectors.empty()) return then();
  Engine& e = req.engine;
  auto join = IoJoin::Make([&req, seg, sectors, then = std::move(then)](Status s) mutable {
    if (!s.ok()) {
      UnlockLine(req.engine, seg.core_line, true);
      return req.segment_done(std::move(s));
    }
    // The reads brought whole sectors: put the client's bytes back over them.
    const PartialWrite& p = *req.partial;
    for (uint64_t sector : sectors) {
      const uint64_t from = std::max(sector, p.client_offset);
      const uint64_t to = std::min(sector + kSectorSize, p.client_offset + p.client_length);
      std::memcpy(p.bounce.get() + (from - req.offset), p.client_buf + (from - p.client_offset),
                  to - from);
    }
    then();
  });
  for (uint64_t sector : sectors) {
    std::byte* dst = req.partial->bounce.get() + (sector - req.offset);
    const uint32_t in_line = uint32_t(sector % e.line_size / kSectorSize);
    uint32_t line_id = Shard::kNoLine;
    {
      Shard& shard = e.shard_for(seg.core_line);
      std::lock_guard lock(shard.mu);
      uint32_t id = shard.lookup(seg.core_line);
      if (id != Shard::kNoLine && shard.valid(id).test(in_line)) line_id = id;
    }
    if (line_id != Shard::kNoLine) {
      SsdReadOrRecover(e, seg.core_line, line_id, in_line, 1, dst, join->add());
    } else {
      EngineCounters::add(e.counters.bytes_read_core, kSectorSize);
      e.core.read(sector, std::span<std::byte>(dst, kSectorSize), join->add());
    }
  }
  join->seal();
}

}  // namespace tiercache

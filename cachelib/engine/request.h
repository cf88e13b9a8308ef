// Request: one client request in flight, split into per-line segments that proceed independently
// (each under its core-line lock; reads take them by runs of one shard) and join here. Lives in a
// slot of the loop's SlotPool until its last segment finishes; every continuation runs on the
// submitting loop, so the join needs no atomics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cachelib/engine/engine.h"

namespace tiercache {

enum class RequestKind : uint8_t { kRead, kWrite, kDiscard, kWriteZeroes, kPrefetch };

struct PartialWrite;

struct Segment {
  uint64_t core_line = 0;
  uint32_t first_sector = 0;
  uint32_t sectors = 0;
  uint64_t buf_offset = 0;  // byte offset of this segment within the request

  uint64_t core_offset(uint32_t line_size) const {
    return core_line * line_size + uint64_t(first_sector) * kSectorSize;
  }
  uint64_t bytes() const { return uint64_t(sectors) * kSectorSize; }
  // The segment's sectors as a mask.
  SectorBits mask() const;
};

struct Request {
  Engine& engine;
  EventLoop* loop;
  RequestKind kind;
  CacheMode mode;  // read once at submission: a mode switch never changes a request midway
  uint64_t offset;
  uint64_t length;
  std::byte* read_buf = nullptr;
  const std::byte* write_buf = nullptr;
  WriteFlags flags;
  IoCallback done;

  uint32_t pending = 0;
  Nanos started{0};  // loop clock at submission; reads and writes only (latency histograms)
  Status status;
  // What the segments saw, for the hit/miss counters.
  bool any_ssd = false, any_core = false, bypassed = false, all_cached = true;
  // A read of a sequential stream past its cutoff (mode pass-through): a run mostly held by the
  // cache is still read from the SSD (read_batch.cpp).
  bool stream_bypass = false;

  // Core reads and writes the segments issue while start() runs them: adjacent ones reach the core
  // as one request (a 1 MiB sequential request is one core I/O, not one per line).
  struct CoreIo {
    bool write = false;
    uint64_t offset = 0;
    std::byte* data = nullptr;
    uint64_t bytes = 0;
    IoCallback done;
  };
  bool batching_core_io = false;
  // Set for a write not aligned to 4096 bytes: the request runs over the aligned cover and each
  // segment fills its partial sectors under its lock first (partial_sectors.h).
  std::shared_ptr<PartialWrite> partial;
  std::vector<CoreIo> core_batch;

  using SegmentFn = void (*)(Request&, const Segment&);
  // Runs fn(segment) for every line segment, then finishes once all have called segment_done().
  void start(SegmentFn fn);
  // A run: consecutive segments whose core lines belong to one shard, at most kMaxRun of them
  // (with 4 KiB lines, the segments of one 64 KiB chunk: Engine::shard_for).
  static constexpr uint32_t kMaxRun = 16;
  using RunFn = void (*)(Request&, std::span<const Segment>);
  // As start(), but hands the segments to fn run by run (the read path's batch, read_batch.h).
  void start_runs(RunFn fn);
  void segment_done(Status s) { segments_done(1, std::move(s)); }
  // The segment of core line `core_line` (REQUIRES: the request covers part of it).
  Segment segment_at(uint64_t core_line) const;
  // `n` segments are done at once, with one status.
  void segments_done(uint32_t n, Status s);

 private:
  // Counts the segments, then calls fn(segment) for each in order and issues the core batch.
  template <class Fn>
  void for_each_segment(Fn&& fn);
  void finish();
};

// Reads/writes the core for one segment of `req`: batched with its neighbours while req.start()
// runs, issued at once otherwise (a segment that waited for its lock).
void CoreRead(Request& req, uint64_t offset, std::span<std::byte> dst, IoCallback done);
void CoreWrite(Request& req, uint64_t offset, std::span<const std::byte> src, IoCallback done);

// Creates a request on the current loop (REQUIRES EventLoop::current() != nullptr).
Request* NewRequest(Engine& engine, RequestKind kind, uint64_t offset, uint64_t length,
                    IoCallback done);

}  // namespace tiercache

#include "policy/sequential/sequential_detector.h"

#include <cassert>

namespace tiercache {

SequentialDetector::SequentialDetector(const SequentialOptions& options, uint64_t cache_bytes)
    : repeat_horizon_(kRepeatHorizonCaches * cache_bytes),
      repeat_limit_(cache_bytes / 2),
      enabled_(options.enabled),
      reads_(options.enabled ? options.streams : 0, options.read_cutoff_bytes,
             options.enabled ? options.streams : 0, repeat_horizon_),
      writes_(options.enabled ? options.streams : 0, options.write_cutoff_bytes, 0, 0) {
  assert(options.validate().ok());
}

bool SequentialDetector::observe(uint64_t offset, uint64_t length, bool is_write,
                                 uint64_t* stream_bytes, const CacheRoom* room) {
  if (stream_bytes != nullptr) *stream_bytes = 0;
  if (!enabled_.load(std::memory_order_relaxed) || length == 0) return false;
  Direction& d = is_write ? writes_ : reads_;
  std::lock_guard lock(d.mu);
  if (d.streams == 0) return false;  // being turned on or off by reconfigure()
  const uint64_t before = d.table.add(offset, length);
  if (stream_bytes != nullptr) *stream_bytes = before;
  d.observed_bytes += length;
  if (before < d.cutoff) return false;
  // Writes are always bypassed past the cutoff: rewriting a stream makes no read hit, and a
  // benchmark's repeated write passes (CrystalDiskMark SEQ1M) would otherwise fill the SSD.
  if (!is_write) {
    const StreamHistory::Overlap again = d.history.add(offset, length, d.observed_bytes);
    if (again.span != 0 && (repeat_limit_ == 0 || repeats(again))) {
      ++d.repeated_requests;
      d.repeated_bytes += length;
      return false;
    }
    if (room != nullptr && room->has_room()) {
      ++d.room_requests;
      d.room_bytes += length;
      return false;
    }
  }
  ++d.bypassed_requests;
  d.bypassed_bytes += length;
  return true;
}

// Behind a policy that refuses misses, the first half cache of what is read again: a loop larger
// than the cache keeps a fixed part (as LIRS does) instead of churning, and the rest of the stream
// stays whole. Behind `always`, which would admit all of that part at every pass, only an extent
// that fits in half the cache.
bool SequentialDetector::repeats(const StreamHistory::Overlap& again) const {
  return admission_refuses_.load(std::memory_order_relaxed) ? again.into < repeat_limit_
                                                             : again.span <= repeat_limit_;
}

void SequentialDetector::set_admission_refuses(bool refuses) {
  admission_refuses_.store(refuses, std::memory_order_relaxed);
}

void SequentialDetector::reconfigure(const SequentialOptions& options) {
  assert(options.validate().ok());
  const uint32_t streams = options.enabled ? options.streams : 0;
  for (auto [d, cutoff] : {std::pair{&reads_, options.read_cutoff_bytes},
                           std::pair{&writes_, options.write_cutoff_bytes}}) {
    std::lock_guard lock(d->mu);
    d->cutoff = cutoff;
    if (d->streams != streams) {
      d->table = StreamTable(streams);
      if (d == &reads_) d->history = StreamHistory(streams, repeat_horizon_);
      d->streams = streams;
    }
  }
  enabled_.store(options.enabled, std::memory_order_relaxed);
}

uint64_t SequentialDetector::memory_size() const {
  std::scoped_lock lock(reads_.mu, writes_.mu);  // reconfigure() may replace the tables
  return reads_.table.memory_size() + reads_.history.memory_size() +
         writes_.table.memory_size();
}

void SequentialDetector::visit_counters(const CounterVisitor& visit) const {
  // Copy under the locks, visit outside them: the visitor is caller code.
  uint64_t read_bytes, read_requests, repeated_bytes, repeated_requests, room_bytes,
      room_requests, write_bytes, write_requests, tracked;
  {
    std::lock_guard lock(reads_.mu);
    read_bytes = reads_.bypassed_bytes;
    read_requests = reads_.bypassed_requests;
    repeated_bytes = reads_.repeated_bytes;
    repeated_requests = reads_.repeated_requests;
    room_bytes = reads_.room_bytes;
    room_requests = reads_.room_requests;
    tracked = reads_.table.tracked();
  }
  {
    std::lock_guard lock(writes_.mu);
    write_bytes = writes_.bypassed_bytes;
    write_requests = writes_.bypassed_requests;
    tracked += writes_.table.tracked();
  }
  visit("bypassed_read_bytes", read_bytes);
  visit("bypassed_write_bytes", write_bytes);
  visit("bypassed_read_requests", read_requests);
  visit("bypassed_write_requests", write_requests);
  visit("repeated_read_bytes", repeated_bytes);
  visit("repeated_read_requests", repeated_requests);
  visit("room_read_bytes", room_bytes);
  visit("room_read_requests", room_requests);
  visit("streams_tracked", tracked);
}

}  // namespace tiercache

// CacheLine: the live, in-memory state of one SSD cache line. Owned by its Shard, whose mutex guards
// every field. Linked (without allocation) into the shard's index by core line and, while it has
// dirty sectors, into the shard's dirty set ordered by core line (the cleaner's LBA order).
#pragma once

#include <boost/intrusive/set.hpp>
#include <boost/intrusive/unordered_set.hpp>
#include <cstdint>

#include "cachelib/metadata/line_record.h"

namespace tiercache {

struct DirtyTag;
using IndexHook = boost::intrusive::unordered_set_base_hook<>;
using DirtyHook = boost::intrusive::set_base_hook<boost::intrusive::tag<DirtyTag>>;

struct CacheLine : IndexHook, DirtyHook {
  uint32_t id = 0;                               // line number on the SSD
  uint64_t core_line = LineRecord::kNoCoreLine;  // what it caches; kNoCoreLine when free
  SectorBits valid, dirty;
  // Bumped whenever the line's data or dirty bits change; lets the cleaner see a write that raced it.
  uint64_t write_gen = 0;
  // A record with dirty sectors may be on the SSD: the line must not be reused until a dirty-free
  // record staged at persist epoch `clean_staged_epoch` has been persisted.
  bool durable_dirty = false;
  uint64_t clean_staged_epoch = 0;

  bool in_use() const { return core_line != LineRecord::kNoCoreLine; }
  LineRecord record() const { return LineRecord{core_line, valid, dirty}; }
};

struct CacheLineKey {
  using type = uint64_t;
  const type& operator()(const CacheLine& line) const { return line.core_line; }
};

}  // namespace tiercache

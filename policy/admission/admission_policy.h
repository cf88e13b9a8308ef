// AdmissionPolicy: decides whether a missed 4 KiB block deserves an SSD slot (space and SSD wear
// are not free). It sees every access of its shard (hits too), the misses it is asked about, and the
// blocks the cache evicts, so it can keep a ghost history. "Not admitted" is the policy's answer;
// "no slot free" is the engine's, and is never reported here. One instance per engine shard; not
// thread-safe (the shard lock guards it). Never does I/O; reports its memory and counters.
#pragma once

#include <cstdint>

#include "policy/common/policy_counters.h"

namespace tiercache {

struct AdmissionQuery {
  uint64_t block = 0;      // core byte offset / 4096
  bool is_write = false;
  uint64_t used = 0;       // slots of the shard holding data
  uint64_t capacity = 0;   // slots of the shard
};

// What admit() decides. A warm block gets a hit's standing in replacement (the engine reports it
// to the replacement policy as hit once, right after inserting it): it belongs to a working set
// that is moving in, which should not leave before the blocks of the one moving out.
struct Admission {
  bool admitted = false;
  bool warm = false;  // only with admitted
  explicit operator bool() const { return admitted; }
};

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  virtual const char* name() const = 0;
  // A request found `block` cached.
  virtual void on_hit(uint64_t block, bool is_write) = 0;
  // A request missed `block`: admitted = give it a slot. Counts admitted/refused.
  virtual Admission admit(const AdmissionQuery& query) = 0;
  // The cache evicted `block` (it was admitted earlier and now leaves).
  virtual void on_evict(uint64_t block) = 0;
  virtual uint64_t memory_size() const = 0;
  virtual void visit_counters(const CounterVisitor& visit) const {}
};

}  // namespace tiercache

// ReplacementPolicy: decides which cache line to reuse when a new one is needed. The engine tells it
// about inserts, accesses and removals by line id; it proposes victims, and the engine decides
// whether a candidate may go (not dirty, not busy). One instance per engine shard; not thread-safe
// (the shard's lock protects it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace tiercache {

class ReplacementPolicy {
 public:
  using LineId = uint32_t;
  virtual ~ReplacementPolicy() = default;
  virtual const char* name() const = 0;
  // The line now holds data (it was free).
  virtual void on_insert(LineId line) = 0;
  virtual void on_access(LineId line) = 0;
  // The line was freed.
  virtual void on_remove(LineId line) = 0;
  // Returns the best victim for which can_evict(line) is true, trying at most `max_scan`
  // candidates in preference order; nullopt when none qualifies.
  virtual std::optional<LineId> pick_victim(const std::function<bool(LineId)>& can_evict,
                                            uint32_t max_scan) = 0;
  // Bytes of memory the policy uses.
  virtual uint64_t memory_size() const = 0;
};

}  // namespace tiercache

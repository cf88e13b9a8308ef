// LruPolicy: least-recently-used replacement over a fixed set of line ids. Nodes live in one array
// indexed by line id and are linked with a Boost.Intrusive list, so no operation allocates.
// Not thread-safe.
#pragma once

#include <boost/intrusive/list.hpp>
#include <vector>

#include "policy/replacement/replacement_policy.h"

namespace tiercache {

class LruPolicy final : public ReplacementPolicy {
 public:
  // `line_ids` are the ids this instance manages (one shard's lines).
  explicit LruPolicy(const std::vector<LineId>& line_ids);

  const char* name() const override { return "lru"; }
  void on_insert(LineId line) override;
  void on_access(LineId line) override;
  void on_remove(LineId line) override;
  std::optional<LineId> pick_victim(const std::function<bool(LineId)>& can_evict,
                                    uint32_t max_scan) override;
  uint64_t memory_size() const override;

 private:
  struct Node : boost::intrusive::list_base_hook<> {
    LineId id = 0;
  };
  Node& node(LineId line);

  std::vector<Node> nodes_;
  std::vector<uint32_t> slot_of_line_;  // line id -> index in nodes_ (ids may be strided)
  uint32_t stride_ = 1, first_ = 0;
  boost::intrusive::list<Node> list_;  // front = most recent
};

}  // namespace tiercache

#include "policy/replacement/lru_policy.h"

#include <cassert>

namespace tiercache {

LruPolicy::LruPolicy(const std::vector<LineId>& line_ids) : nodes_(line_ids.size()) {
  // Shards own strided ids (first, first+stride, ...): map them to dense slots without a hash.
  if (!line_ids.empty()) first_ = line_ids[0];
  if (line_ids.size() > 1) stride_ = line_ids[1] - line_ids[0];
  for (size_t i = 0; i < line_ids.size(); ++i) {
    assert(line_ids[i] == first_ + i * stride_);
    nodes_[i].id = line_ids[i];
  }
}

LruPolicy::Node& LruPolicy::node(LineId line) {
  size_t slot = (line - first_) / stride_;
  assert(slot < nodes_.size() && nodes_[slot].id == line);
  return nodes_[slot];
}

void LruPolicy::on_insert(LineId line) {
  Node& n = node(line);
  if (n.is_linked()) list_.erase(list_.iterator_to(n));
  list_.push_front(n);
}

void LruPolicy::on_access(LineId line) {
  Node& n = node(line);
  if (!n.is_linked()) return;
  list_.erase(list_.iterator_to(n));
  list_.push_front(n);
}

void LruPolicy::on_remove(LineId line) {
  Node& n = node(line);
  if (n.is_linked()) list_.erase(list_.iterator_to(n));
}

std::optional<ReplacementPolicy::LineId> LruPolicy::pick_victim(
    const std::function<bool(LineId)>& can_evict, uint32_t max_scan) {
  uint32_t scanned = 0;
  for (auto it = list_.rbegin(); it != list_.rend() && scanned < max_scan; ++it, ++scanned) {
    if (can_evict(it->id)) return it->id;
  }
  return std::nullopt;
}

uint64_t LruPolicy::memory_size() const { return nodes_.size() * sizeof(Node); }

}  // namespace tiercache

#include "cachelib/engine/shard.h"

#include <bit>
#include <cassert>

#include "policy/replacement/lru_policy.h"

namespace tiercache {
namespace {
// Candidates the replacement policy may propose before allocation gives up and the request
// bypasses the cache (every candidate dirty or busy).
constexpr uint32_t kMaxVictimScan = 64;
}  // namespace

Shard::Shard(uint32_t first_id, uint32_t stride, uint64_t total_lines)
    : first_id_(first_id),
      stride_(stride),
      lines_(total_lines > first_id ? (total_lines - first_id + stride - 1) / stride : 0),
      buckets_(std::bit_ceil(std::max<size_t>(lines_.size(), 16))),
      index_(Index::bucket_traits(buckets_.data(), buckets_.size())),
      locks_(256) {
  free_.reserve(lines_.size());
  for (size_t i = 0; i < lines_.size(); ++i) lines_[i].id = first_id + uint32_t(i) * stride;
  for (size_t i = lines_.size(); i-- > 0;) free_.push_back(lines_[i].id);  // low ids first
  policy_ = std::make_unique<LruPolicy>(uint32_t(lines_.size()));
}

Shard::~Shard() {
  dirty_set_.clear();
  index_.clear();
}

CacheLine* Shard::lookup(uint64_t core_line) {
  auto it = index_.find(core_line);
  return it == index_.end() ? nullptr : &*it;
}

CacheLine* Shard::take_free_line() {
  if (free_.empty()) return nullptr;
  uint32_t id = free_.back();
  free_.pop_back();
  return &line(id);
}

void Shard::map(CacheLine& l, uint64_t core_line) {
  l.core_line = core_line;
  index_.insert(l);
  policy_->on_insert(local(l.id), core_line);
  ++used_;
}

CacheLine* Shard::allocate(uint64_t core_line,
                           const std::function<bool(const CacheLine&)>& can_reuse, bool* evicted) {
  *evicted = false;
  CacheLine* l = take_free_line();
  if (l == nullptr) {
    auto victim = policy_->pick_victim(
        [&](uint32_t slot) { return can_reuse(lines_[slot]); }, kMaxVictimScan);
    if (!victim) return nullptr;
    l = &lines_[*victim];
    assert(l->dirty.none());
    index_.erase(index_.iterator_to(*l));
    policy_->on_evict(*victim, l->core_line);
    --used_;
    *evicted = true;
  }
  l->valid.reset();
  l->dirty.reset();
  l->durable_dirty = false;
  ++l->write_gen;
  map(*l, core_line);
  return l;
}

void Shard::install(uint32_t id, const LineRecord& record) {
  CacheLine& l = line(id);
  assert(!l.in_use());
  l.valid = record.valid;
  l.dirty = record.dirty;
  l.durable_dirty = record.dirty.any();
  map(l, record.core_line);
  dirty_changed(l);
}

void Shard::finish_load() {
  free_.clear();
  for (auto it = lines_.rbegin(); it != lines_.rend(); ++it) {
    if (!it->in_use()) free_.push_back(it->id);
  }
}

void Shard::dirty_changed(CacheLine& l) {
  bool linked = l.DirtyHook::is_linked();
  if (l.dirty.any() && !linked) {
    dirty_set_.insert(l);
  } else if (l.dirty.none() && linked) {
    dirty_set_.erase(dirty_set_.iterator_to(l));
  }
}

}  // namespace tiercache

#include "cachelib/engine/shard.h"

#include <bit>
#include <cassert>

namespace tiercache {
namespace {
// Candidates the replacement policy may propose before allocation gives up and the request
// bypasses the cache (every candidate dirty or busy).
constexpr uint32_t kMaxVictimScan = 64;
}  // namespace

Shard::Shard(uint32_t first_id, uint32_t count, uint32_t sectors_per_line,
             std::unique_ptr<ReplacementPolicy> replacement,
             std::unique_ptr<AdmissionPolicy> admission)
    : first_id_(first_id),
      slots_(count, sectors_per_line),
      index_(count),
      free_map_((size_t{count} + 63) / 64, ~uint64_t{0}),
      dirty_map_((size_t{count} + 63) / 64, 0),
      replacement_(std::move(replacement)),
      admission_(std::move(admission)),
      locks_(256) {
  if (count % 64 != 0) free_map_.back() = (uint64_t{1} << (count % 64)) - 1;
}

void Shard::Assign(std::vector<uint64_t>& bits, uint32_t i, bool on) {
  uint64_t m = uint64_t{1} << (i % 64);
  bits[i / 64] = on ? (bits[i / 64] | m) : (bits[i / 64] & ~m);
}

uint32_t Shard::lookup(uint64_t core_line) const {
  uint32_t slot = index_.find(core_line, slots_);
  return slot == LineIndex::kNotFound ? kNoLine : first_id_ + slot;
}

void Shard::touch(uint32_t id, bool is_write) {
  replacement_->on_hit(local(id));
  admission_->on_hit(core_line(id), is_write);
}

bool Shard::admit(uint64_t core_line, bool is_write) {
  return admission_->admit({.block = core_line,
                            .is_write = is_write,
                            .used = used_,
                            .capacity = slots_.size()});
}

uint32_t Shard::take_free_line() {
  // Lowest free line at or after the cursor: new data lands in ascending SSD order.
  const size_t words = free_map_.size();
  for (size_t n = 0; n <= words; ++n) {
    size_t w = (free_cursor_ / 64 + n) % words;
    uint64_t bits = free_map_[w];
    if (n == 0) bits &= ~uint64_t{0} << (free_cursor_ % 64);
    if (bits == 0) continue;
    uint32_t slot = uint32_t(w * 64 + std::countr_zero(bits));
    Assign(free_map_, slot, false);
    free_cursor_ = slot + 1 == slots_.size() ? 0 : slot + 1;
    return slot;
  }
  return LineIndex::kNotFound;
}

uint32_t Shard::allocate(uint64_t core_line, const std::function<bool(uint32_t)>& can_reuse,
                         bool* evicted) {
  *evicted = false;
  uint32_t slot = used_ < slots_.size() ? take_free_line() : LineIndex::kNotFound;
  if (slot == LineIndex::kNotFound) {
    auto victim = replacement_->pick_victim(
        [&](uint32_t s) { return can_reuse(first_id_ + s); }, kMaxVictimScan);
    if (!victim) return kNoLine;
    slot = *victim;
    const uint64_t old = slots_.core_line(slot);
    assert(!slots_.any_dirty(slot));
    index_.erase(old, slot, slots_);
    replacement_->on_evict(slot, old);
    admission_->on_evict(old);
    --used_;
    *evicted = true;
  }
  slots_.assign(slot, core_line);
  index_.insert(core_line, slot);
  replacement_->on_insert(slot, core_line);
  ++used_;
  return first_id_ + slot;
}

void Shard::install(uint32_t id, const LineRecord& record) {
  uint32_t slot = local(id);
  assert(!slots_.in_use(slot) && Test(free_map_, slot));
  Assign(free_map_, slot, false);
  slots_.assign(slot, record.core_line);
  slots_.set_valid(slot, record.valid);
  index_.insert(record.core_line, slot);
  replacement_->on_insert(slot, record.core_line);
  ++used_;
  set_dirty(id, record.dirty, 0);
  slots_.set_durable_dirty(slot, record.dirty.any());
}

void Shard::set_dirty(uint32_t id, const SectorBits& bits, uint32_t epoch) {
  uint32_t slot = local(id);
  bool was = Test(dirty_map_, slot), now = bits.any();
  slots_.set_dirty(slot, bits);
  if (was == now) return;
  Assign(dirty_map_, slot, now);
  if (now) {
    ++dirty_count_;
    slots_.set_dirty_epoch(slot, epoch);
    ++dirty_per_epoch_[epoch & 3];
  } else {
    --dirty_count_;
    --dirty_per_epoch_[slots_.dirty_epoch(slot)];
  }
}

void Shard::release_durable(uint64_t completed_epoch) {
  size_t kept = 0;
  for (const CleanStaged& c : clean_staged_) {
    if (c.epoch < completed_epoch) {
      // Dirty again since: its durable record may say dirty once more, so it stays marked.
      if (!any_dirty(c.id)) set_durable_dirty(c.id, false);
    } else {
      clean_staged_[kept++] = c;
    }
  }
  clean_staged_.resize(kept);
}

void Shard::collect_dirty(std::vector<uint64_t>& out, size_t max, int epoch) {
  const size_t words = dirty_map_.size();
  size_t taken = 0;
  for (size_t n = 0; n < words && taken < max; ++n) {
    size_t w = (dirty_cursor_ / 64 + n) % words;
    for (uint64_t bits = dirty_map_[w]; bits != 0 && taken < max; bits &= bits - 1) {
      uint32_t slot = uint32_t(w * 64 + std::countr_zero(bits));
      if (epoch >= 0 && slots_.dirty_epoch(slot) != uint32_t(epoch)) continue;
      out.push_back(slots_.core_line(slot));
      ++taken;
      dirty_cursor_ = slot + 1 == slots_.size() ? 0 : slot + 1;
    }
  }
}

uint64_t Shard::memory_size() const {
  return sizeof(*this) + slots_.memory_size() + index_.memory_size() +
         (free_map_.capacity() + dirty_map_.capacity()) * sizeof(uint64_t) +
         clean_staged_.capacity() * sizeof(CleanStaged) + replacement_->memory_size() +
         admission_->memory_size();
}

}  // namespace tiercache

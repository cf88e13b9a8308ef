#include "cachelib/engine/shard.h"

#include <bit>
#include <algorithm>
#include <cassert>

namespace tiercache {
namespace {
// Candidates the replacement policy may propose before allocation gives up and the request
// bypasses the cache (every candidate dirty or busy).
constexpr uint32_t kMaxVictimScan = 64;
}  // namespace

Shard::Shard(const ShardLines& lines, uint32_t number, uint32_t sectors_per_line,
             std::unique_ptr<ReplacementPolicy> replacement,
             std::unique_ptr<AdmissionPolicy> admission, bool keep_reserve)
    : Shard(lines, number, lines.count(number), sectors_per_line, std::move(replacement),
            std::move(admission), keep_reserve) {}

Shard::Shard(const ShardLines& lines, uint32_t number, uint32_t count, uint32_t sectors_per_line,
             std::unique_ptr<ReplacementPolicy> replacement,
             std::unique_ptr<AdmissionPolicy> admission, bool keep_reserve)
    : lines_(lines),
      number_(number),
      reserve_(keep_reserve ? std::min(std::max<uint32_t>(count / 256, 1),
                                       std::min<uint32_t>(count / 2, 256))
                            : 0),
      slots_(count, sectors_per_line),
      index_(count),
      free_map_((size_t{count} + 63) / 64, ~uint64_t{0}),
      dirty_map_((size_t{count} + 63) / 64, 0),
      free_count_(count),
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
  return slot == LineIndex::kNotFound ? kNoLine : id_of(slot);
}

bool Shard::in_limbo(uint64_t core_line) const {
  return index_.find(core_line | kLimboKey, slots_) != LineIndex::kNotFound;
}

void Shard::move_to_limbo(uint32_t slot) {
  const uint64_t core_line = slots_.core_line(slot);
  index_.erase(core_line, slot, slots_);
  park_in_limbo(slot, core_line);
}

void Shard::park_in_limbo(uint32_t slot, uint64_t core_line) {
  assert(core_line < kLimboKey);
  slots_.assign(slot, core_line | kLimboKey);
  slots_.set_limbo(slot, true);
  index_.insert(core_line | kLimboKey, slot);
}

bool Shard::touch(uint32_t id, bool is_write) {
  const bool listed = !is_write && set_write_only(id, false);
  warm(id);
  admission_->on_hit(core_line(id), is_write);
  return listed;
}

void Shard::warm(uint32_t id) {
  replacement_->on_hit(local(id));
  if (learner_passed(local(id))) learner_->on_hit(local(id));
}

Admission Shard::admit(uint64_t core_line, bool is_write) {
  return admission_->admit({.block = core_line,
                            .is_write = is_write,
                            .used = used_,
                            .capacity = capacity()});
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
    --free_count_;
    free_cursor_ = slot + 1 == slots_.size() ? 0 : slot + 1;
    return slot;
  }
  return LineIndex::kNotFound;
}

void Shard::evict(uint32_t slot) {
  assert(!slots_.any_dirty(slot));
  admission_->on_evict(slots_.core_line(slot));
  unlist(slot);
}

void Shard::unlist(uint32_t slot) {
  policy_evict(slot, slots_.core_line(slot));
  --used_;
  note_used();
  if (slots_.untrusted(slot)) --untrusted_count_;
}

bool Shard::retire(uint32_t slot) {
  // A durable record that trusts the line, or says it is dirty, maps its core line here until a
  // persist rewrites it: only then may the line take other data.
  if (slots_.untrusted(slot) && slots_.untrust_durable(slot) && !slots_.durable_dirty(slot)) {
    free_slot(slot);
    return false;
  }
  move_to_limbo(slot);
  return true;
}

bool Shard::drop_empty(uint32_t id) {
  const uint32_t slot = local(id);
  assert(slots_.valid(slot).none() && !slots_.any_dirty(slot));
  unlist(slot);
  return retire(slot);
}

void Shard::free_slot(uint32_t slot) {
  index_.erase(slots_.core_line(slot), slot, slots_);
  slots_.clear(slot);
  Assign(free_map_, slot, true);
  ++free_count_;
}

uint32_t Shard::allocate(uint64_t core_line, const std::function<bool(uint32_t)>& can_reuse,
                         uint32_t* to_limbo, bool* evicted) {
  *evicted = false;
  *to_limbo = kNoLine;
  if (in_limbo(core_line)) return kNoLine;
  if (used_ >= capacity() || free_count_ == 0) {
    // Full: make room first, as the policy expects. A victim a durable record may still trust
    // waits in limbo for its free record, and the new line comes from the reserve meanwhile. When
    // the reserve is all in limbo too, each miss still sends its victim there and may wait for
    // the persist that frees it, so that every waiting miss finds a line then. Taking the first
    // unclaimed line instead would evict the newest lines (once trust rounds have trusted the
    // rest) and freeze what the cache holds.
    auto victim = replacement_->pick_victim(
        [&](uint32_t s) { return can_reuse(id_of(s)); }, kMaxVictimScan);
    if (victim) {
      evict(*victim);
      *evicted = true;
      if (retire(*victim)) *to_limbo = id_of(*victim);
    }
  }
  const uint32_t slot = take_free_line();
  if (slot == LineIndex::kNotFound) return kNoLine;
  map_fresh_line(slot, core_line);
  ++used_;
  note_used();
  return id_of(slot);
}

void Shard::map_fresh_line(uint32_t slot, uint64_t core_line) {
  index_.insert(core_line, slot);
  start_fresh_line(slot, core_line);
}

void Shard::start_fresh_line(uint32_t slot, uint64_t core_line) {
  slots_.assign(slot, core_line);
  // Untrusted, durably: a free line's SSD record claims nothing.
  slots_.set_untrusted(slot, true);
  slots_.set_untrust_durable(slot, true);
  ++untrusted_count_;
  list_untrusted(slot);
  policy_insert(slot, core_line);
}

void Shard::policy_insert(uint32_t slot, uint64_t core_line) {
  replacement_->on_insert(slot, core_line);
  if (!learner_passed(slot)) return;
  learner_->on_insert(slot, core_line);
  ++learner_lines_;
}

void Shard::policy_evict(uint32_t slot, uint64_t core_line) {
  replacement_->on_evict(slot, core_line);
  if (!learner_passed(slot)) return;
  learner_->on_evict(slot, core_line);
  --learner_lines_;
}

uint32_t Shard::move_to_new_line(uint32_t id) {
  const uint32_t old_slot = local(id);
  const uint64_t core_line = slots_.core_line(old_slot);
  assert(!slots_.any_dirty(old_slot));
  const uint32_t slot = take_free_line();
  if (slot == LineIndex::kNotFound) return kNoLine;
  // The block stays cached and admitted; only its place changes (the policy restarts it).
  policy_evict(old_slot, core_line);
  if (slots_.untrusted(old_slot)) --untrusted_count_;
  // The block's entry names its new line in place of an erase (a walk of its cluster) and an
  // insert; the old line keeps the block under the limbo key.
  index_.relink(core_line, old_slot, slot);
  park_in_limbo(old_slot, core_line);
  start_fresh_line(slot, core_line);
  return id_of(slot);
}

void Shard::add_limbo(uint32_t id, uint64_t need) {
  limbo_.push_back({id, need});
  limbo_need_ = std::max(limbo_need_, need);
}

bool Shard::set_write_only(uint32_t id, bool on) {
  const uint32_t slot = local(id);
  if (slots_.write_only(slot) == on) return false;
  slots_.set_write_only(slot, on);
  if (on || !slots_.untrusted(slot)) return false;
  list_untrusted(slot);
  return true;
}

bool Shard::mark_untrusted(uint32_t id) {
  const uint32_t slot = local(id);
  slots_.set_trust_candidate(slot, false);
  if (slots_.untrusted(slot)) return false;
  slots_.set_untrusted(slot, true);
  slots_.set_untrust_durable(slot, false);
  ++untrusted_count_;
  list_untrusted(slot);
  return true;
}

void Shard::untrust_all(const std::function<void(uint32_t)>& changed) {
  for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
    if (slots_.in_use(slot) && !slots_.limbo(slot) && mark_untrusted(id_of(slot))) {
      changed(id_of(slot));
    }
  }
}

void Shard::add_untrusting(uint32_t id, uint64_t need) {
  untrusting_.push_back({id, need});
  untrust_need_ = std::max(untrust_need_, need);
}

void Shard::list_untrusted(uint32_t slot) {
  if (slots_.listed(slot)) return;
  slots_.set_listed(slot, true);
  untrusted_list_.push_back(slot);
  // Freed and re-untrusted lines leave stale entries: keep the list within twice the lines.
  // Not during a trust walk (begin_trust_walk): it ends within a round, so the list stays bounded.
  if (untrusted_list_.size() > 2 * size_t{slots_.size()} + 64 && !walking_) compact_untrusted();
}

void Shard::compact_untrusted() {
  size_t kept = 0;
  for (uint32_t slot : untrusted_list_) {
    // The first entry of a listed untrusted line is kept; clearing `listed` drops later ones.
    if (slots_.in_use(slot) && !slots_.limbo(slot) && slots_.untrusted(slot) &&
        slots_.listed(slot)) {
      slots_.set_listed(slot, false);
      untrusted_list_[kept++] = slot;
    }
  }
  untrusted_list_.resize(kept);
  for (uint32_t slot : untrusted_list_) slots_.set_listed(slot, true);
}

uint64_t Shard::mark_trust_candidates(bool durable_only) {
  compact_untrusted();
  begin_trust_walk();
  uint64_t marked = 0;
  mark_trust_step(UINT32_MAX, durable_only, marked);
  return marked;
}

uint64_t Shard::trust_candidates(const std::function<void(uint32_t)>& changed) {
  begin_trust_walk();
  uint64_t trusted = 0;
  trust_step(UINT32_MAX, changed, trusted);
  compact_untrusted();  // and drops duplicates
  return trusted;
}

void Shard::begin_trust_walk() {
  walk_pos_ = walk_kept_ = 0;
  walk_end_ = untrusted_list_.size();
  walking_ = true;
}

bool Shard::mark_trust_step(uint32_t max, bool durable_only, uint64_t& marked) {
  const size_t end = std::min(walk_end_, walk_pos_ + max);
  for (; walk_pos_ < end; ++walk_pos_) {
    const uint32_t slot = untrusted_list_[walk_pos_];
    // Stale entries (freed, evicted or trusted lines since) are dropped by the trust walk.
    if (!slots_.in_use(slot) || slots_.limbo(slot) || !slots_.untrusted(slot)) continue;
    // Only a durable untrust may be undone: trusting earlier could let a late release mark a
    // newer untrust durable.
    if ((durable_only && (!slots_.untrust_durable(slot) || slots_.write_only(slot))) ||
        locks_.is_locked(slots_.core_line(slot))) {
      continue;
    }
    slots_.set_trust_candidate(slot, true);
    ++marked;
  }
  walking_ = walk_pos_ < walk_end_;
  return !walking_;
}

bool Shard::trust_step(uint32_t max, const std::function<void(uint32_t)>& changed,
                       uint64_t& trusted) {
  const size_t end = std::min(walk_end_, walk_pos_ + max);
  for (; walk_pos_ < end; ++walk_pos_) {
    const uint32_t slot = untrusted_list_[walk_pos_];
    if (!slots_.in_use(slot) || slots_.limbo(slot) || !slots_.untrusted(slot)) continue;
    if (!slots_.trust_candidate(slot) && slots_.write_only(slot)) {
      slots_.set_listed(slot, false);  // dropped until a read lists it again
      continue;
    }
    if (!slots_.trust_candidate(slot) || locks_.is_locked(slots_.core_line(slot)) ||
        in_limbo(slots_.core_line(slot))) {
      // (a limbo copy of its block: two clean records must never map one block)
      untrusted_list_[walk_kept_++] = slot;
      continue;
    }
    slots_.set_trust_candidate(slot, false);
    slots_.set_untrusted(slot, false);
    slots_.set_untrust_durable(slot, false);
    slots_.set_listed(slot, false);
    --untrusted_count_;
    ++trusted;
    changed(id_of(slot));
  }
  walking_ = walk_pos_ < walk_end_;
  if (walking_) return false;
  // The entries appended since the walk began follow the kept ones.
  untrusted_list_.erase(untrusted_list_.begin() + ptrdiff_t(walk_kept_),
                        untrusted_list_.begin() + ptrdiff_t(walk_end_));
  return true;
}

void Shard::install(uint32_t id, const LineRecord& record, uint32_t dirty_epoch) {
  uint32_t slot = local(id);
  assert(!slots_.in_use(slot) && Test(free_map_, slot));
  Assign(free_map_, slot, false);
  --free_count_;
  slots_.assign(slot, record.core_line);
  slots_.set_valid(slot, record.valid);
  index_.insert(record.core_line, slot);
  policy_insert(slot, record.core_line);
  ++used_;
  note_used();
  set_dirty(id, record.dirty, dirty_epoch);
  slots_.set_durable_dirty(slot, record.dirty.any());
}

void Shard::begin_policy_change(std::unique_ptr<ReplacementPolicy>& replacement,
                                std::unique_ptr<AdmissionPolicy>& admission) {
  assert(!learner_);
  if (admission) std::swap(admission_, admission);
  learner_ = std::move(replacement);
  learn_cursor_ = 0;
  learner_lines_ = 0;
}

bool Shard::learn_policy(uint32_t max_lines) {
  if (!learner_) return true;
  const uint32_t end =
      uint32_t(std::min<uint64_t>(slots_.size(), uint64_t{learn_cursor_} + max_lines));
  for (; learn_cursor_ < end; ++learn_cursor_) {
    if (!slots_.in_use(learn_cursor_) || slots_.limbo(learn_cursor_)) continue;
    learner_->on_insert(learn_cursor_, slots_.core_line(learn_cursor_));
    ++learner_lines_;
  }
  return learn_cursor_ == slots_.size();
}

void Shard::end_policy_change(std::unique_ptr<ReplacementPolicy>& replacement) {
  replacement.reset();
  if (!learner_) return;
  assert(learn_cursor_ == slots_.size());
  assert(learner_lines_ == used_);
  std::swap(replacement_, learner_);
  replacement = std::move(learner_);
  learn_cursor_ = 0;
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
  // A line cleaned, dirtied and cleaned again has an entry per cleaning. While the newer one waits,
  // the durable record may say dirty (the persist between them wrote it so): the older entry must
  // not release the line. (Collected only when some entry is due: this runs on every allocation.)
  waiting_ids_.clear();
  const bool any_due = std::any_of(clean_staged_.begin(), clean_staged_.end(),
                                   [&](const CleanStaged& c) { return c.epoch < completed_epoch; });
  if (any_due) {
    for (const CleanStaged& c : clean_staged_) {
      if (c.epoch >= completed_epoch) waiting_ids_.push_back(c.id);
    }
    std::sort(waiting_ids_.begin(), waiting_ids_.end());
  }
  size_t kept = 0;
  for (const CleanStaged& c : clean_staged_) {
    if (c.epoch < completed_epoch) {
      // Dirty again since: its durable record may say dirty once more, so it stays marked.
      const bool cleaned_again =
          std::binary_search(waiting_ids_.begin(), waiting_ids_.end(), c.id);
      if (!any_dirty(c.id) && !cleaned_again) set_durable_dirty(c.id, false);
    } else {
      clean_staged_[kept++] = c;
    }
  }
  clean_staged_.resize(kept);
  // Untrusts first: a limbo line released below may be reused at once.
  kept = 0;
  for (const Pending& p : untrusting_) {
    if (p.need > completed_epoch) {
      untrusting_[kept++] = p;
    } else if (slots_.untrusted(local(p.id))) {
      slots_.set_untrust_durable(local(p.id), true);
    }
  }
  untrusting_.resize(kept);
  kept = 0;
  for (const Pending& p : limbo_) {
    if (p.need > completed_epoch) {
      limbo_[kept++] = p;
    } else {
      free_slot(local(p.id));
    }
  }
  limbo_.resize(kept);
}

void Shard::collect_dirty(std::vector<uint64_t>& out, size_t max, int epoch) {
  const size_t words = dirty_map_.size();
  if (words == 0) return;
  // Slot order from the cursor, wrapping; the cursor's word is visited again last for the slots
  // before the cursor. The start is fixed before the loop: the cursor moves as slots are taken.
  const size_t start = dirty_cursor_ / 64;
  const uint64_t from_cursor = ~uint64_t{0} << (dirty_cursor_ % 64);
  size_t taken = 0;
  for (size_t n = 0; n <= words && taken < max; ++n) {
    const size_t w = (start + n) % words;
    uint64_t bits = dirty_map_[w] & (n == 0 ? from_cursor : n == words ? ~from_cursor : ~0ull);
    for (; bits != 0 && taken < max; bits &= bits - 1) {
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
         clean_staged_.capacity() * sizeof(CleanStaged) +
         (limbo_.capacity() + untrusting_.capacity()) * sizeof(Pending) +
         (untrusted_list_.capacity() + waiting_ids_.capacity()) * sizeof(uint32_t) +
         replacement_->memory_size() +
         (learner_ ? learner_->memory_size() : 0) + admission_->memory_size();
}

}  // namespace tiercache

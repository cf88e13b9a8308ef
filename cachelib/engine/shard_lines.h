// ShardLines: which cache lines each shard owns. Lines are dealt to the shards in stripes of
// `stripe` lines, in turn, so consecutive chunks filled by consecutive shards sit side by side on
// the SSD; a stripe of ceil(lines / shards) gives each shard one contiguous range (format
// versions 5 and 6). Shard s's local line i is its (i / stripe)-th stripe's (i % stripe)-th line.
// A value type.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tiercache {

class ShardLines {
 public:
  // Stripes of min(stripe, ceil(lines / shards)) lines (0: that ceiling) over as many of the
  // `shards` as get a line. REQUIRES: lines >= 1, shards >= 1, lines < 2^32.
  ShardLines(uint64_t lines, uint64_t shards, uint32_t stripe);

  uint32_t shards() const { return shards_; }
  uint32_t stripe() const { return stripe_; }
  uint32_t lines() const { return lines_; }
  uint32_t shard_of(uint32_t id) const { return id / stripe_ % shards_; }
  // `id`'s index among its shard's lines.
  uint32_t local(uint32_t id) const {
    const uint32_t stripe = id / stripe_;
    return stripe / shards_ * stripe_ + (id - stripe * stripe_);
  }
  // The id of `shard`'s local line `local`. REQUIRES: local < count(shard).
  uint32_t id(uint32_t shard, uint32_t local) const {
    const uint32_t round = local / stripe_;
    return uint32_t((uint64_t{round} * shards_ + shard) * stripe_ + (local - round * stripe_));
  }
  // Lines `shard` owns.
  uint32_t count(uint32_t shard) const {
    const uint64_t per_round = uint64_t{stripe_} * shards_;
    const uint64_t rest = lines_ % per_round;
    const uint64_t before = uint64_t{shard} * stripe_;
    return uint32_t(lines_ / per_round * stripe_ +
                    (rest > before ? std::min<uint64_t>(rest - before, stripe_) : 0));
  }

 private:
  uint32_t lines_, shards_, stripe_;
};

inline ShardLines::ShardLines(uint64_t lines, uint64_t shards, uint32_t stripe)
    : lines_(uint32_t(lines)) {
  const uint64_t per_shard = (lines + shards - 1) / shards;
  stripe_ = uint32_t(stripe == 0 ? per_shard : std::min<uint64_t>(stripe, per_shard));
  shards_ = uint32_t(std::min<uint64_t>(shards, (lines + stripe_ - 1) / stripe_));
}

}  // namespace tiercache

// SlotTable: the live state of one shard's cache lines in compact arrays: per line one 64-bit word
// (the core line it holds plus flags) and, for lines of more than one 4 KiB sector, valid and dirty
// bitmaps in a side array. A 4 KiB line costs 8 bytes here. Indexes are shard-local.
// Not thread-safe: guarded by the owning shard's mutex.
#pragma once

#include <cstdint>
#include <vector>

#include "cachelib/metadata/line_record.h"

namespace tiercache {

class SlotTable {
 public:
  SlotTable(uint32_t lines, uint32_t sectors_per_line);

  uint32_t size() const { return uint32_t(words_.size()); }
  bool in_use(uint32_t i) const { return (words_[i] & kLineMask) != kLineMask; }
  // The core line held, LineRecord::kNoCoreLine when free.
  uint64_t core_line(uint32_t i) const;
  // Maps the line to `core_line` with no valid or dirty sectors and no flags.
  void assign(uint32_t i, uint64_t core_line);
  // Frees the line (no sectors, no flags).
  void clear(uint32_t i) { words_[i] = kLineMask; clear_bits(i); }

  SectorBits valid(uint32_t i) const;
  SectorBits dirty(uint32_t i) const;
  bool any_dirty(uint32_t i) const;
  void set_valid(uint32_t i, const SectorBits& bits);
  void set_dirty(uint32_t i, const SectorBits& bits);

  // A record with dirty sectors may be on the SSD: the line may not be reused until a record
  // without them is durable.
  bool durable_dirty(uint32_t i) const { return words_[i] & kDurableDirty; }
  void set_durable_dirty(uint32_t i, bool on) { set_flag(i, kDurableDirty, on); }
  // Set by the cleaner when it copies the line; any write clears it, so the cleaner can tell
  // whether the dirty bits it copied are still the newest.
  bool clean_pending(uint32_t i) const { return words_[i] & kCleanPending; }
  void set_clean_pending(uint32_t i, bool on) { set_flag(i, kCleanPending, on); }

  // Warm after a crash (docs/io-paths.md): an untrusted line's record lists only its dirty
  // sectors, so a crash forgets its clean copies; a trusted one's lists every valid sector.
  // New lines, filled or written lines are untrusted until a core flush covers their data.
  bool untrusted(uint32_t i) const { return words_[i] & kUntrusted; }
  void set_untrusted(uint32_t i, bool on) { set_flag(i, kUntrusted, on); }
  // The SSD holds no record trusting this line's clean sectors (an untrusted record is durable).
  bool untrust_durable(uint32_t i) const { return words_[i] & kUntrustDurable; }
  void set_untrust_durable(uint32_t i, bool on) { set_flag(i, kUntrustDurable, on); }
  // Marked by a trust round before its core flush; any change of the line's data clears it.
  bool trust_candidate(uint32_t i) const { return words_[i] & kTrustCandidate; }
  void set_trust_candidate(uint32_t i, bool on) { set_flag(i, kTrustCandidate, on); }
  // The line is in its shard's list of untrusted lines (keeps the list free of duplicates).
  bool listed(uint32_t i) const { return words_[i] & kListed; }
  void set_listed(uint32_t i, bool on) { set_flag(i, kListed, on); }
  // Evicted, but the SSD may still hold a record trusting it for its old core line: it keeps
  // that core line (no lookup finds it) until a free record is durable.
  bool limbo(uint32_t i) const { return words_[i] & kLimbo; }
  void set_limbo(uint32_t i, bool on) { set_flag(i, kLimbo, on); }
  // The line's last client access was a write-through write: trust rounds leave it untrusted
  // until a read (Shard::set_write_only).
  bool write_only(uint32_t i) const { return words_[i] & kWriteOnly; }
  void set_write_only(uint32_t i, bool on) { set_flag(i, kWriteOnly, on); }

  // Which dirty epoch (0..3, DirtyEpochs) the line became dirty in.
  uint32_t dirty_epoch(uint32_t i) const { return uint32_t(words_[i] >> kEpochShift) & 3; }
  void set_dirty_epoch(uint32_t i, uint32_t epoch) {
    words_[i] = (words_[i] & ~(uint64_t{3} << kEpochShift)) | (uint64_t{epoch & 3} << kEpochShift);
  }

  // What the SSD record of the line says: free for a free or limbo line; only the dirty sectors
  // for an untrusted one.
  LineRecord record(uint32_t i) const;
  uint64_t memory_size() const;

 private:
  static constexpr uint64_t kLineMask = (uint64_t{1} << 48) - 1;  // all ones: free
  static constexpr uint64_t kValid = uint64_t{1} << 48;           // one-sector lines only
  static constexpr uint64_t kDirty = uint64_t{1} << 49;           // one-sector lines only
  static constexpr uint64_t kDurableDirty = uint64_t{1} << 50;
  static constexpr uint64_t kCleanPending = uint64_t{1} << 51;
  static constexpr uint32_t kEpochShift = 52;  // 2 bits
  static constexpr uint64_t kUntrusted = uint64_t{1} << 54;
  static constexpr uint64_t kUntrustDurable = uint64_t{1} << 55;
  static constexpr uint64_t kTrustCandidate = uint64_t{1} << 56;
  static constexpr uint64_t kListed = uint64_t{1} << 57;
  static constexpr uint64_t kLimbo = uint64_t{1} << 58;
  static constexpr uint64_t kWriteOnly = uint64_t{1} << 59;

  void set_flag(uint32_t i, uint64_t flag, bool on) {
    words_[i] = on ? (words_[i] | flag) : (words_[i] & ~flag);
  }
  void clear_bits(uint32_t i);
  SectorBits load_bitmap(uint32_t i, uint32_t which) const;
  void store_bitmap(uint32_t i, uint32_t which, const SectorBits& bits);

  const uint32_t sectors_per_line_;
  const uint32_t bitmap_words_;       // 64-bit words per bitmap; 0 for one-sector lines
  std::vector<uint64_t> words_;
  std::vector<uint64_t> bitmaps_;     // per line: valid words, then dirty words
};

}  // namespace tiercache

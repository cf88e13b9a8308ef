// RecordJournal: the write side of the record journal (docs/on-disk-format.md "Record journal").
// Collects the lines changed since the last persist and turns them into one journal round (their
// records as entries) appended to the journal region, used as a ring: the rounds below the
// durable epoch start are free again. Bookkeeping is guarded by the owner's (PagedMetadataStore's)
// mutex; a taken round is written by the owner's operation queue, one at a time.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cachelib/device/device.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"
#include "cachelib/metadata/store_options.h"

namespace tiercache {

class RecordJournal {
 public:
  // One round: its blocks, encoded, and where they go.
  struct Round {
    uint64_t round = 0;
    uint64_t first_block = 0;     // position in the journal region
    std::vector<uint64_t> lines;  // ascending, unique
    std::vector<std::byte> buf;   // blocks * 4096 bytes
    size_t blocks() const { return buf.size() / format::kBlockSize; }
    // Where block `i` goes: the journal is a ring.
    uint64_t position(size_t i, const format::Layout& layout) const {
      return (first_block + i) % layout.journal_blocks;
    }
  };
  using RecordSource = std::function<void(uint64_t first, std::span<LineRecord> out)>;

  // `in_use`: the journal holds blocks of the current epoch (from a load), so nothing may be
  // appended before a checkpoint ends the epoch.
  // When steps are wanted: `options`' step thresholds (validated), and only if the region has more
  // than `steps_above_pages` pages.
  RecordJournal(const format::Layout& layout, bool in_use, const StoreOptions& options);

  // Line `line` changed. Past what the free part of the journal could take, the lines are
  // dropped and the next persist must be a page checkpoint (overflowed()).
  void note_changed(uint64_t line);
  bool overflowed() const { return overflowed_; }
  bool has_changes() const { return !lines_.empty() || overflowed_; }
  // Takes the changed lines as round `round` if they fit in the journal's free blocks, leaving
  // one for a marker; else nullptr and nothing changes. Encode it with encode() outside the lock.
  std::unique_ptr<Round> take(uint64_t round);
  // A marker: round `round` as one block without entries, which keeps the epoch's rounds
  // consecutive across a page round written while the epoch goes on. nullptr if no block is free.
  std::unique_ptr<Round> take_marker(uint64_t round);
  // A page checkpoint took everything: the changed lines are covered by its pages.
  void clear_changes();
  // The checkpoint committed and moved the epoch: the journal is empty again.
  void start_epoch();
  // The epoch now durably starts at `round`: the blocks of older rounds are free.
  void release_before(uint64_t round);
  uint64_t used_blocks() const { return used_; }
  // How many steps the persist that just appended a round should write, by how full the
  // journal is: none up to `one_step_above`, one up to `four_steps_above`, then up to four; none
  // ever for a small region.
  size_t steps_wanted() const;

  // Fills round.buf from the live records (the source takes the engine's locks).
  void encode(Round& round, const std::array<uint8_t, 16>& uuid, const RecordSource& source) const;
  // Flushes `ssd` (the data the records describe becomes durable), writes the round's blocks
  // (up to 32 in flight), flushes again; done(first error or OK).
  void write(Device& ssd, std::shared_ptr<const Round> round, IoCallback done) const;

 private:
  struct Span {
    uint64_t round;
    uint64_t blocks;
  };
  std::unique_ptr<Round> place(uint64_t round, uint64_t blocks);

  const format::Layout layout_;
  const uint64_t capacity_entries_;
  const bool steps_;
  const JournalFill one_step_above_;
  const JournalFill four_steps_above_;
  uint64_t used_ = 0;  // blocks of the current epoch's live rounds
  uint64_t head_ = 0;  // where the next round starts
  std::deque<Span> live_;  // the live rounds, oldest first, in ring order from head_ - used_
  std::vector<uint64_t> lines_;
  bool overflowed_ = false;
};

}  // namespace tiercache

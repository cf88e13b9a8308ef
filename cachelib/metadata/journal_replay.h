// JournalReplay: the load side of the record journal (docs/on-disk-format.md "Record journal").
// Keeps the blocks of the current epoch (rounds >= the superblock's journal_start_round), checks
// that every round but the newest was written whole, and hands over the entries of the whole
// rounds in round order. One per load; thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cachelib/metadata/journal_block.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

class JournalReplay {
 public:
  // `latest_start`: the newest round the epoch may start at. The superblock's
  // journal_start_round, unless the load rolled the superblock's round forward (its commit was
  // lost): that commit may have moved the start up to intent_round + 1 and freed the blocks
  // below, so the epoch then starts at the first round from which every round is there.
  JournalReplay(const Superblock& sb, uint64_t core_lines, std::string ssd_name,
                uint64_t latest_start);

  // Journal block `index` as read. Corruption for a whole block with a wrong header.
  Status add(uint64_t index, std::span<const std::byte> block);
  // Calls fn(round, entry) for every entry of every whole round of the epoch, rounds ascending.
  // The newest round may be partial (its write was cut short): it is skipped. Corruption for an
  // older round that is not whole (damage: a later round was written after it) or a bad entry.
  Status replay(const std::function<void(uint64_t round, const JournalEntry&)>& fn);

  // The newest round of any valid block read (any epoch); 0 if none.
  uint64_t newest_round() const { return newest_round_; }
  // True if a block of the current epoch was read (whole or not).
  bool epoch_has_blocks() const { return !blocks_.empty(); }

 private:
  struct Block {
    JournalHeader header;
    uint64_t index = 0;
    std::vector<std::byte> bytes;
  };
  Status check_round(size_t first, size_t end, bool newest) const;
  // The round the epoch starts at: journal_start_round, or up to latest_start_ when the rounds
  // from there on are all whole (the newest may be partial) and the ones before are not.
  uint64_t epoch_start() const;

  const Superblock& sb_;
  const uint64_t core_lines_;
  const std::string ssd_name_;
  const uint64_t latest_start_;
  std::vector<Block> blocks_;  // of the current epoch
  uint64_t newest_round_ = 0;
};

}  // namespace tiercache

#include "cachelib/metadata/journal_replay.h"

#include <algorithm>
#include <tuple>

namespace tiercache {

JournalReplay::JournalReplay(const Superblock& sb, uint64_t core_lines, std::string ssd_name,
                             uint64_t latest_start)
    : sb_(sb),
      core_lines_(core_lines),
      ssd_name_(std::move(ssd_name)),
      latest_start_(std::max(latest_start, sb.journal_start_round)) {}

Status JournalReplay::add(uint64_t index, std::span<const std::byte> block) {
  JournalHeader h;
  switch (CheckJournalBlock(sb_.layout, block, sb_.uuid, &h)) {
    case JournalBlockState::kZero:
    case JournalBlockState::kDamaged:  // a torn write of the newest round, or damage: see replay
      return Status::Ok();
    case JournalBlockState::kWrongHeader:
      return Status::Corruption(ssd_name_ + ": journal block " + std::to_string(index) +
                                " has a valid checksum but a wrong header (cache uuid or counts)");
    case JournalBlockState::kValid:
      break;
  }
  newest_round_ = std::max(newest_round_, h.round);
  // Blocks of earlier epochs are covered by the page checkpoint that ended their epoch.
  if (h.round < sb_.journal_start_round) return Status::Ok();
  blocks_.push_back({h, index, std::vector<std::byte>(block.begin(), block.end())});
  return Status::Ok();
}

Status JournalReplay::check_round(size_t first, size_t end, bool newest) const {
  const JournalHeader& h = blocks_[first].header;
  for (size_t i = first + 1; i < end; ++i) {
    const JournalHeader& b = blocks_[i].header;
    // Every block of a round is written once, at one position, with the round's block count.
    if (b.blocks_in_round != h.blocks_in_round ||
        b.block_in_round == blocks_[i - 1].header.block_in_round) {
      return Status::Corruption(ssd_name_ + ": journal round " + std::to_string(h.round) +
                                " has inconsistent blocks (" +
                                std::to_string(blocks_[i - 1].index) + " and " +
                                std::to_string(blocks_[i].index) + ")");
    }
  }
  if (end - first == h.blocks_in_round || newest) return Status::Ok();
  return Status::Corruption(ssd_name_ + ": journal round " + std::to_string(h.round) +
                            " is missing blocks but a later round was written after it: the "
                            "journal is damaged");
}

uint64_t JournalReplay::epoch_start() const {
  const uint64_t start = sb_.journal_start_round;
  if (latest_start_ == start || blocks_.empty()) return start;
  // Down from the newest round while the rounds follow each other and are whole.
  uint64_t run = blocks_.back().header.round;
  size_t end = blocks_.size();
  while (end > 0) {
    size_t first = end;
    while (first > 0 && blocks_[first - 1].header.round == blocks_[end - 1].header.round) --first;
    const JournalHeader& h = blocks_[first].header;
    const bool newest = end == blocks_.size();  // may be partial
    if (!newest && (h.round + 1 != run || end - first != h.blocks_in_round)) break;
    run = h.round;
    end = first;
  }
  return std::clamp(run, start, latest_start_);
}

Status JournalReplay::replay(const std::function<void(uint64_t, const JournalEntry&)>& fn) {
  std::sort(blocks_.begin(), blocks_.end(), [](const Block& a, const Block& b) {
    return std::tie(a.header.round, a.header.block_in_round) <
           std::tie(b.header.round, b.header.block_in_round);
  });
  // Rounds below the epoch's start are covered by page slots, as those of earlier epochs are.
  const uint64_t start = epoch_start();
  std::erase_if(blocks_, [start](const Block& b) { return b.header.round < start; });
  uint64_t expected = start;
  for (size_t first = 0; first < blocks_.size();) {
    size_t end = first;
    while (end < blocks_.size() && blocks_[end].header.round == blocks_[first].header.round) ++end;
    const bool newest = end == blocks_.size();
    const uint64_t round = blocks_[first].header.round;
    // An epoch's rounds follow each other from its start: a missing one was lost to damage.
    if (round != expected) {
      return Status::Corruption(ssd_name_ + ": journal round " + std::to_string(expected) +
                                " is missing but round " + std::to_string(round) +
                                " was written after it: the journal is damaged");
    }
    expected = round + 1;
    TC_RETURN_IF_ERROR(check_round(first, end, newest));
    if (end - first == blocks_[first].header.blocks_in_round) {
      for (size_t b = first; b < end; ++b) {
        for (uint32_t i = 0; i < blocks_[b].header.entry_count; ++i) {
          Result<JournalEntry> e = DecodeJournalEntry(sb_.layout, blocks_[b].bytes, i, core_lines_);
          if (!e.ok()) {
            return Status::Corruption(ssd_name_ + ": journal block " +
                                      std::to_string(blocks_[b].index) + " entry " +
                                      std::to_string(i) + ": " + e.status().message());
          }
          fn(round, *e);
        }
      }
    }
    first = end;
  }
  return Status::Ok();
}

}  // namespace tiercache

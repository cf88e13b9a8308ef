// PageRound: metadata pages written as page rounds, a checkpoint (chunks of at most
// format::sb::kMaxRoundPages pages, one round each) or a step (one round and its journal marker):
// which pages, the slot each goes to, their encoded slots, and the I/O of the current chunk. The
// owner (PagedMetadataStore) runs the protocol around it (intent, commit) and the bookkeeping.
// Thread-compatible: one persist at a time owns it.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "cachelib/device/device.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"
#include "cachelib/metadata/record_journal.h"

namespace tiercache {

struct PageRound {
  static constexpr size_t kChunk = format::sb::kMaxRoundPages;
  // The records of `page` as they are now (out.size() = records in the page).
  using PageRecords = std::function<void(uint64_t page, std::span<LineRecord> out)>;

  std::vector<uint64_t> pages;  // ascending within each chunk
  std::vector<uint8_t> slots;   // the slot each page is written to
  uint64_t first_round = 0;     // chunk j is written as round first_round + j
  bool ends_epoch = false;      // the last chunk's commit starts a new journal epoch
  std::optional<uint64_t> start_after;  // journal_start_round of the last chunk's commit
  std::unique_ptr<RecordJournal::Round> marker;  // a step's: written with its commit
  // A journal round written with the first chunk's pages (it shares the round's flushes).
  std::shared_ptr<const RecordJournal::Round> riding;
  std::vector<std::byte> buf;   // pages.size() encoded 4096-byte slots
  bool mark_unclean_first = false;
  size_t chunk = 0;             // the chunk being written

  size_t chunks() const { return (pages.size() + kChunk - 1) / kChunk; }
  size_t begin() const { return chunk * kChunk; }
  size_t end() const { return std::min(pages.size(), begin() + kChunk); }
  uint64_t round() const { return first_round + chunk; }
  bool last_chunk() const { return chunk + 1 == chunks(); }

  // Pages per step: a quarter of the metadata region, at most one round's worth.
  static size_t StepPages(const format::Layout& layout) {
    return static_cast<size_t>(std::clamp<uint64_t>((layout.page_count + 3) / 4, 1, kChunk));
  }

  // Fills buf with every page's slot, records from `records` (and seals the marker, if any).
  void encode(const format::Layout& layout, const std::array<uint8_t, 16>& uuid,
              const PageRecords& records);
  // Writes the current chunk's pages (and the riding journal round's blocks), up to 32 in
  // flight, then flushes.
  void write_chunk(Device& ssd, const format::Layout& layout, IoCallback done) const;
  // Writes the marker, if any, without a flush: the commit's flush covers it (a commit whose
  // marker was lost leaves the marker's round the newest, which the load may find missing).
  void write_marker(Device& ssd, const format::Layout& layout, IoCallback done) const;
};

}  // namespace tiercache

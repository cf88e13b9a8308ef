#include "cachelib/metadata/page_round.h"

#include "cachelib/metadata/bounded_io.h"
#include "cachelib/metadata/journal_block.h"
#include "cachelib/metadata/metadata_page.h"

namespace tiercache {
namespace {

constexpr size_t kWriteWindow = 32;  // page writes in flight

}  // namespace

void PageRound::encode(const format::Layout& layout, const std::array<uint8_t, 16>& uuid,
                       const PageRecords& records) {
  buf.resize(pages.size() * format::kBlockSize);
  std::vector<LineRecord> live(layout.records_per_page);
  std::vector<std::byte> encoded(size_t{layout.records_per_page} * layout.record_size);
  for (size_t i = 0; i < pages.size(); ++i) {
    const uint64_t page = pages[i];
    const uint32_t count = layout.records_in_page(page);
    records(page, std::span(live).first(count));
    for (uint32_t k = 0; k < count; ++k) {
      const LineRecord& rec = live[k].in_use() ? live[k] : LineRecord{};  // free: no bits
      EncodeRecord(layout, rec,
                   std::span(encoded).subspan(size_t{k} * layout.record_size, layout.record_size));
    }
    BuildSlot({page, first_round + i / kChunk, uuid, count},
              std::span(encoded).first(size_t{count} * layout.record_size),
              std::span(buf).subspan(i * format::kBlockSize, format::kBlockSize));
  }
  if (marker) SealJournalBlock({marker->round, uuid, 0, 1, 0}, marker->buf);
}

void PageRound::write_chunk(Device& ssd, const format::Layout& layout, IoCallback done) const {
  const size_t count = end() - begin();
  const RecordJournal::Round* journal = chunk == 0 ? riding.get() : nullptr;
  auto submit = [this, &ssd, &layout, count, journal](size_t i, IoCallback cb) {
    if (i >= count) {  // the riding journal round's blocks, last
      auto block = std::span<const std::byte>(journal->buf)
                       .subspan((i - count) * format::kBlockSize, format::kBlockSize);
      return ssd.write(layout.journal_block_offset(journal->position(i - count, layout)), block,
                       {}, std::move(cb));
    }
    const size_t at = begin() + i;
    auto slot = std::span<const std::byte>(buf).subspan(at * format::kBlockSize, format::kBlockSize);
    ssd.write(layout.slot_offset(pages[at], slots[at]), slot, {}, std::move(cb));
  };
  RunBounded(count + (journal ? journal->blocks() : 0), kWriteWindow, std::move(submit),
             [&ssd, done = std::move(done)](Status s) mutable {
               if (!s.ok()) return done(std::move(s));
               ssd.flush(std::move(done));
             });
}

void PageRound::write_marker(Device& ssd, const format::Layout& layout, IoCallback done) const {
  if (!marker || !last_chunk()) return done(Status::Ok());
  ssd.write(layout.journal_block_offset(marker->first_block), marker->buf, {}, std::move(done));
}

}  // namespace tiercache

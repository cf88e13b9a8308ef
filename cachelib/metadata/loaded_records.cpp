#include "cachelib/metadata/loaded_records.h"

#include <cassert>

#include "cachelib/metadata/metadata_page.h"

namespace tiercache {

LoadedRecords::LoadedRecords(const format::Layout& layout, std::vector<std::byte> images)
    : layout_(layout), images_(std::move(images)) {
  assert(images_.empty() ||
         images_.size() == layout_.page_count * layout_.records_per_page * layout_.record_size);
}

LineRecord LoadedRecords::decode(uint64_t page, uint32_t index) const {
  const size_t page_bytes = size_t{layout_.records_per_page} * layout_.record_size;
  auto bytes = std::span<const std::byte>(images_).subspan(
      page * page_bytes + size_t{index} * layout_.record_size, layout_.record_size);
  Result<LineRecord> r = DecodeRecord(layout_, bytes, ~uint64_t{0});
  return r.ok() ? *r : LineRecord{};
}

LineRecord LoadedRecords::record(uint64_t line) const {
  assert(line < layout_.line_count);
  if (images_.empty()) return LineRecord{};
  return decode(line / layout_.records_per_page,
                static_cast<uint32_t>(line % layout_.records_per_page));
}

void LoadedRecords::for_each_in_use(
    const std::function<bool(uint64_t page)>& wanted,
    const std::function<void(uint64_t, const LineRecord&)>& fn) const {
  if (images_.empty()) return;
  for (uint64_t page = 0; page < layout_.page_count; ++page) {
    if (!wanted(page)) continue;
    const uint64_t first = page * layout_.records_per_page;
    for (uint32_t r = 0; r < layout_.records_in_page(page); ++r) {
      LineRecord rec = decode(page, r);
      if (rec.in_use()) fn(first + r, rec);
    }
  }
}

}  // namespace tiercache

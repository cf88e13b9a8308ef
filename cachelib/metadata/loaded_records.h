// LoadedRecords: the record bytes of every metadata page as Open loaded them (journal replayed),
// decoded on demand, until the owner has taken them and releases them. Open checked every record,
// so a record decodes; a released or empty set reads as all free. Thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "cachelib/metadata/format.h"
#include "cachelib/metadata/line_record.h"

namespace tiercache {

class LoadedRecords {
 public:
  // `images`: page_count pages of records_per_page * record_size bytes, or empty.
  LoadedRecords(const format::Layout& layout, std::vector<std::byte> images);

  bool empty() const { return images_.empty(); }
  LineRecord record(uint64_t line) const;
  // fn(line, record) for every in-use record of the pages `wanted` accepts, in line order.
  void for_each_in_use(const std::function<bool(uint64_t page)>& wanted,
                       const std::function<void(uint64_t, const LineRecord&)>& fn) const;
  void release() { std::vector<std::byte>().swap(images_); }

 private:
  LineRecord decode(uint64_t page, uint32_t index) const;

  const format::Layout layout_;
  std::vector<std::byte> images_;
};

}  // namespace tiercache

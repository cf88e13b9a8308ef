#include "cachelib/metadata/metadata_test_util.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

#include "cachelib/metadata/metadata_page.h"
#include "cachelib/metadata/superblock.h"

namespace tiercache {

void PrintTo(const LineRecord& r, std::ostream* os) {
  if (!r.in_use()) {
    *os << "{free" << (r.valid.any() ? " with bits" : "") << "}";
    return;
  }
  auto low = [](const SectorBits& b) { return (b & SectorBits(~uint64_t{0})).to_ullong(); };
  *os << "{core_line " << r.core_line << ", valid 0x" << std::hex << low(r.valid) << ", dirty 0x"
      << low(r.dirty) << std::dec << "}";
}

}  // namespace tiercache

namespace tiercache::testing {
namespace {

template <typename T>
T RunToCompletion(SimEventLoop& loop, const std::function<void(std::function<void(T)>)>& submit) {
  std::optional<T> result;
  {
    EventLoop::ScopedCurrent scope(&loop);
    submit([&](T r) { result.emplace(std::move(r)); });
  }
  loop.run_until([&] { return result.has_value(); });
  if (!result) return T(Status::IoError("operation never completed"));
  return std::move(*result);
}

Result<LoadedSuperblock> SuperblockOnDevice(const MemoryDevice& ssd) {
  std::vector<std::byte> area(format::kSuperblockAreaSize);
  ssd.read_now(0, area);
  return LoadSuperblock(area, ssd.name());
}

}  // namespace

Status SyncFormat(SimEventLoop& loop, Device& ssd, const CoreIdentity& core,
                  const FormatOptions& options) {
  return RunToCompletion<Status>(
      loop, [&](std::function<void(Status)> cb) { MetadataStore::Format(ssd, core, options, cb); });
}

Result<std::unique_ptr<MetadataStore>> SyncOpen(SimEventLoop& loop, Device& ssd,
                                                const CoreIdentity& core,
                                                const StoreOptions& options) {
  using R = Result<std::unique_ptr<MetadataStore>>;
  std::optional<R> result;
  {
    EventLoop::ScopedCurrent scope(&loop);
    MetadataStore::Open(ssd, core, [&](R r) { result.emplace(std::move(r)); }, options);
  }
  loop.run_until([&] { return result.has_value(); });
  if (!result) return Status::IoError("open never completed");
  return std::move(*result);
}

Status SyncPersist(SimEventLoop& loop, MetadataStore& store) {
  return RunToCompletion<Status>(loop, [&](std::function<void(Status)> cb) { store.persist(cb); });
}

Status SyncSetMode(SimEventLoop& loop, MetadataStore& store, CacheMode mode) {
  return RunToCompletion<Status>(loop,
                                 [&](std::function<void(Status)> cb) { store.set_mode(mode, cb); });
}

Status SyncCloseClean(SimEventLoop& loop, MetadataStore& store) {
  return RunToCompletion<Status>(loop,
                                 [&](std::function<void(Status)> cb) { store.close_clean(cb); });
}

format::Layout LayoutOnDevice(const MemoryDevice& ssd) {
  auto sb = SuperblockOnDevice(ssd);
  EXPECT_TRUE(sb.ok()) << sb.status().ToString();
  return sb.ok() ? sb->sb.layout : format::Layout{};
}

std::vector<LineRecord> RecordsOnDevice(const MemoryDevice& ssd) {
  auto sb = SuperblockOnDevice(ssd);
  EXPECT_TRUE(sb.ok()) << sb.status().ToString();
  if (!sb.ok()) return {};
  const format::Layout& l = sb->sb.layout;
  std::vector<LineRecord> out(l.line_count);
  std::vector<std::byte> page(format::kPageStride);
  for (uint64_t p = 0; p < l.page_count; ++p) {
    ssd.read_now(l.slot_offset(p, 0), page);
    SlotHeader expected{p, 0, sb->sb.uuid, l.records_in_page(p)};
    // Newest valid slot, whatever the rounds say: what is stored now.
    auto choice = ChooseSlot(page, expected, {~uint64_t{0}, ~uint64_t{0}, true});
    EXPECT_TRUE(choice.ok()) << choice.status().ToString();
    if (!choice.ok() || choice->never_written) continue;
    auto slot = std::span<const std::byte>(page).subspan(choice->slot * format::kBlockSize);
    for (uint32_t r = 0; r < expected.record_count; ++r) {
      auto rec = DecodeRecord(l, slot.subspan(format::slot::kHeaderSize + r * l.record_size),
                              ~uint64_t{0} - 1);
      EXPECT_TRUE(rec.ok()) << rec.status().ToString();
      if (rec.ok()) out[p * l.records_per_page + r] = *rec;
    }
  }
  return out;
}

LineRecord MakeRecord(uint64_t seed, uint64_t core_line, uint32_t sectors, bool dirty) {
  LineRecord r;
  r.core_line = core_line;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint32_t s = 0; s < sectors; ++s) {
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    bool valid = (x >> 60) != 0 || s == 0;  // ~15/16 valid, sector 0 always
    if (!valid) continue;
    r.valid.set(s);
    if (dirty && ((x >> 40) & 1 || s == 0)) r.dirty.set(s);
  }
  return r;
}

}  // namespace tiercache::testing

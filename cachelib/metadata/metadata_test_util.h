// Test-only helpers for the metadata tests: run Format/Open/persist/... to completion on a
// SimEventLoop, read the records that are on a MemoryDevice right now (independently of Open), and
// build varied LineRecords. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/metadata/format.h"
#include "cachelib/metadata/metadata_store.h"

namespace tiercache {
// gtest output: "{core_line 7, valid 0x..., dirty 0x...}" (low 64 sectors) or "{free}".
void PrintTo(const LineRecord& r, std::ostream* os);
}  // namespace tiercache

namespace tiercache::testing {

Status SyncFormat(SimEventLoop& loop, Device& ssd, const CoreIdentity& core,
                  const FormatOptions& options);
Result<std::unique_ptr<MetadataStore>> SyncOpen(SimEventLoop& loop, Device& ssd,
                                                const CoreIdentity& core,
                                                const StoreOptions& options = {});
Status SyncPersist(SimEventLoop& loop, MetadataStore& store);
Status SyncSetMode(SimEventLoop& loop, MetadataStore& store, CacheMode mode);
Status SyncCloseClean(SimEventLoop& loop, MetadataStore& store);

// The superblock copy with the highest sequence among valid copies, decoded; asserts one exists.
format::Layout LayoutOnDevice(const MemoryDevice& ssd);
// The records of the newest valid slot of every page, as stored now (no unclean filtering).
std::vector<LineRecord> RecordsOnDevice(const MemoryDevice& ssd);

// Counts the writes and flushes that reach the SSD; fails (without applying) every write from
// number `fail_from_write` on (1-based, counted since the last reset of `writes`).
class CountingDevice final : public DeviceWrapper {
 public:
  explicit CountingDevice(Device& target) : DeviceWrapper(target) {}
  uint64_t writes = 0, flushes = 0;
  uint64_t fail_from_write = ~uint64_t{0};

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    if (++writes >= fail_from_write) return complete_later(std::move(cb), Status::IoError("cut"));
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
  void flush_impl(IoCallback cb) override {
    ++flushes;
    DeviceWrapper::flush_impl(std::move(cb));
  }
};

// A deterministic in-use record for `seed` on a line of `sectors` sectors: some valid sectors,
// a subset dirty (none when !dirty).
LineRecord MakeRecord(uint64_t seed, uint64_t core_line, uint32_t sectors, bool dirty);

}  // namespace tiercache::testing

// CacheHarness: a Cache on MemoryDevices (or any SSD/core Devices) driven by a SimEventLoop, with
// synchronous create/open/close/restart for tests. Test-only; single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/memory_device.h"
#include "cachelib/engine/cache.h"
#include "tests/support/sync_io.h"

namespace tiercache::testing {

Status SyncFormat(SimEventLoop& loop, Device& ssd, const CoreIdentity& core,
                  const FormatOptions& options);
Result<std::unique_ptr<Cache>> SyncOpenCache(SimEventLoop& loop, Device& ssd, Device& core,
                                             const CoreIdentity& core_id,
                                             const CacheOptions& options);
Status SyncClose(SimEventLoop& loop, Cache& cache, bool forget_clean = false);
Status SyncSetMode(SimEventLoop& loop, Cache& cache, CacheMode mode, bool drain);
Status SyncSetPolicies(SimEventLoop& loop, Cache& cache, const PolicyOptions& policies);
Status SyncCleanAll(SimEventLoop& loop, Cache& cache);
Status SyncSetCleaning(SimEventLoop& loop, Cache& cache, const std::string& policy,
                       const CleaningOptions& options);

// The counter called `name` in one of a PolicyReport's lists; ~0 when there is none.
uint64_t CounterOf(const PolicyReport::Counters& counters, std::string_view name);

struct CacheHarness {
  // A cache of `ssd_bytes` (SSD, metadata included) in front of a `core_bytes` core.
  CacheHarness(uint64_t ssd_bytes, uint64_t core_bytes, FormatOptions format = {},
               CacheOptions options = {});
  // Opens the cache (again) on the same devices; ASSERTs success.
  void open();
  // Clean shutdown then open.
  void restart();
  // A crash now: what the devices hold at this instant is all the new instance sees. The old
  // instance is left to finish its background work against the old contents, then closed.
  void crash_restart();

  SimEventLoop loop;
  MemoryDevice ssd_mem, core_mem;
  Device* ssd;   // defaults to &ssd_mem; tests may point these at wrappers before open()
  Device* core;
  CoreIdentity core_id;
  CacheOptions options;
  std::unique_ptr<Cache> cache;
};

}  // namespace tiercache::testing

// Test helpers: run one Device request to completion on a SimEventLoop and return its status,
// and deterministic data patterns for byte-exact checks. Test-only; not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/device.h"

namespace tiercache::testing {

// Submits the request with `loop` current and runs the loop until it completes.
Status SyncRead(SimEventLoop& loop, Device& dev, uint64_t offset, std::span<std::byte> buf);
Status SyncWrite(SimEventLoop& loop, Device& dev, uint64_t offset,
                 std::span<const std::byte> buf, WriteFlags flags = {});
Status SyncFlush(SimEventLoop& loop, Device& dev);
Status SyncDiscard(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length);
Status SyncWriteZeroes(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length);
Status SyncPrefetch(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length);

// `length` bytes whose content depends on (seed, absolute offset): any misplaced byte shows.
std::vector<std::byte> Pattern(uint64_t seed, uint64_t offset, size_t length);

}  // namespace tiercache::testing

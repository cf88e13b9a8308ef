// Textbook reference caches (LRU, ARC, LIRS, S3-FIFO, SIEVE): block-keyed, fully associative,
// admitting every miss. The yardstick the engine's policies are held against in policy_sim; they
// are list-and-hash-map models, not built for the engine's memory budget. Each call returns an
// owned, independent cache; not thread-safe. Testing only.
#pragma once

#include <cstdint>
#include <memory>

#include "policy/testing/cache_model.h"

namespace tiercache {

std::unique_ptr<CacheModel> MakeLruReference(uint32_t capacity);
// Megiddo & Modha, FAST 2003.
std::unique_ptr<CacheModel> MakeArcReference(uint32_t capacity);
// Jiang & Zhang, SIGMETRICS 2002: 1% of the cache for resident HIR blocks.
std::unique_ptr<CacheModel> MakeLirsReference(uint32_t capacity);
// Yang et al., SOSP 2023: 10% small FIFO, main FIFO, ghost FIFO as long as main; a block moves to
// main when it was hit at least once while in the small FIFO.
std::unique_ptr<CacheModel> MakeS3FifoReference(uint32_t capacity);
// Zhang et al., NSDI 2024.
std::unique_ptr<CacheModel> MakeSieveReference(uint32_t capacity);

}  // namespace tiercache

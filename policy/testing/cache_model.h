// CacheModel: one fully associative cache fed a trace block by block, as the policy simulator and
// the textbook reference caches see it. Owned by the harness; not thread-safe. Testing only.
#pragma once

#include <cstdint>

namespace tiercache {

class CacheModel {
 public:
  virtual ~CacheModel() = default;
  virtual const char* name() const = 0;
  // One read of a 4 KiB block; true = it was cached (hit).
  virtual bool access(uint64_t block) = 0;
  // Blocks written to the cache device so far (one per admitted miss).
  virtual uint64_t ssd_writes() const = 0;
};

}  // namespace tiercache

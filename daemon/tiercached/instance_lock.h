// InstanceLock: an exclusive flock on the cache device, held for the daemon's life, so a second
// tiercached (or `tiercache create --force`) on the same cache is refused instead of corrupting it.
#pragma once

#include <memory>
#include <string>

#include "cachelib/common/status.h"

namespace tiercache {

class InstanceLock {
 public:
  // Busy naming the path if another process holds it.
  static Result<std::unique_ptr<InstanceLock>> Acquire(const std::string& path);
  ~InstanceLock();

 private:
  explicit InstanceLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace tiercache

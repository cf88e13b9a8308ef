// InstanceLock: an exclusive flock on the cache device, held by tiercached for its life and by
// `tiercache create` while it formats, so a second daemon, or a re-format of a served cache (on any
// sockets), is refused instead of corrupting it.
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

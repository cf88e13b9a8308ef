// InstanceLock: an exclusive flock on the cache device, held by tiercached for its life and by
// `tiercache create` while it formats, so a second daemon, or a re-format of a served cache (on any
// sockets), is refused instead of corrupting it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cachelib/common/status.h"

namespace tiercache {

class InstanceLock {
 public:
  // Busy naming the path if another process holds it. A loop device's backing file is locked
  // too: a daemon on /dev/loop0 over ssd.img and one on ssd.img itself share one cache.
  static Result<std::unique_ptr<InstanceLock>> Acquire(const std::string& path);
  ~InstanceLock();

 private:
  explicit InstanceLock(std::vector<int> fds) : fds_(std::move(fds)) {}
  std::vector<int> fds_;
};

}  // namespace tiercache

// UringContext: an IoQueue over one io_uring, FileDevice's preferred backend. Operations started
// during a loop round (merged ones as readv/writev when their buffers are apart) become SQEs and
// go to the kernel in one io_uring_submit at the end of the round; the ring signals the
// IoQueue's eventfd (io_uring_register_eventfd) and each CQE's callback runs as soon as the loop
// sees it. The device's fd is a registered file (index 0), which spares
// the kernel a file lookup and reference per operation. Buffers are not registered: the engine's
// come from the heap, not from a fixed pool the ring could pin once.
// Owned by FileDevice; used only on its loop's thread (not thread-safe).
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>

#include "cachelib/device/io_queue.h"

namespace tiercache {

class UringContext final : public IoQueue {
 public:
  // Sets up a ring for `queue_depth` operations, registers `file` (if >= 0) and the eventfd, and
  // starts watching it on `loop`. Operations on `file` use the registered index; others the fd.
  // Errors: io_uring refused (ENOSYS under seccomp, EPERM with kernel.io_uring_disabled), or
  // NotSupported on loops without fds (SimEventLoop). REQUIRES: called on `loop`'s thread.
  static Result<std::unique_ptr<UringContext>> Create(EventLoop& loop, uint32_t queue_depth,
                                                      int file = -1);
  // Sets up and tears down a one-entry ring: whether this process may use io_uring at all.
  static Status Probe();
  // REQUIRES: as ~IoQueue.
  ~UringContext() override;

  const char* backend_name() const override { return "io_uring"; }
  bool file_registered() const { return registered_fd_ >= 0; }

 private:
  UringContext(EventLoop& loop, uint32_t queue_depth, int eventfd);
  Status setup(int file);
  void prepare(uint32_t slot) override;
  void submit_prepared() override;
  void reap() override;
  io_uring_sqe* next_sqe();

  io_uring ring_{};
  bool ring_ready_ = false;
  int registered_fd_ = -1;
};

}  // namespace tiercache

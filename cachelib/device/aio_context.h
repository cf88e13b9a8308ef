// AioContext: one Linux AIO context (io_setup) plus an eventfd that one EventLoop watches;
// FileDevice keeps one per loop. At most queue_depth operations are in the kernel; more wait in a
// FIFO. Operations started during one loop round go to the kernel together, in one io_submit
// posted to the end of the round: one system call and one device doorbell for a burst.
// Owned by FileDevice; used only on its loop's thread (not thread-safe).
#pragma once

#include <libaio.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

// One kernel operation. `done` runs on the context's loop, never inside submit().
struct AioOp {
  io_iocb_cmd opcode = IO_CMD_PREAD;  // IO_CMD_PREAD, IO_CMD_PWRITE or IO_CMD_FDSYNC
  int fd = -1;
  void* buf = nullptr;
  size_t length = 0;
  uint64_t offset = 0;
  int rw_flags = 0;  // RWF_* for reads and writes (RWF_DSYNC for FUA)
  // Bytes transferred (>= 0) or -errno.
  std::function<void(long)> done;
};

class AioContext {
 public:
  // Sets up the kernel context and the eventfd and starts watching it on `loop`.
  // REQUIRES: called on `loop`'s thread. NotSupported on loops without fds (SimEventLoop).
  static Result<std::unique_ptr<AioContext>> Create(EventLoop& loop, uint32_t queue_depth);
  // REQUIRES: idle (nothing in flight or waiting) and unwatch() called, or the loop is gone.
  ~AioContext();
  AioContext(const AioContext&) = delete;
  AioContext& operator=(const AioContext&) = delete;

  EventLoop& loop() { return loop_; }
  void submit(AioOp op);
  // Stops watching the eventfd. REQUIRES: called on the loop's thread.
  void unwatch();

  // Operations started: in the kernel, or batched for this round's io_submit.
  uint32_t in_flight() const { return in_flight_; }
  size_t waiting() const { return waiting_.size(); }
  // io_submit calls made so far (each carries a whole batch).
  uint64_t submit_calls() const { return submit_calls_; }

 private:
  struct Slot;
  AioContext(EventLoop& loop, uint32_t queue_depth, io_context_t ctx, int eventfd);
  void start(AioOp op);
  void submit_batch();
  void reap();
  void start_waiting();

  EventLoop& loop_;
  const uint32_t queue_depth_;
  io_context_t ctx_;
  const int eventfd_;
  bool watched_ = false;
  uint32_t in_flight_ = 0;
  uint64_t submit_calls_ = 0;
  std::deque<AioOp> waiting_;
  std::vector<iocb*> batch_;  // started, not yet given to the kernel
};

}  // namespace tiercache

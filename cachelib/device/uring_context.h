// UringContext: an IoQueue on the loop's shared io_uring (LoopRing), FileDevice's preferred
// backend. Operations started during a loop round (merged ones as readv/writev when their
// buffers are apart) become disk entries of the loop's ring at the round's end
// (LoopRing::get_disk_sqe()): each goes to the kernel as the next is prepared, the last with the
// loop's sleep; or, with LoopRing::submit_each() off, all of them with whatever the loop's
// sockets and other devices prepared, in one io_uring_enter (the one that also puts the loop to
// sleep, on an EpollEventLoop).
// Each completion's callback runs as soon as the loop sees it. The device's fd sits in the
// ring's file table when there is room (no file lookup and reference per operation). A read or
// write of one buffer that lies in memory registered with the ring (LoopRing::register_buffer,
// e.g. the NBD buffer pool's slabs) goes out as READ_FIXED/WRITE_FIXED (counters().
// fixed_buffers); other buffers (the heap, vectored merges) as plain READ/WRITE/READV/WRITEV.
// Owned by FileDevice; used only on its loop's thread (not thread-safe).
#pragma once

#include <liburing.h>

#include <cstdint>
#include <memory>

#include "cachelib/device/io_queue.h"
#include "cachelib/device/loop_ring.h"

namespace tiercache {

class UringContext final : public IoQueue, private LoopRing::Client {
 public:
  // Joins `loop`'s ring (creating it on first use) for at most `queue_depth` operations at once,
  // with `file` (if >= 0) in its file table. Operations on `file` use the table; others the fd.
  // Errors: as LoopRing::ForLoop. REQUIRES: called on `loop`'s thread.
  static Result<std::unique_ptr<UringContext>> Create(EventLoop& loop, uint32_t queue_depth,
                                                      int file = -1);
  // Sets up and tears down a one-entry ring: whether this process may use io_uring at all.
  static Status Probe();
  // REQUIRES: as ~IoQueue.
  ~UringContext() override;

  const char* backend_name() const override { return "io_uring"; }
  bool file_registered() const { return file_index_ >= 0; }
  // Leaves the ring. REQUIRES: on the loop's thread, nothing in flight.
  void unwatch() override;

 private:
  UringContext(EventLoop& loop, uint32_t queue_depth, std::shared_ptr<LoopRing> ring, int file);
  void prepare(uint32_t slot) override;
  // A read or write of one buffer, fixed when the buffer is registered.
  void prepare_single(io_uring_sqe* sqe, int fd, const IoOp& o);
  void submit_prepared() override;
  void reap() override {}  // completions come through on_completion()
  void on_completion(uint32_t tag, int32_t res) override;

  std::shared_ptr<LoopRing> ring_;
  uint32_t client_id_ = 0;
  int file_ = -1;        // the device's fd
  int file_index_ = -1;  // its slot in the ring's file table, or -1
  uint64_t prepared_ = 0;  // operations prepared since the last submit_prepared()
  uint64_t enters_before_ = 0;  // the ring's enters when this round's first one was prepared
};

}  // namespace tiercache

// IoQueue: what a per-loop kernel I/O queue does whatever the kernel interface: at most
// queue_depth operations in the kernel and a FIFO beyond, operations started during one loop
// round handed to the kernel together at the end of the round, completions watched through an
// eventfd on the loop, and the counters that give the mean device queue depth. AioContext (libaio)
// and UringContext (io_uring) say how operations reach the kernel and how they come back.
// Owned by FileDevice; used only on its loop's thread, except counters() (any thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "cachelib/common/event_loop.h"

namespace tiercache {

// One kernel operation. `done` runs on the queue's loop, never inside submit().
struct IoOp {
  enum class Kind { kRead, kWrite, kDatasync };
  Kind kind = Kind::kRead;
  int fd = -1;
  void* buf = nullptr;
  size_t length = 0;
  uint64_t offset = 0;
  int rw_flags = 0;  // RWF_* for reads and writes (RWF_DSYNC for FUA)
  // Bytes transferred (>= 0) or -errno.
  std::function<void(long)> done;
};

// Counters of one queue, or summed over a device's queues (FileDevice::io_counters()).
struct IoQueueCounters {
  uint64_t rounds = 0;        // loop rounds that handed operations to the kernel
  uint64_t submit_calls = 0;  // io_submit / io_uring_enter calls those rounds made
  uint64_t ops = 0;           // operations handed to the kernel
  // Sum over rounds of the operations in the kernel right after the round's submission:
  // in_flight_sum / rounds is the mean queue depth the device sees (fio's "IO depths" samples
  // the same moment).
  uint64_t in_flight_sum = 0;

  IoQueueCounters& operator+=(const IoQueueCounters& o);
};

class IoQueue {
 public:
  // REQUIRES: idle (nothing in flight or waiting) and unwatch() called, or the loop is gone.
  virtual ~IoQueue();
  IoQueue(const IoQueue&) = delete;
  IoQueue& operator=(const IoQueue&) = delete;

  EventLoop& loop() { return loop_; }
  // Starts `op` in this round, or queues it behind the waiting ones when queue_depth operations
  // are in the kernel.
  void submit(IoOp op);
  // Stops watching the eventfd. REQUIRES: called on the loop's thread.
  void unwatch();

  // "io_uring" or "libaio".
  virtual const char* backend_name() const = 0;
  // Operations started: in the kernel, or prepared for this round's submission.
  uint32_t in_flight() const { return in_flight_; }
  size_t waiting() const { return waiting_.size(); }
  // A snapshot; thread-safe (relaxed: exact once quiescent).
  IoQueueCounters counters() const;

 protected:
  // Takes ownership of `eventfd`, which the kernel signals on completions.
  IoQueue(EventLoop& loop, uint32_t queue_depth, int eventfd);
  // Watches the eventfd on the loop. NotSupported on loops without fds (SimEventLoop).
  Status watch();
  int eventfd() const { return eventfd_; }
  uint32_t queue_depth() const { return queue_depth_; }

  // Prepares the operation held in `slot` for this round's submission (in_flight counts it).
  virtual void prepare(uint32_t slot) = 0;
  // Gives every prepared operation to the kernel, also those prepared while it runs.
  virtual void submit_prepared() = 0;
  // Completes (finish()) every operation the kernel has finished.
  virtual void reap() = 0;

  // The operation in `slot`; stable until release().
  IoOp& held(uint32_t slot) { return slots_[slot]; }
  // A kernel result: frees the slot and runs the operation's callback now.
  void finish(uint32_t slot, long res);
  // Refused at submission: frees the slot; the callback runs later with `res`, never inline.
  void refuse(uint32_t slot, long res);
  void count_submit_call(uint64_t ops);

 private:
  void start(IoOp op);
  void end_round();
  void on_eventfd();
  void start_waiting();
  IoOp release(uint32_t slot);

  EventLoop& loop_;
  const uint32_t queue_depth_;
  const int eventfd_;
  bool watched_ = false;
  bool round_pending_ = false;  // end_round() is posted
  uint32_t in_flight_ = 0;
  std::deque<IoOp> waiting_;
  std::deque<IoOp> slots_;      // at most queue_depth; a deque keeps references stable
  std::vector<uint32_t> free_;  // indexes into slots_
  std::atomic<uint64_t> rounds_{0}, submit_calls_{0}, ops_{0}, in_flight_sum_{0};
};

}  // namespace tiercache

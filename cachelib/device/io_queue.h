// IoQueue: what a per-loop kernel I/O queue does whatever the kernel interface: at most
// queue_depth operations in the kernel and a FIFO beyond, operations started during one loop
// round handed to the kernel at the end of the round (contiguous reads or writes of one round
// merged into one kernel operation), completions watched on the loop (an eventfd of its own, or
// the loop's shared ring), and the counters that give the mean device queue depth. AioContext
// (libaio: one io_submit per round) and UringContext (io_uring: one operation per
// io_uring_enter by default) say how operations reach the kernel and how they come back.
// Owned by FileDevice; used only on its loop's thread, except counters() (any thread).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
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
  // Operations that joined the contiguous one before them in their round instead of taking a
  // kernel operation of their own (ops counts the merged operation once).
  uint64_t merged = 0;
  // Reads and writes whose buffer lay in memory registered with the ring (READ_FIXED/
  // WRITE_FIXED: the kernel pinned it once, not per operation). io_uring only.
  uint64_t fixed_buffers = 0;

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
  // are in the kernel. A read or write that continues the file range of the last operation started
  // in this round (same fd, kind and rw_flags; up to kMaxMergeBytes and kMaxMergeParts) joins it:
  // one kernel operation, vectored if the buffers are not contiguous. Each part's `done` then gets
  // its own share of the result, in file order: its length, the partial count of a short transfer
  // (parts the transfer did not reach are submitted again on their own), or the error.
  void submit(IoOp op);

  // A merged operation moves at most this much, in at most this many parts (IOV_MAX is 1024).
  static constexpr size_t kMaxMergeBytes = size_t{1} << 20;
  static constexpr size_t kMaxMergeParts = 256;
  // Stops watching for completions. REQUIRES: called on the loop's thread, nothing in flight.
  virtual void unwatch();

  // "io_uring" or "libaio".
  virtual const char* backend_name() const = 0;
  // Kernel operations started (a merged one counts once): in the kernel, or in this round.
  uint32_t in_flight() const { return in_flight_; }
  size_t waiting() const { return waiting_.size(); }
  // A snapshot; thread-safe (relaxed: exact once quiescent).
  IoQueueCounters counters() const;

 protected:
  // Takes ownership of `eventfd`, which the kernel signals on completions; -1 when completions
  // arrive some other way (the subclass then calls reap() and start_waiting() itself).
  IoQueue(EventLoop& loop, uint32_t queue_depth, int eventfd);
  // Watches the eventfd on the loop. NotSupported on loops without fds (SimEventLoop).
  Status watch();
  int eventfd() const { return eventfd_; }
  uint32_t queue_depth() const { return queue_depth_; }

  // Prepares the operation held in `slot` for this round's submission (in_flight counts it):
  // held(slot) says what, and held_iov(slot) the buffers when it is vectored.
  virtual void prepare(uint32_t slot) = 0;
  // Gives every prepared operation to the kernel, also those prepared while it runs.
  virtual void submit_prepared() = 0;
  // Completes (finish()) every operation the kernel has finished.
  virtual void reap() = 0;

  // The operation in `slot` (a merged one: its whole range, the first part's buf); stable until
  // release().
  IoOp& held(uint32_t slot) { return slots_[slot].op; }
  // A merged operation's buffers, one per part, when they are not contiguous; else empty (use
  // held(slot).buf). Stable until release().
  std::span<const iovec> held_iov(uint32_t slot) const { return slots_[slot].iov; }
  // A kernel result: frees the slot and runs the operation's callback now.
  void finish(uint32_t slot, long res);
  // Refused at submission: frees the slot; the callbacks run later with `res`, never inline.
  void refuse(uint32_t slot, long res);
  void count_submit_call(uint64_t ops);
  void count_fixed_buffer() { fixed_buffers_.fetch_add(1, std::memory_order_relaxed); }
  // Starts waiting operations while there is room (after completions made some).
  void start_waiting();

 private:
  // A kernel operation: one IoOp, or (parts not empty) contiguous ones merged, whose callbacks
  // are the parts'.
  struct Slot {
    IoOp op;
    std::vector<IoOp> parts;
    std::vector<iovec> iov;
  };
  void start(IoOp op);
  // Merges `op` into the last operation of this round if it continues it (moving from `op`).
  bool join_round(IoOp& op);
  // Before prepare(): a merged operation's buffers, as one or as an iovec.
  void settle_buffers(Slot& s);
  void end_round();
  void on_eventfd();
  IoOp release(uint32_t slot);
  // A merged operation's result, shared out to its parts in file order.
  void fan_out(std::vector<IoOp> parts, long res);

  EventLoop& loop_;
  const uint32_t queue_depth_;
  const int eventfd_;
  bool watched_ = false;
  bool round_pending_ = false;  // end_round() is posted
  bool submitting_ = false;     // end_round() is preparing and submitting: no more merging
  uint32_t in_flight_ = 0;
  std::deque<IoOp> waiting_;
  std::deque<Slot> slots_;      // at most queue_depth; a deque keeps references stable
  std::vector<uint32_t> free_;  // indexes into slots_
  std::vector<uint32_t> round_;  // slots started this round, prepared at its end
  std::atomic<uint64_t> rounds_{0}, submit_calls_{0}, ops_{0}, in_flight_sum_{0}, merged_{0},
      fixed_buffers_{0};
};

}  // namespace tiercache

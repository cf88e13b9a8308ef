// UblkQueue: serves one ublk hardware queue on one event loop. Owns the queue's io_uring on
// /dev/ublkcN (its completions signal an eventfd the loop watches, so kernel requests and
// Device completions are handled on the same thread), the mmap()ed request descriptors and
// one buffer per tag. Each tag cycles FETCH_REQ -> Device call -> COMMIT_AND_FETCH_REQ.
//
// The kernel binds a queue to the thread that issues its first FETCH_REQ, so every io_uring
// call happens on the loop's thread. start() and the destructor run elsewhere; stop() and the
// callbacks run on the loop. Does not own the loop, the char-device fd or the Device.
#pragma once

#include <liburing.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"
#include "daemon/ublk/ublk_abi.h"
#include "daemon/ublk/ublk_request_executor.h"

namespace tiercache {

class UblkQueue {
 public:
  struct Config {
    int char_fd = -1;  // /dev/ublkcN, open O_RDWR
    uint16_t queue_id = 0;
    uint32_t depth = 0;         // tags 0..depth-1, as granted by ADD_DEV
    uint32_t buffer_bytes = 0;  // per tag: the device's max_io_buf_bytes
  };

  // Maps the descriptor array and the buffers and creates the ring; nothing is issued yet.
  static Result<std::unique_ptr<UblkQueue>> Create(Device& device, EventLoop& loop,
                                                   const Config& config);
  // REQUIRES: never started, or stop() has called its `done`.
  ~UblkQueue();
  UblkQueue(const UblkQueue&) = delete;
  UblkQueue& operator=(const UblkQueue&) = delete;

  // On the loop: watches the ring and issues FETCH_REQ for every tag; waits for that.
  // REQUIRES: not called on the loop's thread; the loop is running.
  Status start();
  // Thread-safe. Once no Device request is in flight and every result is committed, closes the
  // ring (the kernel cancels the outstanding fetches) and runs `done` on the loop thread.
  // Call after STOP_DEV returned, so no new request can arrive.
  void stop(std::function<void()> done);

  // Requests received from the kernel so far. Thread-safe.
  uint64_t requests_served() const { return served_.load(std::memory_order_relaxed); }

 private:
  friend class UblkQueueTestPeer;  // ublk_alloc_test: the per-request path without ublk_drv

  enum class TagState : uint8_t { kIdle, kInKernel, kServing, kFinished };

  UblkQueue(Device& device, EventLoop& loop, const Config& config);
  Status map_memory();
  Status setup_ring();
  Status issue_fetches();  // loop thread
  void on_ring_ready();    // loop thread: drains the CQ
  void on_cqe(uint32_t tag, int32_t res);
  void on_request_done(uint32_t tag, int32_t result);
  bool queue_command(uint32_t op, uint32_t tag, int32_t result);
  void schedule_submit();
  void maybe_finish();
  void close_ring();
  std::byte* buffer(uint32_t tag) const { return buffers_ + size_t(tag) * config_.buffer_bytes; }

  EventLoop& loop_;
  const Config config_;
  UblkRequestExecutor executor_;

  const ublksrv_io_desc* descs_ = nullptr;  // read-only, written by the kernel
  size_t descs_bytes_ = 0;
  std::byte* buffers_ = nullptr;
  size_t buffers_bytes_ = 0;
  io_uring ring_{};
  bool ring_open_ = false;
  int eventfd_ = -1;

  // Loop-thread state.
  std::vector<TagState> tags_;
  uint32_t in_flight_ = 0;  // tags in kServing
  bool submit_posted_ = false;
  bool stopping_ = false;
  bool reported_error_ = false;
  std::atomic<uint64_t> served_{0};
  std::function<void()> stop_done_;
};

}  // namespace tiercache

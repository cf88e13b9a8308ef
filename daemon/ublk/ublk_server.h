// UblkServer: exposes a Device as the kernel block device /dev/ublkbN through the ublk driver
// (Linux 6.0+; this server needs 6.5+ for GET_FEATURES). Control path: GET_FEATURES, ADD_DEV,
// SET_PARAMS, START_DEV; STOP_DEV and DEL_DEV on stop(). Data path: one UblkQueue per hardware
// queue, each on its own event-loop thread (owned LoopThreads, or loops the caller passes in),
// its commands on that loop's io_uring (or rings of their own: UblkOptions::own_ring).
// With UBLK_F_USER_RECOVERY the device outlives a crashed server and Recover() reattaches.
//
// Ownership: the Device (and loops passed in) must outlive the UblkServer. A Device that keeps
// per-loop state (FileDevice) must be destroyed before the server's own loops are, i.e. after
// stop() finished but before ~UblkServer, or pass loops that outlive the Device.
// Thread-safety: stop() and the accessors are thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/device.h"
#include "daemon/ublk/ublk_control.h"
#include "daemon/ublk/ublk_options.h"
#include "daemon/ublk/ublk_queue.h"

namespace tiercache {

class UblkServer {
 public:
  // Creates /dev/ublkbN and serves it; returns once the block device exists. On error nothing
  // is left behind (the half-made device is deleted). NotFound without /dev/ublk-control,
  // NotSupported when the kernel lacks a needed feature, Busy when options.dev_id is taken.
  // `queue_loops`: empty, or one running loop per queue, each on its own thread.
  // REQUIRES: not called on a thread of `queue_loops`.
  static Result<std::unique_ptr<UblkServer>> Start(Device& device, const UblkOptions& options,
                                                   std::vector<EventLoop*> queue_loops = {});
  // Reattaches to /dev/ublkb<dev_id> left quiesced by a server that died, taking the queue
  // count, depth and buffer size the device was created with. The Device must have the same
  // size. Busy while the old server is still alive; on error the device stays recoverable.
  static Result<std::unique_ptr<UblkServer>> Recover(Device& device, uint32_t dev_id,
                                                     const UblkOptions& options,
                                                     std::vector<EventLoop*> queue_loops = {});
  // Stops (as stop()) if that has not happened, and waits.
  // REQUIRES: not called on a queue loop.
  ~UblkServer();
  UblkServer(const UblkServer&) = delete;
  UblkServer& operator=(const UblkServer&) = delete;

  // STOP_DEV (the kernel completes the requests in flight through the queues first), then
  // closes the queues and DEL_DEV. `done` runs once: on the calling event loop if stop() was
  // called on one, else on an internal thread. Later calls are ignored (their done never runs).
  void stop(std::function<void()> done);

  uint32_t dev_id() const { return info_.dev_id; }
  std::string block_device() const;  // "/dev/ublkbN"
  uint32_t queues() const { return info_.nr_hw_queues; }
  uint32_t depth() const { return info_.queue_depth; }
  uint32_t max_io_bytes() const { return info_.max_io_buf_bytes; }
  // GET_FEATURES: what the kernel offers; and the flags the device was created with.
  uint64_t kernel_features() const { return features_; }
  uint64_t device_flags() const { return info_.flags; }
  // Requests served by all queues; exact once stop() has called done.
  uint64_t requests_served() const;
  // Where the queues' commands go: "loop" (each loop's io_uring), "own" (a ring per queue),
  // or both names joined by '+' if the queues differ; "" once stopped. Thread-safe.
  std::string command_rings() const;
  // Whether every queue's commands name the char device by its slot in the loop ring's file
  // table, and every queue's buffers are in its buffer table (UblkQueue); false once stopped,
  // and on own rings. Thread-safe.
  bool fixed_files() const { return every_queue(&UblkQueue::fixed_file); }
  bool fixed_buffers() const { return every_queue(&UblkQueue::fixed_buffers); }

  // "USER_RECOVERY|CMD_IOCTL_ENCODE|..." for logs.
  static std::string FeatureNames(uint64_t flags);

 private:
  UblkServer(Device& device, const UblkOptions& options);

  Status open_control();
  Status add_device();
  Status set_parameters();
  Status check_recoverable(uint32_t dev_id);
  Status start_recovery();
  Status open_char_device();
  Status start_queues(std::vector<EventLoop*> queue_loops);
  // `kernel_stopped`: STOP_DEV succeeded (UblkQueue::stop).
  void stop_queues(bool kernel_stopped);
  void undo_start();
  void run_stop();
  // There are queues, and `has` holds for each.
  bool every_queue(bool (UblkQueue::*has)() const) const;

  Device& device_;
  const UblkOptions options_;
  std::unique_ptr<UblkControl> control_;
  uint64_t features_ = 0;
  ublksrv_ctrl_dev_info info_{};
  int char_fd_ = -1;
  bool device_added_ = false;  // undo_start deletes it, unless recovering
  bool recovering_ = false;
  std::vector<std::unique_ptr<LoopThread>> owned_loops_;
  std::vector<std::unique_ptr<UblkQueue>> queues_;
  uint64_t served_after_stop_ = 0;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;  // GUARDED_BY(mu_)
  bool stopped_ = false;         // GUARDED_BY(mu_)
  std::thread stopper_;
};

}  // namespace tiercache

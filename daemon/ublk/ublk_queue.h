// UblkQueue: serves one ublk hardware queue on one event loop. Owns the mmap()ed request
// descriptors, one buffer per tag, and the queue's UblkCommands (the loop's io_uring, or a ring
// of its own): each tag cycles FETCH_REQ -> Device call -> COMMIT_AND_FETCH_REQ, and kernel
// requests and Device completions are handled on the same thread. On the loop's ring the tags'
// buffers are one region of its buffer table, so the Device's reads and writes into them on
// this loop go READ_FIXED/WRITE_FIXED.
//
// The kernel binds a queue to the thread that issues its first FETCH_REQ, so every command
// leaves from the loop's thread. start() and the destructor run elsewhere; stop() and the
// callbacks run on the loop. Does not own the loop, the char-device fd or the Device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cachelib/common/event_loop.h"
#include "cachelib/device/device.h"
#include "daemon/ublk/ublk_abi.h"
#include "daemon/ublk/ublk_commands.h"
#include "daemon/ublk/ublk_request_executor.h"

namespace tiercache {

class UblkQueue final : private UblkCommands::Handler {
 public:
  // How start() gets the queue's commands, on the loop (tests pass fakes).
  using MakeCommands = std::function<Result<std::unique_ptr<UblkCommands>>(
      EventLoop& loop, const UblkCommands::Config& config, UblkCommands::Handler& handler)>;

  struct Config {
    int char_fd = -1;  // /dev/ublkcN, open O_RDWR
    uint16_t queue_id = 0;
    uint32_t depth = 0;         // tags 0..depth-1, as granted by ADD_DEV
    uint32_t buffer_bytes = 0;  // per tag: the device's max_io_buf_bytes
    bool own_ring = false;      // UblkOwnRing instead of the loop's ring
    MakeCommands make_commands = UblkCommands::Create;
  };

  // Maps the descriptor array and the buffers; nothing is issued yet.
  static Result<std::unique_ptr<UblkQueue>> Create(Device& device, EventLoop& loop,
                                                   const Config& config);
  // REQUIRES: never started, or stop() has called its `done`.
  ~UblkQueue();
  UblkQueue(const UblkQueue&) = delete;
  UblkQueue& operator=(const UblkQueue&) = delete;

  // On the loop: makes the commands and issues FETCH_REQ for every tag; waits for that.
  // REQUIRES: not called on the loop's thread; the loop is running.
  Status start();
  // Thread-safe. Once no Device request is in flight and every result is committed, ends the
  // commands and runs `done` on the loop thread. Call after STOP_DEV: `kernel_stopped` says it
  // succeeded, so every fetch still in the kernel comes back with UBLK_IO_RES_ABORT; on the
  // loop's ring the queue waits for those (an own ring cancels them as it closes). Without
  // it (STOP_DEV failed, or a start is undone) nothing is waited for: the loop's ring drops
  // their completions, and the buffers stay mapped for good, since the kernel may still
  // copy a request into them. Either way the buffers leave the ring's buffer table before
  // the commands end, and the char device its file table as they end.
  void stop(bool kernel_stopped, std::function<void()> done);

  // Requests received from the kernel so far. Thread-safe.
  uint64_t requests_served() const { return served_.load(std::memory_order_relaxed); }
  // "loop" or "own" once started, else "". Thread-safe after start() returned.
  const char* ring_name() const { return ring_name_; }
  // Whether start() put the char device in the ring's file table (the commands name it by its
  // slot), and the tags' buffers in its buffer table. Thread-safe after start() returned.
  bool fixed_file() const { return fixed_file_; }
  bool fixed_buffers() const { return fixed_buffers_; }

 private:
  friend class UblkQueueTestPeer;  // unit tests: the loop-side steps without ublk_drv

  enum class TagState : uint8_t { kIdle, kInKernel, kServing, kFinished };

  UblkQueue(Device& device, EventLoop& loop, const Config& config);
  Status map_memory();
  Status begin();  // loop thread: the commands, and a FETCH_REQ per tag
  void on_command_done(uint16_t tag, int32_t res) override;
  void on_request_done(uint32_t tag, int32_t result);
  void queue_command(uint32_t op, uint32_t tag, int32_t result);
  void maybe_finish();
  void register_buffers();
  void unregister_buffers();
  std::byte* buffer(uint32_t tag) const { return buffers_ + size_t(tag) * config_.buffer_bytes; }

  EventLoop& loop_;
  const Config config_;
  UblkRequestExecutor executor_;

  const ublksrv_io_desc* descs_ = nullptr;  // read-only, written by the kernel
  size_t descs_bytes_ = 0;
  std::byte* buffers_ = nullptr;
  size_t buffers_bytes_ = 0;
  std::unique_ptr<UblkCommands> commands_;
  const char* ring_name_ = "";
  bool fixed_file_ = false;
  bool fixed_buffers_ = false;
  int buffer_index_ = -1;  // the buffers' region in the loop ring's table, while registered

  // Loop-thread state.
  std::vector<TagState> tags_;
  uint32_t in_flight_ = 0;  // tags in kServing
  uint32_t in_kernel_ = 0;  // tags in kInKernel; 0 once an own ring cancelled them
  bool stopping_ = false;
  bool kernel_stopped_ = false;
  bool reported_error_ = false;
  std::atomic<uint64_t> served_{0};
  std::function<void()> stop_done_;
};

}  // namespace tiercache

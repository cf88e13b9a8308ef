// UblkCommands: how a UblkQueue hands its I/O commands (FETCH_REQ, COMMIT_AND_FETCH_REQ) to the
// kernel and gets their completions back. Two implementations: UblkLoopRingCommands (default)
// puts them on the event loop's own io_uring, so one wait covers ublk, network and disk;
// UblkOwnRing keeps a ring per queue whose eventfd the loop watches (the fallback).
// Loop-thread only: the kernel binds a queue to the thread that issues its first FETCH_REQ.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/status.h"
#include "daemon/ublk/ublk_abi.h"

namespace tiercache {

class LoopRing;

// One ublk I/O command: the opcode (ublk::kIoFetchReq or kIoCommitAndFetchReq) and its
// ublksrv_io_cmd fields. `result` is what the request that held the tag ended with (commits).
struct UblkCommand {
  uint32_t op = 0;
  uint16_t queue_id = 0;
  uint16_t tag = 0;
  int32_t result = 0;
  uint64_t addr = 0;  // the tag's buffer
};

// Fills `sqe` (a 64-byte entry: the 16-byte ublksrv_io_cmd fits its command area) with `cmd`
// on the queue's char device `fd`, everything else zero. The caller sets the user data.
void PrepareUblkCommand(io_uring_sqe* sqe, int fd, const UblkCommand& cmd);

// "ublk queue N": how errors and logs name a queue.
std::string UblkQueueName(uint16_t queue_id);

class UblkCommands {
 public:
  // Receives every command's completion on the loop: its tag and the kernel's result
  // (UBLK_IO_RES_OK with a request in the tag's descriptor, UBLK_IO_RES_ABORT once the device
  // stops, or -errno).
  class Handler {
   public:
    virtual void on_command_done(uint16_t tag, int32_t res) = 0;

   protected:
    ~Handler() = default;
  };

  struct Config {
    int char_fd = -1;  // /dev/ublkcN
    uint16_t queue_id = 0;
    uint32_t depth = 0;  // commands in the kernel at most
    // The queue's own ring instead of the loop's (--io-backend aio, TIERCACHE_UBLK_OWN_RING=1).
    bool own_ring = false;
  };

  // The commands of one queue on `loop`: the loop's ring unless config.own_ring, or when the
  // loop has none to give (a loop without fds); then an own ring.
  // REQUIRES: on `loop`'s thread; `handler` outlives the result.
  static Result<std::unique_ptr<UblkCommands>> Create(EventLoop& loop, const Config& config,
                                                      Handler& handler);

  virtual ~UblkCommands() = default;

  // "loop" or "own", for logs and tests.
  virtual const char* ring_name() const = 0;
  // The loop's ring the commands go to, or null (an own ring): the queue registers its buffers
  // in its buffer table. Valid until end().
  virtual LoopRing* loop_ring() const { return nullptr; }
  // Whether the commands name the char device by its slot in the ring's file table
  // (IOSQE_FIXED_FILE) rather than by its fd.
  virtual bool file_registered() const { return false; }
  // Prepares `cmd`; it reaches the kernel by the end of this loop round.
  virtual void queue(const UblkCommand& cmd) = 0;
  // Hands every prepared command to the kernel now.
  virtual Status submit() = 0;
  // Whether end() cancels the commands still in the kernel (closing an own ring does). When it
  // does not, the queue waits for each one's completion (UBLK_IO_RES_ABORT after STOP_DEV).
  virtual bool end_cancels() const = 0;
  // No completion reaches the handler after this; commands still in the kernel are cancelled
  // (own ring) or their completions dropped (the loop's ring retires this queue's id).
  virtual void end() = 0;
};

}  // namespace tiercache

// UblkLoopRingCommands: a queue's ublk commands as IORING_OP_URING_CMD entries on its event
// loop's own io_uring (LoopRing), beside the loop's disk and socket operations: a round's
// commits leave in the io_uring_enter that also sleeps for the loop, and the kernel's next
// requests come back through the same wake-up. The default (UblkOwnRing is the fallback).
// The ring outlives the queue, so end() cannot cancel what is in the kernel: the queue waits
// for every fetch's UBLK_IO_RES_ABORT after STOP_DEV; if that never comes, end() retires the
// client id so late completions find nothing. Loop-thread only (Create included).
#pragma once

#include <memory>

#include "cachelib/device/loop_ring.h"
#include "daemon/ublk/ublk_commands.h"

namespace tiercache {

class UblkLoopRingCommands final : public UblkCommands, private LoopRing::Client {
 public:
  // Joins `loop`'s ring. Errors: as LoopRing::ForLoop (io_uring refused, a loop without fds).
  static Result<std::unique_ptr<UblkLoopRingCommands>> Create(EventLoop& loop,
                                                              const Config& config,
                                                              Handler& handler);
  // REQUIRES: end() was called (it lets go of the ring on the loop's thread).
  ~UblkLoopRingCommands() override = default;

  const char* ring_name() const override { return "loop"; }
  void queue(const UblkCommand& cmd) override;
  Status submit() override;
  bool end_cancels() const override { return false; }
  void end() override;

 private:
  UblkLoopRingCommands(std::shared_ptr<LoopRing> ring, const Config& config, Handler& handler);
  void on_completion(uint32_t tag, int32_t res) override;

  std::shared_ptr<LoopRing> ring_;
  const Config config_;
  Handler& handler_;
  uint32_t client_id_ = 0;
  uint32_t outstanding_ = 0;  // queued commands whose completion has not come
};

}  // namespace tiercache

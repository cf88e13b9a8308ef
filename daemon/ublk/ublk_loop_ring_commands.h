// UblkLoopRingCommands: a queue's ublk commands as IORING_OP_URING_CMD entries on its event
// loop's own io_uring (LoopRing), beside the loop's disk and socket operations: a round's
// commits leave in the io_uring_enter that also sleeps for the loop, and the kernel's next
// requests come back through the same wake-up. The default (UblkOwnRing is the fallback).
// The ring outlives the queue, so end() cannot cancel what is in the kernel: the queue waits
// for every fetch's UBLK_IO_RES_ABORT after STOP_DEV; if that never comes, end() retires the
// client id so late completions find nothing. The char device sits in the ring's file table
// from Create to end() when there is room (else the commands name its fd).
// Loop-thread only (Create included).
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
  LoopRing* loop_ring() const override { return ring_.get(); }
  bool file_registered() const override { return file_index_ >= 0; }
  // The entry `cmd` becomes (PrepareUblkCommand), naming the char device by its file table
  // slot when it has one. queue() fills the ring's next entry with it.
  void prepare(io_uring_sqe* sqe, const UblkCommand& cmd) const;
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
  int file_index_ = -1;  // the char device in the ring's file table, or -1
  uint32_t outstanding_ = 0;  // queued commands whose completion has not come
};

}  // namespace tiercache

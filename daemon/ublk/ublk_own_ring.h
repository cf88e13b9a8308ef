// UblkOwnRing: a queue's ublk commands on an io_uring of its own, whose completions signal an
// eventfd the loop watches: a wake-up and an io_uring_enter of its own per loop round, besides
// the loop's. The fallback to UblkLoopRingCommands (--io-backend aio, TIERCACHE_UBLK_OWN_RING=1,
// a loop without a ring). Closing the ring cancels the fetches still in the kernel.
// Loop-thread only (Create included).
#pragma once

#include <liburing.h>

#include <memory>

#include "daemon/ublk/ublk_commands.h"

namespace tiercache {

class UblkOwnRing final : public UblkCommands {
 public:
  // The ring (sized for config.depth commands) and its eventfd, watched from now on.
  static Result<std::unique_ptr<UblkOwnRing>> Create(EventLoop& loop, const Config& config,
                                                     Handler& handler);
  ~UblkOwnRing() override;

  const char* ring_name() const override { return "own"; }
  void queue(const UblkCommand& cmd) override;
  Status submit() override;
  bool end_cancels() const override { return true; }
  void end() override;

 private:
  UblkOwnRing(EventLoop& loop, const Config& config, Handler& handler);
  Status setup();
  void on_ready();  // drains the CQ

  EventLoop& loop_;
  const Config config_;
  Handler& handler_;
  io_uring ring_{};
  bool ring_open_ = false;
  int eventfd_ = -1;
  bool watched_ = false;
  bool submit_posted_ = false;
  // The posted submit holds a weak reference: it finds the commands gone rather than freed.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace tiercache

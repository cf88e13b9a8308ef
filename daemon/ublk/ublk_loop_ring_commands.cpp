#include "daemon/ublk/ublk_loop_ring_commands.h"

namespace tiercache {

Result<std::unique_ptr<UblkLoopRingCommands>> UblkLoopRingCommands::Create(EventLoop& loop,
                                                                           const Config& config,
                                                                           Handler& handler) {
  auto ring = LoopRing::ForLoop(loop);
  if (!ring.ok()) return ring.status();
  return std::unique_ptr<UblkLoopRingCommands>(
      new UblkLoopRingCommands(std::move(ring).value(), config, handler));
}

UblkLoopRingCommands::UblkLoopRingCommands(std::shared_ptr<LoopRing> ring, const Config& config,
                                           Handler& handler)
    : ring_(std::move(ring)), config_(config), handler_(handler) {
  client_id_ = ring_->attach(this);
}

void UblkLoopRingCommands::queue(const UblkCommand& cmd) {
  io_uring_sqe* sqe = ring_->get_sqe();
  PrepareUblkCommand(sqe, config_.char_fd, cmd);
  LoopRing::label(sqe, client_id_, cmd.tag);
  ++outstanding_;
}

Status UblkLoopRingCommands::submit() {
  ring_->submit();
  return Status::Ok();
}

void UblkLoopRingCommands::on_completion(uint32_t tag, int32_t res) {
  --outstanding_;
  handler_.on_command_done(uint16_t(tag), res);
}

// Whatever is still in the kernel (nothing after every fetch's ABORT; the fetches, if the
// device never stopped) completes into a retired id. The commands prepared this round go
// first, so none is left naming the char device after its owner closes it. The reference to
// the ring goes here, on its loop, as a LoopRing requires of its last one.
void UblkLoopRingCommands::end() {
  if (!ring_) return;
  ring_->submit();
  if (outstanding_ == 0) {
    ring_->detach(client_id_);
  } else {
    ring_->retire(client_id_);
  }
  ring_.reset();
}

}  // namespace tiercache

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
  // Refused (a full table, a kernel before 5.19): the commands name the fd, as before.
  file_index_ = ring_->register_file(config_.char_fd);
}

void UblkLoopRingCommands::prepare(io_uring_sqe* sqe, const UblkCommand& cmd) const {
  PrepareUblkCommand(sqe, config_.char_fd, cmd);
  if (file_index_ >= 0) LoopRing::use_registered_file(sqe, file_index_);
}

void UblkLoopRingCommands::queue(const UblkCommand& cmd) {
  io_uring_sqe* sqe = ring_->get_sqe();
  prepare(sqe, cmd);
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
// first, so none is left naming the char device after its owner closes it, nor naming a file
// table slot that is empty by the time they are submitted. Then the slot is emptied: the
// ring's reference to the char device must go before its owner closes it and DEL_DEV waits for
// its release. Commands still in the kernel keep the file until they complete, as a plain fd's
// commands do. The reference to the ring goes here, on its loop, as a LoopRing requires of its
// last one.
void UblkLoopRingCommands::end() {
  if (!ring_) return;
  ring_->submit();
  ring_->unregister_file(file_index_);
  file_index_ = -1;
  if (outstanding_ == 0) {
    ring_->detach(client_id_);
  } else {
    ring_->retire(client_id_);
  }
  ring_.reset();
}

}  // namespace tiercache

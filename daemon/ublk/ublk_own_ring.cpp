#include "daemon/ublk/ublk_own_ring.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "cachelib/common/pooled_once.h"

namespace tiercache {

UblkOwnRing::UblkOwnRing(EventLoop& loop, const Config& config, Handler& handler)
    : loop_(loop), config_(config), handler_(handler) {}

Result<std::unique_ptr<UblkOwnRing>> UblkOwnRing::Create(EventLoop& loop, const Config& config,
                                                         Handler& handler) {
  std::unique_ptr<UblkOwnRing> ring(new UblkOwnRing(loop, config, handler));
  TC_RETURN_IF_ERROR(ring->setup());
  return ring;
}

Status UblkOwnRing::setup() {
  const std::string name = UblkQueueName(config_.queue_id);
  int r = io_uring_queue_init(config_.depth, &ring_, 0);
  if (r < 0) return Status::FromErrno(-r, name + ": io_uring_queue_init");
  ring_open_ = true;
  eventfd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (eventfd_ < 0) return Status::FromErrno(errno, name + ": eventfd");
  r = io_uring_register_eventfd(&ring_, eventfd_);
  if (r < 0) return Status::FromErrno(-r, name + ": io_uring_register_eventfd");
  TC_RETURN_IF_ERROR(loop_.watch_fd(eventfd_, EPOLLIN, [this](uint32_t) { on_ready(); }));
  watched_ = true;
  return Status::Ok();
}

// Off the loop's thread when end() ran already; else (Create failed half-way) before any
// command was queued.
UblkOwnRing::~UblkOwnRing() {
  if (watched_) loop_.unwatch_fd(eventfd_);
  if (ring_open_) io_uring_queue_exit(&ring_);
  if (eventfd_ >= 0) close(eventfd_);
}

void UblkOwnRing::queue(const UblkCommand& cmd) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {  // (depth entries: only if a round queues more than depth commands)
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
  }
  PrepareUblkCommand(sqe, config_.char_fd, cmd);
  io_uring_sqe_set_data64(sqe, cmd.tag);
  // The commands of one loop round go to the kernel in one io_uring_enter.
  if (submit_posted_) return;
  submit_posted_ = true;
  loop_.post(PooledOnce([this, alive = std::weak_ptr<bool>(alive_)] {
    if (alive.expired()) return;
    submit_posted_ = false;
    Status s = submit();
    if (!s.ok()) std::fprintf(stderr, "%s\n", s.ToString().c_str());
  }));
}

Status UblkOwnRing::submit() {
  if (!ring_open_) return Status::Ok();
  int r = io_uring_submit(&ring_);
  if (r < 0) {
    return Status::FromErrno(-r, UblkQueueName(config_.queue_id) + ": io_uring_submit");
  }
  return Status::Ok();
}

void UblkOwnRing::on_ready() {
  uint64_t count;
  ssize_t n = read(eventfd_, &count, sizeof count);
  (void)n;  // EAGAIN: completions were already drained by an earlier wake-up
  io_uring_cqe* cqe;
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    handler_.on_command_done(uint16_t(cqe->user_data), cqe->res);
    ++seen;
  }
  io_uring_cq_advance(&ring_, seen);
}

// Commands prepared but not yet submitted (the commits of the last round) go first; closing
// the ring then cancels the fetches still in the kernel. This thread issued them, as the
// kernel requires for the cancellation.
void UblkOwnRing::end() {
  if (watched_) {
    loop_.unwatch_fd(eventfd_);
    watched_ = false;
  }
  if (ring_open_) {
    if (io_uring_sq_ready(&ring_) > 0) io_uring_submit(&ring_);
    io_uring_queue_exit(&ring_);
    ring_open_ = false;
  }
  if (eventfd_ >= 0) {
    close(eventfd_);
    eventfd_ = -1;
  }
}

}  // namespace tiercache

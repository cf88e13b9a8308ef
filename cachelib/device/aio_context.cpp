#include "cachelib/device/aio_context.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>

namespace tiercache {

struct AioContext::Slot {
  iocb cb{};
  AioOp op;
};

Result<std::unique_ptr<AioContext>> AioContext::Create(EventLoop& loop, uint32_t queue_depth) {
  io_context_t ctx = nullptr;
  int r = io_setup(static_cast<int>(queue_depth), &ctx);
  if (r < 0) return Status::FromErrno(-r, "io_setup(" + std::to_string(queue_depth) + ")");
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) {
    Status s = Status::FromErrno(errno, "eventfd");
    io_destroy(ctx);
    return s;
  }
  std::unique_ptr<AioContext> aio(new AioContext(loop, queue_depth, ctx, efd));
  AioContext* self = aio.get();
  Status s = loop.watch_fd(efd, EPOLLIN, [self](uint32_t) { self->reap(); });
  if (!s.ok()) return s;
  aio->watched_ = true;
  return aio;
}

AioContext::AioContext(EventLoop& loop, uint32_t queue_depth, io_context_t ctx, int eventfd)
    : loop_(loop), queue_depth_(queue_depth), ctx_(ctx), eventfd_(eventfd) {}

AioContext::~AioContext() {
  assert(in_flight_ == 0 && waiting_.empty() && "AioContext destroyed while busy");
  io_destroy(ctx_);  // waits for anything still in the kernel
  close(eventfd_);
}

void AioContext::unwatch() {
  if (watched_) loop_.unwatch_fd(eventfd_);
  watched_ = false;
}

void AioContext::submit(AioOp op) {
  // Keep FIFO order: nothing overtakes a request that is already waiting.
  if (in_flight_ < queue_depth_ && waiting_.empty()) {
    start(std::move(op));
  } else {
    waiting_.push_back(std::move(op));
  }
}

void AioContext::start(AioOp op) {
  auto slot = std::make_unique<Slot>();
  slot->op = std::move(op);
  AioOp& o = slot->op;
  switch (o.opcode) {
    case IO_CMD_PREAD:
      io_prep_pread(&slot->cb, o.fd, o.buf, o.length, static_cast<long long>(o.offset));
      break;
    case IO_CMD_PWRITE:
      io_prep_pwrite(&slot->cb, o.fd, o.buf, o.length, static_cast<long long>(o.offset));
      break;
    default:
      io_prep_fdsync(&slot->cb, o.fd);
      break;
  }
  slot->cb.aio_rw_flags = static_cast<unsigned>(o.rw_flags);
  io_set_eventfd(&slot->cb, eventfd_);
  slot->cb.data = slot.get();
  ++in_flight_;
  // The first of a round schedules the submission; the rest of the round joins the batch.
  if (batch_.empty()) loop_.post([this] { submit_batch(); });
  batch_.push_back(&slot.release()->cb);  // owned by the batch, then by the kernel until reaped
}

void AioContext::submit_batch() {
  size_t next = 0;
  while (next < batch_.size()) {
    ++submit_calls_;
    int r = io_submit(ctx_, static_cast<long>(batch_.size() - next), batch_.data() + next);
    if (r > 0) {
      next += static_cast<size_t>(r);
      continue;
    }
    // The kernel refused the first of the rest (e.g. EINVAL for an unsupported opcode): it
    // completes with that error, later and never inline; the others are submitted again.
    std::unique_ptr<Slot> refused(static_cast<Slot*>(batch_[next]->data));
    ++next;
    --in_flight_;
    long res = r < 0 ? r : -EIO;
    loop_.post([done = std::move(refused->op.done), res] { done(res); });
    start_waiting();  // joins this batch (the loop above re-reads its size)
  }
  batch_.clear();
}

void AioContext::reap() {
  uint64_t count;
  ssize_t n = read(eventfd_, &count, sizeof count);
  (void)n;  // EAGAIN: nothing new; io_getevents below finds out anyway
  io_event events[64];
  for (;;) {
    timespec zero{0, 0};
    int got = io_getevents(ctx_, 0, 64, events, &zero);
    if (got <= 0) break;
    for (int i = 0; i < got; ++i) {
      std::unique_ptr<Slot> slot(static_cast<Slot*>(events[i].data));
      --in_flight_;
      slot->op.done(static_cast<long>(events[i].res));
    }
    start_waiting();
    if (got < 64) break;
  }
  start_waiting();
}

void AioContext::start_waiting() {
  while (in_flight_ < queue_depth_ && !waiting_.empty()) {
    AioOp op = std::move(waiting_.front());
    waiting_.pop_front();
    start(std::move(op));
  }
}

}  // namespace tiercache

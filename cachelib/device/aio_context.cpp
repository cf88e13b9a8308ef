#include "cachelib/device/aio_context.h"

#include <sys/eventfd.h>

#include <cerrno>
#include <string>

namespace tiercache {

Result<std::unique_ptr<AioContext>> AioContext::Create(EventLoop& loop, uint32_t queue_depth) {
  io_context_t ctx = nullptr;
  int r = io_setup(static_cast<int>(queue_depth), &ctx);
  if (r < 0) return Status::FromErrno(-r, "io_setup(" + std::to_string(queue_depth) + ")");
  int efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) {
    Status s = Status::FromErrno(errno, "eventfd");
    io_destroy(ctx);
    return s;
  }
  std::unique_ptr<AioContext> aio(new AioContext(loop, queue_depth, ctx, efd));
  TC_RETURN_IF_ERROR(aio->watch());
  return aio;
}

AioContext::AioContext(EventLoop& loop, uint32_t queue_depth, io_context_t ctx, int eventfd)
    : IoQueue(loop, queue_depth, eventfd), ctx_(ctx) {}

AioContext::~AioContext() { io_destroy(ctx_); }

void AioContext::prepare(uint32_t slot) {
  while (cbs_.size() <= slot) cbs_.emplace_back();
  iocb* cb = &cbs_[slot];
  IoOp& o = held(slot);
  const std::span<const iovec> iov = held_iov(slot);
  const auto offset = static_cast<long long>(o.offset);
  const int nr_vecs = static_cast<int>(iov.size());
  switch (o.kind) {
    case IoOp::Kind::kRead:
      if (iov.empty()) {
        io_prep_pread(cb, o.fd, o.buf, o.length, offset);
      } else {
        io_prep_preadv(cb, o.fd, iov.data(), nr_vecs, offset);
      }
      break;
    case IoOp::Kind::kWrite:
      if (iov.empty()) {
        io_prep_pwrite(cb, o.fd, o.buf, o.length, offset);
      } else {
        io_prep_pwritev(cb, o.fd, iov.data(), nr_vecs, offset);
      }
      break;
    case IoOp::Kind::kDatasync:
      io_prep_fdsync(cb, o.fd);
      break;
  }
  cb->aio_rw_flags = static_cast<unsigned>(o.rw_flags);
  io_set_eventfd(cb, eventfd());
  cb->data = reinterpret_cast<void*>(uintptr_t{slot});
  batch_.push_back(cb);
}

void AioContext::submit_prepared() {
  size_t next = 0;
  while (next < batch_.size()) {
    int r = io_submit(ctx_, static_cast<long>(batch_.size() - next), batch_.data() + next);
    count_submit_call(r > 0 ? uint64_t(r) : 0);
    if (r > 0) {
      next += static_cast<size_t>(r);
      continue;
    }
    // The kernel refused the first of the rest (e.g. EINVAL for an unsupported opcode): it
    // completes with that error, later and never inline; the others are submitted again, and
    // waiting operations take its place (refuse() appends them to batch_).
    uint32_t slot = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(batch_[next]->data));
    ++next;
    refuse(slot, r < 0 ? r : -EIO);
  }
  batch_.clear();
}

void AioContext::reap() {
  io_event events[64];
  for (;;) {
    timespec zero{0, 0};
    int got = io_getevents(ctx_, 0, 64, events, &zero);
    for (int i = 0; i < got; ++i) {
      finish(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(events[i].data)),
             static_cast<long>(events[i].res));
    }
    if (got < 64) break;
  }
}

}  // namespace tiercache

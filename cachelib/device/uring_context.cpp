#include "cachelib/device/uring_context.h"

#include <sys/eventfd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>

namespace tiercache {
namespace {

// Submission entries needed at most per round are queue_depth; beyond this the SQ is refilled
// within the round (next_sqe()), which only costs an extra io_uring_enter.
constexpr uint32_t kMaxSqEntries = 4096;
// One kernel operation moves at most this much; FileDevice resubmits the rest (short transfer).
constexpr size_t kMaxOpBytes = 1u << 30;

// Kernels before 5.18 refuse IORING_SETUP_SUBMIT_ALL with EINVAL: then without it (a refused SQE
// then stops its submit call, and submit_prepared() submits the rest again).
int InitRing(uint32_t queue_depth, io_uring* ring) {
  const uint32_t sq = std::min(queue_depth, kMaxSqEntries);
  int r = -EINVAL;
  for (unsigned extra : {unsigned{IORING_SETUP_SUBMIT_ALL}, 0u}) {
    io_uring_params p{};
    // Every operation in the kernel has room for its CQE: the CQ never overflows.
    p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP | extra;
    p.cq_entries = std::max(queue_depth, 2 * sq);
    r = io_uring_queue_init_params(sq, ring, &p);
    if (r != -EINVAL) break;
  }
  return r;
}

}  // namespace

Status UringContext::Probe() {
  io_uring ring{};
  int r = io_uring_queue_init(1, &ring, 0);
  if (r < 0) return Status::FromErrno(-r, "io_uring_queue_init");
  io_uring_queue_exit(&ring);
  return Status::Ok();
}

Result<std::unique_ptr<UringContext>> UringContext::Create(EventLoop& loop, uint32_t queue_depth,
                                                           int file) {
  int efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) return Status::FromErrno(errno, "eventfd");
  std::unique_ptr<UringContext> uring(new UringContext(loop, queue_depth, efd));
  TC_RETURN_IF_ERROR(uring->setup(file));
  TC_RETURN_IF_ERROR(uring->watch());
  return uring;
}

UringContext::UringContext(EventLoop& loop, uint32_t queue_depth, int eventfd)
    : IoQueue(loop, queue_depth, eventfd) {}

UringContext::~UringContext() {
  if (ring_ready_) io_uring_queue_exit(&ring_);
}

Status UringContext::setup(int file) {
  int r = InitRing(queue_depth(), &ring_);
  if (r < 0) {
    return Status::FromErrno(-r, "io_uring_queue_init(" + std::to_string(queue_depth()) + ")");
  }
  ring_ready_ = true;
  r = io_uring_register_eventfd(&ring_, eventfd());
  if (r < 0) return Status::FromErrno(-r, "io_uring_register_eventfd");
  // Optional: without it every operation names the fd (one lookup more per operation).
  if (file >= 0 && io_uring_register_files(&ring_, &file, 1) == 0) registered_fd_ = file;
  return Status::Ok();
}

io_uring_sqe* UringContext::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe != nullptr) return sqe;
  // Only with queue_depth > kMaxSqEntries: the SQ is full of this round's operations.
  submit_prepared();
  return io_uring_get_sqe(&ring_);
}

void UringContext::prepare(uint32_t slot) {
  io_uring_sqe* sqe = next_sqe();
  const IoOp& o = held(slot);
  const std::span<const iovec> iov = held_iov(slot);
  const bool fixed = registered_fd_ >= 0 && o.fd == registered_fd_;
  const int fd = fixed ? 0 : o.fd;
  const unsigned length = static_cast<unsigned>(std::min(o.length, kMaxOpBytes));
  const auto nr_vecs = static_cast<unsigned>(iov.size());
  switch (o.kind) {
    case IoOp::Kind::kRead:
      if (iov.empty()) {
        io_uring_prep_read(sqe, fd, o.buf, length, o.offset);
      } else {
        io_uring_prep_readv(sqe, fd, iov.data(), nr_vecs, o.offset);
      }
      sqe->rw_flags = o.rw_flags;
      break;
    case IoOp::Kind::kWrite:
      if (iov.empty()) {
        io_uring_prep_write(sqe, fd, o.buf, length, o.offset);
      } else {
        io_uring_prep_writev(sqe, fd, iov.data(), nr_vecs, o.offset);
      }
      sqe->rw_flags = o.rw_flags;
      break;
    case IoOp::Kind::kDatasync:
      io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC);
      break;
  }
  if (fixed) sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, slot);
}

void UringContext::submit_prepared() {
  while (io_uring_sq_ready(&ring_) > 0) {
    int r = io_uring_submit(&ring_);
    count_submit_call(r > 0 ? uint64_t(r) : 0);
    if (r > 0 || r == -EINTR) continue;
    // EAGAIN/EBUSY: the kernel is short of memory or CQ room. The SQEs stay in the ring; try
    // again shortly (a completion may not come: all of them may be waiting here).
    loop().schedule_after(std::chrono::milliseconds(1), [this] { submit_prepared(); });
    return;
  }
}

void UringContext::reap() {
  io_uring_cqe* cqe = nullptr;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) {
    const auto slot = static_cast<uint32_t>(io_uring_cqe_get_data64(cqe));
    const long res = cqe->res;
    io_uring_cqe_seen(&ring_, cqe);  // before the callback, which may start more operations
    finish(slot, res);
  }
}

}  // namespace tiercache

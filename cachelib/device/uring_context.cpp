#include "cachelib/device/uring_context.h"

#include <algorithm>

namespace tiercache {
namespace {

// One kernel operation moves at most this much; FileDevice resubmits the rest (short transfer).
constexpr size_t kMaxOpBytes = 1u << 30;

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
  auto ring = LoopRing::ForLoop(loop);
  if (!ring.ok()) return ring.status();
  return std::unique_ptr<UringContext>(
      new UringContext(loop, queue_depth, std::move(ring).value(), file));
}

UringContext::UringContext(EventLoop& loop, uint32_t queue_depth, std::shared_ptr<LoopRing> ring,
                           int file)
    : IoQueue(loop, queue_depth, -1), ring_(std::move(ring)), file_(file) {
  client_id_ = ring_->attach(this);
  if (file_ >= 0) file_index_ = ring_->register_file(file_);
}

UringContext::~UringContext() { unwatch(); }

void UringContext::unwatch() {
  if (!ring_) return;
  ring_->unregister_file(file_index_);
  file_index_ = -1;
  ring_->detach(client_id_);
  ring_.reset();
}

void UringContext::prepare(uint32_t slot) {
  if (prepared_ == 0) enters_before_ = ring_->counters().enters;
  io_uring_sqe* sqe = ring_->get_disk_sqe();
  const IoOp& o = held(slot);
  const std::span<const iovec> iov = held_iov(slot);
  if (o.kind == IoOp::Kind::kDatasync) {
    io_uring_prep_fsync(sqe, o.fd, IORING_FSYNC_DATASYNC);
  } else if (!iov.empty()) {
    const auto nr_vecs = static_cast<unsigned>(iov.size());
    const bool read = o.kind == IoOp::Kind::kRead;
    // Every iovec in one registered region: READV_FIXED/WRITEV_FIXED (no liburing 2.3 helper).
    const int buf_index = ring_->find_buffer(iov);
    if (buf_index >= 0) {
      io_uring_prep_rw(read ? LoopRing::kOpReadvFixed : LoopRing::kOpWritevFixed, sqe, o.fd,
                       iov.data(), nr_vecs, o.offset);
      sqe->buf_index = static_cast<uint16_t>(buf_index);
      count_fixed_buffer();
    } else if (read) {
      io_uring_prep_readv(sqe, o.fd, iov.data(), nr_vecs, o.offset);
    } else {
      io_uring_prep_writev(sqe, o.fd, iov.data(), nr_vecs, o.offset);
    }
    sqe->rw_flags = o.rw_flags;
  } else {
    prepare_single(sqe, o.fd, o);
  }
  if (file_index_ >= 0 && o.fd == file_) LoopRing::use_registered_file(sqe, file_index_);
  LoopRing::label(sqe, client_id_, slot);
  ++prepared_;
}

void UringContext::prepare_single(io_uring_sqe* sqe, int fd, const IoOp& o) {
  const unsigned length = static_cast<unsigned>(std::min(o.length, kMaxOpBytes));
  const bool read = o.kind == IoOp::Kind::kRead;
  // A buffer inside a registered region: the kernel uses the pages it pinned at registration.
  const int buf_index = ring_->find_buffer(o.buf, length);
  if (buf_index >= 0) {
    if (read) {
      io_uring_prep_read_fixed(sqe, fd, o.buf, length, o.offset, buf_index);
    } else {
      io_uring_prep_write_fixed(sqe, fd, o.buf, length, o.offset, buf_index);
    }
    count_fixed_buffer();
  } else if (read) {
    io_uring_prep_read(sqe, fd, o.buf, length, o.offset);
  } else {
    io_uring_prep_write(sqe, fd, o.buf, length, o.offset);
  }
  sqe->rw_flags = o.rw_flags;
}

void UringContext::submit_prepared() {
  if (prepared_ == 0) return;
  // Each operation but the last already went to the kernel as the next was prepared
  // (LoopRing::get_disk_sqe, unless submit_each() is off). A ring that sleeps for the loop
  // submits the rest with that sleep (one io_uring_enter for it, the sockets and the wait).
  // Otherwise now rather than at the end of the loop's round: the disk gets it a task earlier.
  const bool with_the_sleep = ring_->waits_for_loop();
  if (!with_the_sleep) ring_->submit();
  // Calls this round made: the early ones (one per operation but the last, or one per full
  // queue), and the one that ends it.
  const uint64_t enters = ring_->counters().enters - enters_before_ + (with_the_sleep ? 1 : 0);
  count_submit_call(prepared_);
  for (uint64_t i = 1; i < enters; ++i) count_submit_call(0);
  prepared_ = 0;
}

void UringContext::on_completion(uint32_t tag, int32_t res) {
  finish(tag, res);
  start_waiting();
}

}  // namespace tiercache

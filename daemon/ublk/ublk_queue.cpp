#include "daemon/ublk/ublk_queue.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>

namespace tiercache {

namespace {

size_t RoundUpToPage(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

std::string QueueName(uint16_t q) { return "ublk queue " + std::to_string(q); }

}  // namespace

UblkQueue::UblkQueue(Device& device, EventLoop& loop, const Config& config)
    : loop_(loop),
      config_(config),
      executor_(device, config.buffer_bytes),
      tags_(config.depth, TagState::kIdle) {}

Result<std::unique_ptr<UblkQueue>> UblkQueue::Create(Device& device, EventLoop& loop,
                                                     const Config& config) {
  if (config.char_fd < 0 || config.depth == 0 || config.depth > ublk::kMaxQueueDepth ||
      config.buffer_bytes == 0) {
    return Status::InvalidArgument(QueueName(config.queue_id) + ": bad configuration");
  }
  std::unique_ptr<UblkQueue> q(new UblkQueue(device, loop, config));
  TC_RETURN_IF_ERROR(q->map_memory());
  TC_RETURN_IF_ERROR(q->setup_ring());
  return q;
}

Status UblkQueue::map_memory() {
  // Each queue's descriptors sit at a fixed stride sized for the largest possible depth.
  const size_t stride = RoundUpToPage(ublk::kMaxQueueDepth * sizeof(ublksrv_io_desc));
  descs_bytes_ = RoundUpToPage(size_t(config_.depth) * sizeof(ublksrv_io_desc));
  const off_t offset = off_t(UBLKSRV_CMD_BUF_OFFSET + size_t(config_.queue_id) * stride);
  void* d =
      mmap(nullptr, descs_bytes_, PROT_READ, MAP_SHARED | MAP_POPULATE, config_.char_fd, offset);
  if (d == MAP_FAILED) {
    descs_bytes_ = 0;
    return Status::FromErrno(errno, QueueName(config_.queue_id) + ": mmap descriptors");
  }
  descs_ = static_cast<const ublksrv_io_desc*>(d);
  // Buffers are committed lazily: only pages a request touched cost memory.
  buffers_bytes_ = size_t(config_.depth) * config_.buffer_bytes;
  void* b = mmap(nullptr, buffers_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (b == MAP_FAILED) {
    buffers_bytes_ = 0;
    return Status::FromErrno(errno, QueueName(config_.queue_id) + ": mmap buffers");
  }
  buffers_ = static_cast<std::byte*>(b);
  return Status::Ok();
}

Status UblkQueue::setup_ring() {
  int r = io_uring_queue_init(config_.depth, &ring_, 0);
  if (r < 0) return Status::FromErrno(-r, QueueName(config_.queue_id) + ": io_uring_queue_init");
  ring_open_ = true;
  eventfd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (eventfd_ < 0) return Status::FromErrno(errno, QueueName(config_.queue_id) + ": eventfd");
  r = io_uring_register_eventfd(&ring_, eventfd_);
  if (r < 0) {
    return Status::FromErrno(-r, QueueName(config_.queue_id) + ": io_uring_register_eventfd");
  }
  return Status::Ok();
}

UblkQueue::~UblkQueue() {
  if (ring_open_) io_uring_queue_exit(&ring_);
  if (eventfd_ >= 0) close(eventfd_);
  if (buffers_ != nullptr) munmap(buffers_, buffers_bytes_);
  if (descs_ != nullptr) munmap(const_cast<ublksrv_io_desc*>(descs_), descs_bytes_);
}

Status UblkQueue::start() {
  std::promise<Status> started;
  loop_.post([this, &started] {
    Status s = loop_.watch_fd(eventfd_, EPOLLIN, [this](uint32_t) { on_ring_ready(); });
    if (s.ok()) {
      s = issue_fetches();
      if (!s.ok()) loop_.unwatch_fd(eventfd_);
    }
    started.set_value(std::move(s));
  });
  return started.get_future().get();
}

Status UblkQueue::issue_fetches() {
  for (uint32_t tag = 0; tag < config_.depth; ++tag) {
    if (!queue_command(ublk::kIoFetchReq, tag, -1)) {
      return Status::IoError(QueueName(config_.queue_id) + ": submission queue full");
    }
  }
  int r = io_uring_submit(&ring_);
  if (r < 0) return Status::FromErrno(-r, QueueName(config_.queue_id) + ": submit FETCH_REQ");
  return Status::Ok();
}

bool UblkQueue::queue_command(uint32_t op, uint32_t tag, int32_t result) {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) {
    io_uring_submit(&ring_);
    sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) return false;
  }
  std::memset(static_cast<void*>(sqe), 0, sizeof *sqe);
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = config_.char_fd;
  sqe->cmd_op = op;
  sqe->user_data = tag;
  auto* cmd = reinterpret_cast<ublksrv_io_cmd*>(sqe->cmd);
  cmd->q_id = config_.queue_id;
  cmd->tag = uint16_t(tag);
  cmd->result = result;
  cmd->addr = reinterpret_cast<uintptr_t>(buffer(tag));
  tags_[tag] = TagState::kInKernel;
  return true;
}

void UblkQueue::on_ring_ready() {
  uint64_t count;
  ssize_t n = read(eventfd_, &count, sizeof count);
  (void)n;  // EAGAIN: completions were already drained by an earlier wake-up
  io_uring_cqe* cqe;
  unsigned head;
  unsigned seen = 0;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    on_cqe(uint32_t(cqe->user_data), cqe->res);
    ++seen;
  }
  io_uring_cq_advance(&ring_, seen);
}

void UblkQueue::on_cqe(uint32_t tag, int32_t res) {
  if (tag >= config_.depth) return;
  if (res == UBLK_IO_RES_OK) {
    tags_[tag] = TagState::kServing;
    ++in_flight_;
    served_.fetch_add(1, std::memory_order_relaxed);
    const ublksrv_io_desc desc = descs_[tag];
    // A pointer and a tag: std::function keeps it inline, so no heap allocation per request
    // (ublk_alloc_test).
    executor_.execute(desc, buffer(tag),
                      [this, tag](int32_t result) { on_request_done(tag, result); });
    return;
  }
  // UBLK_IO_RES_ABORT (-ENODEV): the device is going away; this tag gets no more requests.
  if (res != UBLK_IO_RES_ABORT && !reported_error_) {
    reported_error_ = true;
    std::fprintf(stderr, "%s: tag %u: the kernel refused a command: %s\n",
                 QueueName(config_.queue_id).c_str(), tag, std::strerror(res < 0 ? -res : res));
  }
  tags_[tag] = TagState::kFinished;
  maybe_finish();
}

void UblkQueue::on_request_done(uint32_t tag, int32_t result) {
  --in_flight_;
  if (!queue_command(ublk::kIoCommitAndFetchReq, tag, result)) {
    std::fprintf(stderr, "%s: tag %u: no submission slot for the commit\n",
                 QueueName(config_.queue_id).c_str(), tag);
    tags_[tag] = TagState::kFinished;
  }
  schedule_submit();
}

// Commits completed in one loop iteration go to the kernel in one io_uring_enter.
void UblkQueue::schedule_submit() {
  if (submit_posted_) return;
  submit_posted_ = true;
  loop_.post([this] {
    submit_posted_ = false;
    int r = io_uring_submit(&ring_);
    if (r < 0 && !reported_error_) {
      reported_error_ = true;
      std::fprintf(stderr, "%s: io_uring_submit: %s\n", QueueName(config_.queue_id).c_str(),
                   std::strerror(-r));
    }
    maybe_finish();
  });
}

void UblkQueue::stop(std::function<void()> done) {
  loop_.post([this, done = std::move(done)]() mutable {
    stopping_ = true;
    stop_done_ = std::move(done);
    maybe_finish();
  });
}

void UblkQueue::maybe_finish() {
  if (!stopping_ || in_flight_ != 0 || submit_posted_ || !stop_done_) return;
  close_ring();
  auto done = std::move(stop_done_);
  stop_done_ = nullptr;
  done();
}

// Closing the ring cancels the fetches still in the kernel; this thread issued them, as the
// kernel requires for the cancellation.
void UblkQueue::close_ring() {
  loop_.unwatch_fd(eventfd_);
  if (ring_open_) {
    io_uring_queue_exit(&ring_);
    ring_open_ = false;
  }
}

}  // namespace tiercache

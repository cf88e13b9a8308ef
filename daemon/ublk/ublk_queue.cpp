#include "daemon/ublk/ublk_queue.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>

#include "cachelib/device/loop_ring.h"

namespace tiercache {

namespace {

size_t RoundUpToPage(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

UblkQueue::UblkQueue(Device& device, EventLoop& loop, const Config& config)
    : loop_(loop),
      config_(config),
      executor_(device, config.buffer_bytes),
      tags_(config.depth, TagState::kIdle) {}

Result<std::unique_ptr<UblkQueue>> UblkQueue::Create(Device& device, EventLoop& loop,
                                                     const Config& config) {
  if (config.char_fd < 0 || config.depth == 0 || config.depth > ublk::kMaxQueueDepth ||
      config.buffer_bytes == 0 || !config.make_commands) {
    return Status::InvalidArgument(UblkQueueName(config.queue_id) + ": bad configuration");
  }
  std::unique_ptr<UblkQueue> q(new UblkQueue(device, loop, config));
  TC_RETURN_IF_ERROR(q->map_memory());
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
    return Status::FromErrno(errno, UblkQueueName(config_.queue_id) + ": mmap descriptors");
  }
  descs_ = static_cast<const ublksrv_io_desc*>(d);
  // Buffers are committed lazily: only pages a request touched cost memory.
  buffers_bytes_ = size_t(config_.depth) * config_.buffer_bytes;
  void* b = mmap(nullptr, buffers_bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (b == MAP_FAILED) {
    buffers_bytes_ = 0;
    return Status::FromErrno(errno, UblkQueueName(config_.queue_id) + ": mmap buffers");
  }
  buffers_ = static_cast<std::byte*>(b);
  return Status::Ok();
}

UblkQueue::~UblkQueue() {
  commands_.reset();
  // After a stop that could not wait for the kernel's answers, the fetches may still hand a
  // request over, which copies its data into the tag's buffer: the mapping stays (leaked).
  if (buffers_ != nullptr && in_kernel_ == 0) munmap(buffers_, buffers_bytes_);
  if (descs_ != nullptr) munmap(const_cast<ublksrv_io_desc*>(descs_), descs_bytes_);
}

Status UblkQueue::start() {
  std::promise<Status> started;
  loop_.post([this, &started] { started.set_value(begin()); });
  return started.get_future().get();
}

Status UblkQueue::begin() {
  UblkCommands::Config config{.char_fd = config_.char_fd,
                              .queue_id = config_.queue_id,
                              .depth = config_.depth,
                              .own_ring = config_.own_ring};
  auto commands = config_.make_commands(loop_, config, *this);
  if (!commands.ok()) return commands.status();
  commands_ = std::move(commands).value();
  ring_name_ = commands_->ring_name();
  fixed_file_ = commands_->file_registered();
  register_buffers();
  for (uint32_t tag = 0; tag < config_.depth; ++tag) queue_command(ublk::kIoFetchReq, tag, -1);
  return commands_->submit();  // (its error names the queue)
}

// One region for every tag (one mapping). Registering pins, and so commits, all of its pages
// now rather than as requests first touch them: depth x buffer_bytes (32 MiB by default).
// Refused (a full table, RLIMIT_MEMLOCK, over the kernel's 1 GiB per region, no table): the
// Device's operations on the buffers stay plain ones.
void UblkQueue::register_buffers() {
  LoopRing* ring = commands_->loop_ring();
  if (ring == nullptr) return;  // an own ring: the loop may have no ring at all (aio)
  buffer_index_ = ring->register_buffer(buffers_, buffers_bytes_);
  fixed_buffers_ = buffer_index_ >= 0;
}

// Whenever the queue ends, even with fetches still in the kernel and the buffers left mapped:
// the table serves only the Device's operations on this loop (none is in flight), while the
// kernel copies a request into a tag's buffer through the process's page tables, not through
// the ring. Left registered, the region would stay pinned for the ring's life and could match a
// later mapping at the same addresses after munmap(). So: before the commands let go of the
// ring, and before ~UblkQueue unmaps.
void UblkQueue::unregister_buffers() {
  if (buffer_index_ < 0) return;
  commands_->loop_ring()->unregister_buffer(buffer_index_);
  buffer_index_ = -1;
}

void UblkQueue::queue_command(uint32_t op, uint32_t tag, int32_t result) {
  commands_->queue(UblkCommand{.op = op,
                               .queue_id = config_.queue_id,
                               .tag = uint16_t(tag),
                               .result = result,
                               .addr = reinterpret_cast<uintptr_t>(buffer(tag))});
  tags_[tag] = TagState::kInKernel;
  ++in_kernel_;
}

void UblkQueue::on_command_done(uint16_t tag, int32_t res) {
  if (tag >= config_.depth || tags_[tag] != TagState::kInKernel) return;
  --in_kernel_;
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
                 UblkQueueName(config_.queue_id).c_str(), tag, std::strerror(res < 0 ? -res : res));
  }
  tags_[tag] = TagState::kFinished;
  maybe_finish();
}

// The commit goes to the kernel with the rest of this loop round's commands.
void UblkQueue::on_request_done(uint32_t tag, int32_t result) {
  --in_flight_;
  queue_command(ublk::kIoCommitAndFetchReq, tag, result);
  maybe_finish();
}

void UblkQueue::stop(bool kernel_stopped, std::function<void()> done) {
  loop_.post([this, kernel_stopped, done = std::move(done)]() mutable {
    stopping_ = true;
    kernel_stopped_ = kernel_stopped;
    stop_done_ = std::move(done);
    maybe_finish();
  });
}

void UblkQueue::maybe_finish() {
  if (!stopping_ || in_flight_ != 0 || !stop_done_) return;
  if (commands_) {
    // On the loop's ring, each fetch's UBLK_IO_RES_ABORT comes before the buffers may go.
    const bool cancels = commands_->end_cancels();
    if (!cancels && kernel_stopped_ && in_kernel_ != 0) return;
    unregister_buffers();
    commands_->end();
    if (cancels) in_kernel_ = 0;
  }
  auto done = std::move(stop_done_);
  stop_done_ = nullptr;
  done();
}

}  // namespace tiercache

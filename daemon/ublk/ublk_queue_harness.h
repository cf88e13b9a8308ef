// UblkQueueHarness: a UblkQueue (queue 0) over a given Device with its real commands, on the
// loop's io_uring or an own ring, on a running EpollEventLoop, without ublk_drv: a memfd stands
// in for /dev/ublkcN (the descriptors live in it, and every command fails with EOPNOTSUPP: a
// memfd has no uring_cmd), and the test hands each request over itself (UblkQueueTestPeer),
// then waits for its commit to come back. Test-only (ublk_alloc_test, ublk_queue_test); call
// from the test thread; gtest assertions report what fails.
#pragma once

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <future>
#include <memory>

#include "cachelib/common/epoll_event_loop.h"
#include "daemon/ublk/ublk_queue.h"
#include "daemon/ublk/ublk_queue_test_peer.h"

namespace tiercache {

class UblkQueueHarness final : private UblkCommands::Handler {
 public:
  static constexpr uint32_t kDepth = 4;
  static constexpr uint32_t kBufBytes = 64 * 1024;
  static constexpr uint32_t kLength = 4096;  // every request's

  UblkQueueHarness() {
    auto t = LoopThread::Start("ublk-harness");
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (t.ok()) thread_ = std::move(t).value();
    descs_fd_ = memfd_create("ublk-descs", MFD_CLOEXEC);
    EXPECT_GE(descs_fd_, 0) << std::strerror(errno);
    EXPECT_EQ(ftruncate(descs_fd_, sysconf(_SC_PAGESIZE)), 0);
  }
  ~UblkQueueHarness() {
    Stop();
    thread_.reset();
    if (descs_fd_ >= 0) close(descs_fd_);
  }

  // The queue over `device` (which must outlive Stop()), started; its fetches came back.
  void Start(Device& device, bool own_ring) {
    ASSERT_TRUE(thread_ != nullptr);
    UblkQueue::Config config{.char_fd = descs_fd_,
                             .queue_id = 0,
                             .depth = kDepth,
                             .buffer_bytes = kBufBytes,
                             .own_ring = own_ring,
                             .make_commands = [this](EventLoop& loop,
                                                     const UblkCommands::Config& c,
                                                     UblkCommands::Handler& queue) {
                               queue_handler_ = &queue;
                               return UblkCommands::Create(loop, c, *this);
                             }};
    auto q = UblkQueue::Create(device, thread_->loop(), config);
    ASSERT_TRUE(q.ok()) << q.status().ToString();
    queue_ = std::move(q).value();
    ASSERT_TRUE(queue_->start().ok());
    expected_ = kDepth;
    WaitForCommands();
  }
  // Stops the queue as after STOP_DEV (the memfd has answered everything) and destroys it.
  void Stop() {
    if (!queue_) return;
    std::promise<void> stopped;
    queue_->stop(true, [&] { stopped.set_value(); });
    stopped.get_future().wait();
    queue_.reset();
  }

  // Tag `tag`'s descriptor: `op` on kLength bytes at `offset`.
  void SetDescriptor(uint32_t tag, uint8_t op, uint64_t offset) {
    ublksrv_io_desc d{};
    d.op_flags = op;
    d.start_sector = offset >> ublk::kSectorShift;
    d.nr_sectors = kLength >> ublk::kSectorShift;
    ASSERT_EQ(pwrite(descs_fd_, &d, sizeof d, off_t(tag * sizeof d)), ssize_t(sizeof d));
  }
  // Hands tags first..first+count-1 their requests in one loop task and waits until their
  // commits came back. Allocates nothing (the task holds one pointer).
  void Receive(uint32_t first, uint32_t count) {
    first_ = first;
    count_ = count;
    thread_->loop().post([this] {
      for (uint32_t tag = first_; tag < first_ + count_; ++tag) {
        UblkQueueTestPeer::Receive(*queue_, tag);
      }
    });
    expected_ += count;
    WaitForCommands();
  }

  UblkQueue& queue() { return *queue_; }
  std::byte* buffer(uint32_t tag) {
    return const_cast<std::byte*>(UblkQueueTestPeer::Buffer(*queue_, tag));
  }
  LoopThread& loop() { return *thread_; }
  // Commands the kernel answered EOPNOTSUPP (as a memfd does every one that reached it).
  uint64_t refused() const { return refused_.load(); }

 private:
  void on_command_done(uint16_t tag, int32_t res) override {
    if (res == -EOPNOTSUPP) refused_.fetch_add(1, std::memory_order_relaxed);
    queue_handler_->on_command_done(tag, res);
    done_.fetch_add(1);
    done_.notify_all();
  }
  void WaitForCommands() {
    for (uint64_t c = done_.load(); c < expected_; c = done_.load()) done_.wait(c);
  }

  std::unique_ptr<LoopThread> thread_;
  int descs_fd_ = -1;
  std::unique_ptr<UblkQueue> queue_;
  UblkCommands::Handler* queue_handler_ = nullptr;
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> refused_{0};
  uint64_t expected_ = 0;  // test thread
  uint32_t first_ = 0, count_ = 0;
};

}  // namespace tiercache

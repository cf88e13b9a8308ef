// Heap allocations per request in the NBD front-end (operator new counted for this whole binary):
// none for READ and WRITE once the loop's pools are warm, on a real EpollEventLoop thread over a
// socketpair, with a device that completes at once and allocates nothing itself. With the engine's
// hit path (cachelib/engine/hit_path_alloc_test.cpp) this covers a hit from socket to socket, but
// for the file device's own operations.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "cachelib/common/counting_new.h"
#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/common/pooled_once.h"
#include "daemon/nbd/blocking_client_for_test.h"
#include "daemon/nbd/connection.h"
#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

constexpr uint64_t kSize = 1 << 20;
constexpr uint32_t kLength = 4096;

// Reads return a fill byte, writes are dropped; each completion is posted (as a Device must)
// through the loop's slot pool.
class InstantDevice final : public Device {
 public:
  InstantDevice() : Device("instant", kSize, 512) {}

 protected:
  void read_impl(uint64_t, std::span<std::byte> buf, IoCallback cb) override {
    std::memset(buf.data(), 0x5a, buf.size());
    Complete(std::move(cb));
  }
  void write_impl(uint64_t, std::span<const std::byte>, WriteFlags, IoCallback cb) override {
    Complete(std::move(cb));
  }
  void flush_impl(IoCallback cb) override { Complete(std::move(cb)); }
  void discard_impl(uint64_t, uint64_t, IoCallback cb) override { Complete(std::move(cb)); }
  void write_zeroes_impl(uint64_t, uint64_t, WriteFlags, IoCallback cb) override {
    Complete(std::move(cb));
  }
  void prefetch_impl(uint64_t, uint64_t, IoCallback cb) override { Complete(std::move(cb)); }

 private:
  static void Complete(IoCallback cb) {
    EventLoop::current()->post(PooledOnce([cb = std::move(cb)]() mutable { cb(Status::Ok()); }));
  }
};

// Parameter: the socket on the loop's io_uring (true) or on epoll and syscalls (false).
class ConnectionAllocTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    auto thread = LoopThread::Start("nbd-alloc");
    ASSERT_TRUE(thread.ok()) << thread.status().ToString();
    thread_ = std::move(thread).value();
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ASSERT_EQ(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);  // the server's end, as the listener makes it
    client_ = sv[1];
    thread_->run_sync([&] {
      ConnectionOptions options;
      options.send_buffer = 0;
      options.ring_socket = GetParam();
      conn_ = std::make_shared<Connection>(1, sv[0], thread_->loop(), device_, info_, options,
                                           [](Connection*) {});
      conn_->Start();
    });
    NegotiateDefaultExport(client_);
    bool on_ring = false;
    thread_->run_sync([&] { on_ring = conn_->on_ring(); });
    ASSERT_EQ(on_ring, GetParam());  // no silent fallback: each path is the one measured
  }
  void TearDown() override {
    if (client_ >= 0) close(client_);
    if (thread_) {
      thread_->run_sync([&] { conn_->Shutdown(); });
      thread_->run_sync([&] { conn_.reset(); });
    }
  }

  // Operator new calls over `n` requests, each sent once the previous reply arrived, after as
  // many more to warm the pools. The request and reply bytes live in fixed buffers.
  uint64_t AllocsOver(int n, uint16_t type) {
    const Bytes payload(type == kCmdWrite ? kLength : 0, std::byte{1});
    const Bytes request = RequestBytes(0, type, 7, 8192, kLength, payload);
    const size_t reply_size = 16 + (type == kCmdRead ? kLength : 0);
    std::unique_ptr<std::byte[]> reply(new std::byte[reply_size]);
    auto run = [&] {
      for (int i = 0; i < n; ++i) {
        SendAll(client_, request.data(), request.size());
        RecvAll(client_, reply.get(), reply_size);
      }
    };
    run();
    const uint64_t before = OperatorNewCalls();
    run();
    const uint64_t allocs = OperatorNewCalls() - before;
    EXPECT_EQ(LoadBe32(reply.get()), kSimpleReplyMagic);
    EXPECT_EQ(LoadBe32(reply.get() + 4), 0u);  // no error
    if (type == kCmdRead) {
      EXPECT_EQ(reply[16 + kLength - 1], std::byte{0x5a});
    }
    return allocs;
  }

  InstantDevice device_;
  ExportInfo info_ = ExportInfo::ForDevice(device_, "", "");
  std::unique_ptr<LoopThread> thread_;
  std::shared_ptr<Connection> conn_;
  int client_ = -1;
};

TEST_P(ConnectionAllocTest, ReadsAllocateNothing) { EXPECT_EQ(AllocsOver(2000, kCmdRead), 0u); }

TEST_P(ConnectionAllocTest, WritesAllocateNothing) { EXPECT_EQ(AllocsOver(2000, kCmdWrite), 0u); }

INSTANTIATE_TEST_SUITE_P(SocketIo, ConnectionAllocTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "ring" : "epoll"; });

}  // namespace
}  // namespace tiercache::nbd

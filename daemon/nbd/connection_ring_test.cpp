// A Connection whose socket runs on the loop's io_uring (RingSocket on LoopRing), on a real loop
// thread over a socketpair: byte-exact data with many requests in flight and replies larger than
// the socket buffer, ends of the connection with operations in the kernel (client hang-up, server
// shutdown), and the disk's operations sharing the socket's ring.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "cachelib/common/epoll_event_loop.h"
#include "cachelib/device/file_device.h"
#include "cachelib/device/loop_ring.h"
#include "cachelib/device/memory_device.h"
#include "daemon/nbd/blocking_client_for_test.h"
#include "daemon/nbd/connection.h"
#include "tests/support/temp_file.h"

namespace tiercache::nbd {
namespace {

constexpr uint64_t kSize = 16 << 20;

std::byte Pattern(uint64_t offset) { return std::byte((offset * 7 + offset / 4096) & 0xff); }

class ConnectionRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto thread = LoopThread::Start("nbd-ring");
    ASSERT_TRUE(thread.ok()) << thread.status().ToString();
    thread_ = std::move(thread).value();
  }
  void TearDown() override {
    if (client_ >= 0) close(client_);
    if (conn_) {
      thread_->run_sync([&] { conn_->Shutdown(); });
      finished_.get_future().wait();
      thread_->run_sync([&] { conn_.reset(); });
    }
    file_device_.reset();  // posts its queue's teardown to the loop, which runs it
    thread_.reset();
  }

  void Start(Device& device) {
    info_.emplace(ExportInfo::ForDevice(device, "", ""));
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ASSERT_EQ(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);  // the server's end, as the listener makes it
    client_ = sv[1];
    bool on_ring = false;
    thread_->run_sync([&] {
      ConnectionOptions options;
      options.send_buffer = 0;  // the default buffer: large replies leave in pieces
      conn_ = std::make_shared<Connection>(1, sv[0], thread_->loop(), device, *info_, options,
                                           [this](Connection*) { finished_.set_value(); });
      conn_->Start();
      on_ring = conn_->on_ring();
    });
    ASSERT_TRUE(on_ring);
    NegotiateDefaultExport(client_);
  }

  // Reads one simple reply header: returns the cookie, expects no error.
  uint64_t ReadReplyHeader() {
    std::byte h[16];
    RecvAll(client_, h, sizeof h);
    EXPECT_EQ(LoadBe32(h), kSimpleReplyMagic);
    EXPECT_EQ(LoadBe32(h + 4), 0u);
    return LoadBe64(h + 8);
  }

  LoopRing::Counters RingCounters() {
    LoopRing::Counters c;
    thread_->run_sync([&] { c = LoopRing::ForLoop(thread_->loop()).value()->counters(); });
    return c;
  }

  std::unique_ptr<LoopThread> thread_;
  MemoryDevice mem_{"mem", kSize, 512};
  std::unique_ptr<FileDevice> file_device_;  // the devices outlive the connection
  std::optional<ExportInfo> info_;  // set by Start(); the connection holds a reference
  std::shared_ptr<Connection> conn_;
  std::promise<void> finished_;
  int client_ = -1;
};

TEST_F(ConnectionRingTest, ManyRequestsInFlightAreByteExact) {
  Start(mem_);
  // 64 writes of 128 KiB sent back to back (their payloads partly received straight into the
  // payload buffer), then 64 reads of the same ranges, also back to back.
  constexpr int kRequests = 64;
  constexpr uint32_t kLength = 128 << 10;
  Bytes burst;
  for (int i = 0; i < kRequests; ++i) {
    Bytes payload(kLength);
    for (uint32_t j = 0; j < kLength; ++j) payload[j] = Pattern(uint64_t(i) * kLength + j);
    Bytes r = RequestBytes(0, kCmdWrite, 1000 + i, uint64_t(i) * kLength, kLength, payload);
    burst.insert(burst.end(), r.begin(), r.end());
  }
  std::thread sender([&] { SendAll(client_, burst.data(), burst.size()); });
  std::vector<bool> seen(kRequests, false);
  for (int i = 0; i < kRequests; ++i) {
    uint64_t cookie = ReadReplyHeader();
    ASSERT_TRUE(cookie >= 1000 && cookie < 1000 + kRequests && !seen[cookie - 1000]) << cookie;
    seen[cookie - 1000] = true;
  }
  sender.join();
  burst.clear();
  for (int i = 0; i < kRequests; ++i) {
    Bytes r = RequestBytes(0, kCmdRead, 2000 + i, uint64_t(i) * kLength, kLength);
    burst.insert(burst.end(), r.begin(), r.end());
  }
  SendAll(client_, burst.data(), burst.size());
  Bytes data(kLength);
  for (int i = 0; i < kRequests; ++i) {
    uint64_t cookie = ReadReplyHeader();
    ASSERT_TRUE(cookie >= 2000 && cookie < 2000 + kRequests) << cookie;
    RecvAll(client_, data.data(), kLength);
    const uint64_t base = (cookie - 2000) * kLength;
    for (uint32_t j = 0; j < kLength; ++j) {
      ASSERT_EQ(data[j], Pattern(base + j)) << "cookie " << cookie << " byte " << j;
    }
  }
}

TEST_F(ConnectionRingTest, ReplyLargerThanTheSocketBufferArrivesWhole) {
  Bytes contents(8 << 20);
  for (size_t j = 0; j < contents.size(); ++j) contents[j] = Pattern(j);
  mem_.write_now(0, contents);
  Start(mem_);
  Bytes r = RequestBytes(0, kCmdRead, 9, 0, uint32_t(contents.size()));
  SendAll(client_, r.data(), r.size());
  EXPECT_EQ(ReadReplyHeader(), 9u);
  Bytes data(contents.size());
  RecvAll(client_, data.data(), data.size());
  EXPECT_TRUE(data == contents);
}

TEST_F(ConnectionRingTest, ClientHangUpWithAReceiveInTheKernelFinishes) {
  Start(mem_);
  close(client_);
  client_ = -1;
  finished_.get_future().wait();  // the pending receive saw the end of the stream
  thread_->run_sync([&] { conn_.reset(); });
}

TEST_F(ConnectionRingTest, ServerShutdownEndsThePendingReceive) {
  Start(mem_);
  thread_->run_sync([&] { conn_->Shutdown(); });
  finished_.get_future().wait();  // Abort(): the receive in the kernel ended
  std::byte b[1];
  EXPECT_EQ(recv(client_, b, 1, 0), 0);  // and the client sees the end of the stream
  thread_->run_sync([&] { conn_.reset(); });
}

TEST_F(ConnectionRingTest, DiskOperationsShareTheSocketsRing) {
  testing::TempFile file("tiercache-ring", 1 << 20);
  ASSERT_TRUE(file.ok());
  FileDeviceOptions options;
  options.backend = IoBackend::kUring;
  auto device = FileDevice::Open(file.path(), options);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  file_device_ = std::move(device).value();
  Start(*file_device_);
  Bytes r = RequestBytes(0, kCmdRead, 1, 0, 4096);
  SendAll(client_, r.data(), r.size());  // warms the device's queue on this loop
  EXPECT_EQ(ReadReplyHeader(), 1u);
  Bytes data(4096);
  RecvAll(client_, data.data(), data.size());
  const LoopRing::Counters before = RingCounters();
  r = RequestBytes(0, kCmdRead, 2, 4096, 4096);
  SendAll(client_, r.data(), r.size());
  EXPECT_EQ(ReadReplyHeader(), 2u);
  RecvAll(client_, data.data(), data.size());
  // One READ: the file read, the reply's send and the next receive, all on the one ring.
  EXPECT_EQ(RingCounters().sqes - before.sqes, 3u);
}

}  // namespace
}  // namespace tiercache::nbd

#include "daemon/nbd/connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <string>

#include "daemon/nbd/client_bytes_for_test.h"
#include "daemon/nbd/nbd_constants.h"
#include "cachelib/common/sim_fd_loop.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

using namespace std::chrono_literals;

// Holds every request until the test completes it: shows exactly what reached the device
// and when.
class HoldDevice final : public Device {
 public:
  struct Op {
    std::string kind;  // "write", "discard", "zero", "prefetch", "flush", "read"
    uint64_t offset = 0;
    uint64_t length = 0;
    bool fua = false;
    IoCallback cb;
  };
  HoldDevice(uint64_t size, uint32_t block_size) : Device("hold", size, block_size) {}

  std::deque<Op> ops;  // submitted and not completed, oldest first
  // Completes the oldest request with `s` (the callback is posted, as a Device must).
  void CompleteOldest(Status s = Status::Ok()) {
    Op op = std::move(ops.front());
    ops.pop_front();
    EventLoop::current()->post([cb = std::move(op.cb), s] { cb(s); });
  }

 protected:
  void read_impl(uint64_t offset, std::span<std::byte> buf, IoCallback cb) override {
    ops.push_back({"read", offset, buf.size(), false, std::move(cb)});
  }
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    ops.push_back({"write", offset, buf.size(), flags.fua, std::move(cb)});
  }
  void flush_impl(IoCallback cb) override { ops.push_back({"flush", 0, 0, false, std::move(cb)}); }
  void discard_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    ops.push_back({"discard", offset, length, false, std::move(cb)});
  }
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override {
    ops.push_back({"zero", offset, length, flags.fua, std::move(cb)});
  }
  void prefetch_impl(uint64_t offset, uint64_t length, IoCallback cb) override {
    ops.push_back({"prefetch", offset, length, false, std::move(cb)});
  }
};

constexpr uint64_t kSize = 4 << 20;
constexpr uint64_t kChunk = 64 << 10;

// One Connection over a socketpair on virtual time; the test plays the client.
class ConnectionTest : public ::testing::Test {
 protected:
  void Start(ConnectionOptions options) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    client_ = sv[1];
    options.send_buffer = 0;
    // The epoll path, which SimFdLoop drives in virtual time; the ring path is in
    // connection_ring_test.cpp, on a real loop thread.
    options.ring_socket = false;
    conn_ = std::make_shared<Connection>(1, sv[0], loop_, device_, info_, options,
                                         [this](Connection*) { finished_ = true; });
    EventLoop::ScopedCurrent scope(&loop_);
    conn_->Start();
    loop_.Pump();
  }
  void TearDown() override {
    if (conn_ && !finished_) {
      EventLoop::ScopedCurrent scope(&loop_);
      conn_->Shutdown();
      while (!device_.ops.empty()) device_.CompleteOldest();
      loop_.Pump();
    }
    conn_.reset();
    if (client_ >= 0) close(client_);
  }
  void Send(const Bytes& b) {
    ASSERT_EQ(send(client_, b.data(), b.size(), MSG_NOSIGNAL), ssize_t(b.size()));
    loop_.Pump();
  }
  // Everything the server has written so far.
  Bytes Received() {
    Bytes all;
    std::byte buf[65536];
    ssize_t n;
    while ((n = recv(client_, buf, sizeof buf, MSG_DONTWAIT)) > 0) {
      all.insert(all.end(), buf, buf + n);
    }
    eof_ = (n == 0);
    return all;
  }
  // Client flags and NBD_OPT_GO for the default export.
  void Go() {
    Send(GoForDefaultExport());
    Received();  // greeting and option replies
  }
  void Request(uint16_t type, uint16_t flags, uint64_t cookie, uint64_t offset, uint32_t length,
               const Bytes& payload = {}) {
    Send(RequestBytes(flags, type, cookie, offset, length, payload));
  }
  // (error, cookie) of every simple reply received so far.
  std::vector<std::pair<uint32_t, uint64_t>> Replies() {
    Bytes b = Received();
    std::vector<std::pair<uint32_t, uint64_t>> replies;
    for (size_t at = 0; at + 16 <= b.size(); at += 16) {
      EXPECT_EQ(LoadBe32(b.data() + at), kSimpleReplyMagic);
      replies.push_back({LoadBe32(b.data() + at + 4), LoadBe64(b.data() + at + 8)});
    }
    EXPECT_EQ(b.size() % 16, 0u);
    return replies;
  }
  // Completes the oldest device request and runs what follows.
  void Complete(Status s = Status::Ok()) {
    EventLoop::ScopedCurrent scope(&loop_);
    device_.CompleteOldest(std::move(s));
    loop_.Pump();
  }
  std::string Pending(size_t i) const {
    const HoldDevice::Op& op = device_.ops.at(i);
    return op.kind + " " + std::to_string(op.offset) + "+" + std::to_string(op.length) +
           (op.fua ? " fua" : "");
  }

  SimFdLoop loop_;
  HoldDevice device_{kSize, 512};
  ExportInfo info_ = ExportInfo::ForDevice(device_, "", "");
  std::shared_ptr<Connection> conn_;
  int client_ = -1;
  bool finished_ = false;
  bool eof_ = false;
};

TEST_F(ConnectionTest, StalledHandshakeIsDroppedAtTheTimeout) {
  ConnectionOptions options;
  options.handshake_timeout = 10s;
  Start(options);
  EXPECT_EQ(Received().size(), 18u);  // the greeting
  Bytes partial;
  PutBe32(partial, kClientFlagFixedNewstyle);
  PutBe64(partial, kOptMagic);  // half an option header, then nothing
  Send(partial);
  EXPECT_FALSE(finished_);
  loop_.sim().run_until_idle();  // virtual time jumps to the timer
  EXPECT_EQ(loop_.clock().now(), Nanos(10s));
  EXPECT_TRUE(finished_);
  EXPECT_FALSE(loop_.watching());
  EXPECT_TRUE(Received().empty());
  EXPECT_TRUE(eof_);
}

TEST_F(ConnectionTest, HandshakeTimerEndsWithTheHandshake) {
  Start(ConnectionOptions{});
  Go();
  loop_.sim().run_until_idle();  // nothing scheduled: the clock does not move
  EXPECT_EQ(loop_.clock().now(), Nanos(0));
  EXPECT_EQ(loop_.sim().pending(), 0u);
  EXPECT_FALSE(finished_);
  Request(kCmdFlush, 0, 5, 0, 0);
  ASSERT_EQ(device_.ops.size(), 1u);
  Complete();
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 5}}));
}

TEST_F(ConnectionTest, LongTrimReachesTheDeviceInSequentialChunks) {
  ConnectionOptions options;
  options.range_chunk_bytes = kChunk;
  Start(options);
  Go();
  Request(kCmdTrim, kCmdFlagFua, 9, 4096, uint32_t(3 * kChunk + 8192));
  const char* want[] = {"discard 4096+65536", "discard 69632+65536", "discard 135168+65536",
                        "discard 200704+8192", "flush 0+0"};
  for (const char* op : want) {
    ASSERT_EQ(device_.ops.size(), 1u) << op;  // one chunk at a time
    EXPECT_EQ(Pending(0), op);
    EXPECT_TRUE(Replies().empty());
    Complete();
  }
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 9}}));
  EXPECT_EQ(device_.stats().discards.load(), 4u);
}

// FUA on a long WRITE_ZEROES is one flush after its last chunk, not a FUA write per chunk.
TEST_F(ConnectionTest, LongZeroesWithFuaAreFlushedOnceAfterTheLastChunk) {
  ConnectionOptions options;
  options.range_chunk_bytes = kChunk;
  Start(options);
  Go();
  Request(kCmdWriteZeroes, kCmdFlagFua, 7, 0, uint32_t(2 * kChunk));
  for (const char* op : {"zero 0+65536", "zero 65536+65536", "flush 0+0"}) {
    ASSERT_EQ(device_.ops.size(), 1u) << op;
    EXPECT_EQ(Pending(0), op);
    EXPECT_TRUE(Replies().empty());
    Complete();
  }
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 7}}));
}

TEST_F(ConnectionTest, FirstChunkErrorIsTheReplyAndStopsTheCommand) {
  ConnectionOptions options;
  options.range_chunk_bytes = kChunk + 100;  // rounded down to the block size
  Start(options);
  Go();
  Request(kCmdWriteZeroes, kCmdFlagFua, 3, 0, uint32_t(3 * kChunk));
  EXPECT_EQ(Pending(0), "zero 0+65536");
  Complete();
  EXPECT_EQ(Pending(0), "zero 65536+65536");
  Complete(Status::NoSpace("thin pool full"));
  EXPECT_TRUE(device_.ops.empty());  // the third chunk is never sent
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{kEnospc, 3}}));
  Request(kCmdCache, 0, 4, 0, uint32_t(2 * kChunk));
  EXPECT_EQ(Pending(0), "prefetch 0+65536");
  Complete(Status::IoError("bad sector"));
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{kEio, 4}}));
  EXPECT_TRUE(device_.ops.empty());
}

TEST_F(ConnectionTest, RangeCommandsCountAgainstTheInFlightBytes) {
  ConnectionOptions options;
  options.range_chunk_bytes = kChunk;
  options.max_in_flight_bytes = kChunk;  // one chunk of trim work fills it
  Start(options);
  Go();
  Request(kCmdTrim, 0, 1, 0, uint32_t(2 * kChunk));
  Request(kCmdWrite, 0, 2, 0, 512, Bytes(512, std::byte{7}));
  Request(kCmdCache, 0, 3, 0, 4096);
  ASSERT_EQ(device_.ops.size(), 1u);  // the write waits for the trim's budget
  EXPECT_EQ(Pending(0), "discard 0+65536");
  Complete();
  ASSERT_EQ(device_.ops.size(), 1u);
  EXPECT_EQ(Pending(0), "discard 65536+65536");
  Complete();
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1}}));
  ASSERT_EQ(device_.ops.size(), 2u);  // 512 + 4096 fit together
  EXPECT_EQ(Pending(0), "write 0+512");
  EXPECT_EQ(Pending(1), "prefetch 0+4096");
  Complete();
  Complete();
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 2}, {0, 3}}));
}

TEST_F(ConnectionTest, ZeroesAreBoundedLikeWrites) {
  ConnectionOptions options;
  options.range_chunk_bytes = kChunk;
  options.max_in_flight_bytes = 2 * kChunk;
  Start(options);
  Go();
  for (uint64_t i = 0; i < 3; ++i) Request(kCmdWriteZeroes, 0, i, i * kChunk, uint32_t(kChunk));
  ASSERT_EQ(device_.ops.size(), 2u);  // the third waits for room
  Complete();
  ASSERT_EQ(device_.ops.size(), 2u);
  EXPECT_EQ(Pending(1), "zero 131072+65536");
  Complete();
  Complete();
  EXPECT_EQ(Replies().size(), 3u);
}

TEST_F(ConnectionTest, RepliesNotTakenStopTheRequestsAlreadyRead) {
  ConnectionOptions options;
  options.max_in_flight = 1;
  options.max_queued_output = 1 << 20;
  Start(options);
  Go();
  // 16 READs of 1 MiB in one send: all buffered by the first receive. The client takes no reply.
  constexpr int kReads = 16;
  constexpr uint32_t kLength = 1 << 20;
  Bytes reads;
  for (int i = 0; i < kReads; ++i) {
    Bytes r = RequestBytes(0, kCmdRead, uint64_t(i), uint64_t(i % 4) * kLength, kLength);
    reads.insert(reads.end(), r.begin(), r.end());
  }
  Send(reads);
  int started = 0;
  while (!device_.ops.empty()) {
    ++started;
    Complete();
  }
  // Each reply is 1 MiB + 16: the socket takes a few hundred KiB of the first, the queue holds
  // the rest; the second (or, with a roomier socket, third) reply reaches 1 MiB and nothing
  // more starts until the client reads.
  EXPECT_GE(started, 2);
  EXPECT_LE(started, 3);
  // The client takes its replies: the rest run, and every reply arrives whole.
  size_t received = 0;
  for (int round = 0; round < 1000 && received < size_t(kReads) * (kLength + 16); ++round) {
    received += Received().size();
    EventLoop::ScopedCurrent scope(&loop_);
    loop_.Pump();
    if (!device_.ops.empty()) {
      ++started;
      Complete();
    }
  }
  EXPECT_EQ(started, kReads);
  EXPECT_EQ(received, size_t(kReads) * (kLength + 16));
}

TEST_F(ConnectionTest, BadMagicDisconnectsAfterInFlightReplies) {
  Start(ConnectionOptions{});
  Go();
  Request(kCmdWrite, 0, 1, 0, 512, Bytes(512));
  Bytes bad(28, std::byte{0});
  Send(bad);
  EXPECT_FALSE(finished_);
  Complete();
  EXPECT_EQ(Replies(), (std::vector<std::pair<uint32_t, uint64_t>>{{0, 1}}));
  EXPECT_TRUE(eof_);
  EXPECT_TRUE(finished_);
}

}  // namespace
}  // namespace tiercache::nbd

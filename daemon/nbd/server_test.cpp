#include "daemon/nbd/server.h"

#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <vector>

#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/memory_device.h"
#include "daemon/nbd/client_bytes_for_test.h"
#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/wire.h"
#include "tests/support/temp_dir.h"

namespace tiercache::nbd {
namespace {

// Holds every write until open() is called: lets a test keep a request in flight.
class GateDevice : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;
  int held() {
    std::lock_guard lock(mu_);
    return int(held_.size());
  }
  void open() {
    std::lock_guard lock(mu_);
    for (auto& h : held_) {
      h.loop->post([this, h] { target().write(h.offset, h.buf, h.flags, h.cb); });
    }
    held_.clear();
  }

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    std::lock_guard lock(mu_);
    held_.push_back({EventLoop::current(), offset, buf, flags, std::move(cb)});
  }

 private:
  struct Held {
    EventLoop* loop;
    uint64_t offset;
    std::span<const std::byte> buf;
    WriteFlags flags;
    IoCallback cb;
  };
  std::mutex mu_;
  std::vector<Held> held_;
};

// A blocking test client speaking just enough NBD.
class Client {
 public:
  explicit Client(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    ok_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return ok_; }

  // Fixed newstyle + NO_ZEROES, then NBD_OPT_GO for the default export.
  void Go() {
    Bytes greeting = Recv(18);
    ASSERT_EQ(LoadBe64(greeting.data()), kNbdMagic);
    Send(GoForDefaultExport());
    for (;;) {
      Bytes hdr = Recv(20);
      Recv(LoadBe32(hdr.data() + 16));
      if (LoadBe32(hdr.data() + 12) == kRepAck) return;
      ASSERT_EQ(LoadBe32(hdr.data() + 12), kRepInfo);
    }
  }
  void Request(uint16_t type, uint64_t cookie, uint64_t offset, uint32_t length,
               const Bytes& payload = {}) {
    Send(RequestBytes(0, type, cookie, offset, length, payload));
  }
  // Returns (error, cookie) of the next simple reply; `data_len` bytes follow a good read.
  std::pair<uint32_t, uint64_t> Reply(size_t data_len = 0, Bytes* data = nullptr) {
    Bytes hdr = Recv(16);
    EXPECT_EQ(LoadBe32(hdr.data()), kSimpleReplyMagic);
    uint32_t err = LoadBe32(hdr.data() + 4);
    if (err == 0 && data_len > 0) {
      Bytes d = Recv(data_len);
      if (data) *data = std::move(d);
    }
    return {err, LoadBe64(hdr.data() + 8)};
  }
  // Reply bytes the server has written that this client has not read yet.
  int Unread() {
    int n = 0;
    ioctl(fd_, FIONREAD, &n);
    return n;
  }
  bool AtEof() {
    char c;
    return recv(fd_, &c, 1, 0) == 0;
  }
  void Send(const Bytes& b) {
    ASSERT_EQ(send(fd_, b.data(), b.size(), MSG_NOSIGNAL), ssize_t(b.size()));
  }
  Bytes Recv(size_t n) {
    Bytes b(n);
    size_t got = 0;
    while (got < n) {
      ssize_t r = recv(fd_, b.data() + got, n - got, 0);
      if (r <= 0) break;
      got += size_t(r);
    }
    EXPECT_EQ(got, n);
    return b;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    socket_ = dir_ + "/sub/sock";
  }
  void TearDown() override {
    server_.reset();
  }
  void StartServer(Device& device, unsigned threads = 2) {
    ServerConfig config;
    config.unix_socket = socket_;
    config.threads = threads;
    auto s = Server::Start(device, config);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
  }
  // Stops the server and waits for `done`.
  void StopAndWait() {
    std::promise<void> done;
    server_->stop([&] { done.set_value(); });
    done.get_future().wait();
  }

  testing::TempDir tmp_{"nbd-server-test"};

  std::string dir_;
  std::string socket_;
  std::unique_ptr<Server> server_;
};

TEST_F(ServerTest, SocketIsPrivateAndRemovedOnStop) {
  MemoryDevice dev("mem", 1 << 20);
  StartServer(dev);
  struct stat st;
  ASSERT_EQ(stat((dir_ + "/sub").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat(socket_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  StopAndWait();
  EXPECT_NE(access(socket_.c_str(), F_OK), 0);
}

TEST_F(ServerTest, PipelinedRequestsOnSeveralConnections) {
  MemoryDevice dev("mem", 1 << 20);
  StartServer(dev);
  Client a(socket_), b(socket_);
  ASSERT_TRUE(a.connected() && b.connected());
  a.Go();
  b.Go();
  for (uint64_t i = 0; i < 32; ++i)
    a.Request(kCmdWrite, i, i * 4096, 4096, Bytes(4096, std::byte(i)));
  std::vector<bool> seen(32);
  for (int i = 0; i < 32; ++i) {
    auto [err, cookie] = a.Reply();
    ASSERT_EQ(err, 0u);
    ASSERT_LT(cookie, 32u);
    EXPECT_FALSE(seen[cookie]);
    seen[cookie] = true;
  }
  a.Request(kCmdFlush, 99, 0, 0);
  EXPECT_EQ(a.Reply(), std::make_pair(0u, uint64_t(99)));
  // The other connection reads what the first wrote.
  for (uint64_t i = 0; i < 32; ++i) b.Request(kCmdRead, 100 + i, i * 4096, 4096);
  for (int i = 0; i < 32; ++i) {
    Bytes data;
    auto [err, cookie] = b.Reply(4096, &data);
    ASSERT_EQ(err, 0u);
    EXPECT_EQ(data, Bytes(4096, std::byte(cookie - 100)));
  }
  EXPECT_EQ(server_->connection_count(), 2u);
  StopAndWait();
  EXPECT_TRUE(a.AtEof());
  EXPECT_TRUE(b.AtEof());
  EXPECT_EQ(server_->connection_count(), 0u);
}

TEST_F(ServerTest, StopWaitsForInFlightRequestsAndSendsTheirReplies) {
  MemoryDevice mem("mem", 1 << 20);
  GateDevice gate(mem);
  StartServer(gate, 1);
  Client c(socket_);
  c.Go();
  c.Request(kCmdWrite, 7, 8192, 512, Bytes(512, std::byte{0x3c}));
  while (gate.held() == 0) std::this_thread::yield();  // the write reached the device
  std::promise<void> done;
  std::atomic<bool> finished{false};
  server_->stop([&] {
    finished = true;
    done.set_value();
  });
  // The listener closes at once, but the in-flight write holds the stop.
  while (access(socket_.c_str(), F_OK) == 0) std::this_thread::yield();
  EXPECT_FALSE(finished.load());
  gate.open();
  EXPECT_EQ(c.Reply(), std::make_pair(0u, uint64_t(7)));
  done.get_future().wait();
  EXPECT_TRUE(c.AtEof());
  Bytes back(512);
  mem.read_now(8192, std::as_writable_bytes(std::span(back)));
  EXPECT_EQ(back, Bytes(512, std::byte{0x3c}));
}

TEST_F(ServerTest, EveryStopCallerIsCalledBack) {
  MemoryDevice mem("mem", 1 << 20);
  GateDevice gate(mem);
  StartServer(gate, 1);
  Client c(socket_);
  c.Go();
  c.Request(kCmdWrite, 1, 0, 512, Bytes(512));
  while (gate.held() == 0) std::this_thread::yield();
  std::promise<void> first, second;
  server_->stop([&] { first.set_value(); });
  server_->stop([&] { second.set_value(); });  // while the first stop waits for the write
  gate.open();
  first.get_future().wait();
  second.get_future().wait();
  bool third = false;
  server_->stop([&] { third = true; });  // already stopped: called at once
  EXPECT_TRUE(third);
}

TEST_F(ServerTest, InFlightBytesBoundDoesNotStallALargeWrite) {
  MemoryDevice dev("mem", 64 << 20);
  ServerConfig config;
  config.unix_socket = socket_;
  config.threads = 1;
  config.connection.max_in_flight_bytes = 4096;  // far below one request
  auto s = Server::Start(dev, config);
  ASSERT_TRUE(s.ok());
  server_ = std::move(s).value();
  Client c(socket_);
  c.Go();
  const uint32_t big = 8 << 20;
  c.Request(kCmdWrite, 1, 0, big, Bytes(big, std::byte{0x61}));
  c.Request(kCmdRead, 2, 0, big);
  c.Request(kCmdRead, 3, big - 4096, 4096);
  EXPECT_EQ(c.Reply(), std::make_pair(0u, uint64_t(1)));
  Bytes data;
  EXPECT_EQ(c.Reply(big, &data), std::make_pair(0u, uint64_t(2)));
  EXPECT_EQ(data, Bytes(big, std::byte{0x61}));
  EXPECT_EQ(c.Reply(4096, &data), std::make_pair(0u, uint64_t(3)));
  EXPECT_EQ(data, Bytes(4096, std::byte{0x61}));
}

// The connection's socket holds a whole 1 MiB READ reply: the server writes all of it while
// the client reads nothing (with the system's default ~200 KiB it would stop at that).
TEST_F(ServerTest, AWholeLargeReadReplyFitsTheSocket) {
  const uint32_t big = 1 << 20;
  const int reply = 16 + int(big);
  int wmem_max = 0;
  if (FILE* f = std::fopen("/proc/sys/net/core/wmem_max", "r")) {
    if (std::fscanf(f, "%d", &wmem_max) != 1) wmem_max = 0;
    std::fclose(f);
  }
  if (geteuid() != 0 && wmem_max < (4 << 20)) {
    GTEST_SKIP() << "needs root (SO_SNDBUFFORCE) or net.core.wmem_max >= 4 MiB";
  }
  MemoryDevice dev("mem", 4 << 20);
  StartServer(dev, 1);
  Client c(socket_);
  c.Go();
  c.Request(kCmdRead, 7, 0, big);
  for (int i = 0; i < 1000 && c.Unread() < reply; ++i) usleep(10'000);  // bounded: 10 s
  EXPECT_EQ(c.Unread(), reply);
  EXPECT_EQ(c.Reply(big), std::make_pair(0u, uint64_t(7)));
}

TEST_F(ServerTest, DestructorStopsAServerThatWasNotStopped) {
  MemoryDevice dev("mem", 1 << 20);
  StartServer(dev);
  Client c(socket_);
  c.Go();
  server_.reset();
  EXPECT_TRUE(c.AtEof());
}

TEST_F(ServerTest, LiveSocketIsNotReplacedButStaleOneIs) {
  MemoryDevice dev("mem", 1 << 20);
  StartServer(dev);
  ServerConfig config;
  config.unix_socket = socket_;
  EXPECT_FALSE(Server::Start(dev, config).ok());
  // Leave a stale socket file behind: bind without listening.
  StopAndWait();
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  socket_.copy(addr.sun_path, sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
  auto again = Server::Start(dev, config);
  EXPECT_TRUE(again.ok()) << again.status().ToString();
}

// A client that writes and reads back one block on connection `c`.
void ExpectWorks(Client& c, uint64_t cookie) {
  Bytes block(512, std::byte(cookie));
  c.Request(kCmdWrite, cookie, cookie * 512, 512, block);
  EXPECT_EQ(c.Reply(), std::make_pair(0u, cookie));
  Bytes data;
  c.Request(kCmdRead, cookie + 1, cookie * 512, 512);
  EXPECT_EQ(c.Reply(512, &data), std::make_pair(0u, cookie + 1));
  EXPECT_EQ(data, block);
}

TEST_F(ServerTest, ConnectionOverTheLimitIsClosedAndTheOthersKeepWorking) {
  MemoryDevice dev("mem", 1 << 20);
  ServerConfig config;
  config.unix_socket = socket_;
  config.threads = 2;
  config.max_connections = 2;
  auto s = Server::Start(dev, config);
  ASSERT_TRUE(s.ok());
  server_ = std::move(s).value();
  auto a = std::make_unique<Client>(socket_);
  Client b(socket_);
  a->Go();
  b.Go();
  Client third(socket_);
  ASSERT_TRUE(third.connected());  // the kernel accepts it; the server closes it at once
  EXPECT_TRUE(third.AtEof());
  Client fourth(socket_);
  EXPECT_TRUE(fourth.AtEof());
  EXPECT_EQ(server_->refused_connections(), 2u);
  ExpectWorks(*a, 10);
  ExpectWorks(b, 20);
  // A slot frees once a connection has fully closed.
  a.reset();
  while (server_->connection_count() != 1) std::this_thread::yield();
  Client fifth(socket_);
  fifth.Go();
  ExpectWorks(fifth, 30);
  EXPECT_EQ(server_->refused_connections(), 2u);
  EXPECT_EQ(server_->connection_count(), 2u);
}

TEST_F(ServerTest, MisbehavingClientsAreDroppedAndTheOthersKeepRunning) {
  MemoryDevice dev("mem", 64 << 20);
  ServerConfig config;
  config.unix_socket = socket_;
  config.threads = 1;  // all on one loop: a dropped client must not disturb its neighbours
  // Long enough for each Go() below even on a loaded machine; only the staller waits it out.
  config.connection.handshake_timeout = std::chrono::milliseconds(500);
  auto s = Server::Start(dev, config);
  ASSERT_TRUE(s.ok());
  server_ = std::move(s).value();
  Client good(socket_);
  good.Go();
  Client bad_magic(socket_);
  bad_magic.Go();
  Client oversized(socket_);
  oversized.Go();
  ExpectWorks(good, 1);
  Bytes garbage(28, std::byte{0x41});
  bad_magic.Send(garbage);
  EXPECT_TRUE(bad_magic.AtEof());
  oversized.Request(kCmdWrite, 5, 0, (32u << 20) + 512);  // no payload: never read
  EXPECT_TRUE(oversized.AtEof());
  ExpectWorks(good, 3);
  // The staller reads the greeting and sends nothing: the handshake timeout drops it, while
  // `good`, in transmission for longer than that timeout, stays.
  Client staller(socket_);
  EXPECT_EQ(staller.Recv(18).size(), 18u);
  EXPECT_TRUE(staller.AtEof());
  ExpectWorks(good, 5);
  EXPECT_EQ(server_->connection_count(), 1u);
}

TEST_F(ServerTest, ConfigLimitsAreValidated) {
  MemoryDevice dev("mem", 1 << 20);
  ServerConfig config;
  config.unix_socket = socket_;
  config.max_connections = 0;
  EXPECT_EQ(Server::Start(dev, config).status().message(), "max_connections must be > 0");
  config.max_connections = 1;
  config.connection.range_chunk_bytes = 0;
  EXPECT_EQ(Server::Start(dev, config).status().message(), "range_chunk_bytes must be > 0");
  config.connection.range_chunk_bytes = 4096;
  config.connection.handshake_timeout = Nanos(0);
  EXPECT_EQ(Server::Start(dev, config).status().message(), "handshake_timeout must be > 0");
}

TEST_F(ServerTest, TcpListenerOnAnyFreePort) {
  MemoryDevice dev("mem", 1 << 20);
  ServerConfig config;
  config.tcp_listen = "127.0.0.1:0";
  config.threads = 1;
  auto s = Server::Start(dev, config);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NE((*s)->tcp_port(), 0);
  ServerConfig none;
  EXPECT_FALSE(Server::Start(dev, none).ok());
}

// A port out of range is refused, not taken modulo 65536 by getaddrinfo (99999 would listen on
// 34463).
TEST_F(ServerTest, TcpListenPortsOutOfRangeAreRefused) {
  MemoryDevice dev("mem", 1 << 20);
  ServerConfig config;
  config.threads = 1;
  for (std::string bad : {"127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:-1", "[::1]:80x",
                          "127.0.0.1:000000"}) {
    config.tcp_listen = bad;
    EXPECT_EQ(Server::Start(dev, config).status().ToString(),
              "InvalidArgument: expected HOST:PORT with a PORT of 0-65535, got '" + bad + "'");
  }
  for (std::string bad : {"nonsense", "127.0.0.1:"}) {
    config.tcp_listen = bad;
    EXPECT_EQ(Server::Start(dev, config).status().ToString(),
              "InvalidArgument: expected HOST:PORT, got '" + bad + "'");
  }
}

}  // namespace
}  // namespace tiercache::nbd

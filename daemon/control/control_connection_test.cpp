// Tests for ControlConnection's output bound: a client that pipelines requests and reads no
// reply holds at most max_output_bytes of replies (and the socket's buffer), not one per request.
#include "daemon/control/control_connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "cachelib/common/logger.h"
#include "cachelib/common/sim_fd_loop.h"
#include "daemon/control/testing/fake_control_target.h"

namespace tiercache {
namespace {

class ControlConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    client_ = sv[1];
    // A small socket buffer, so replies pile up in the connection, not in the kernel.
    int bytes = 4096;
    ASSERT_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes), 0);
    target_.set_completion(testing::FakeControlTarget::Completion::kInline);
    Logger::instance().set_sink([](std::string_view) {});  // a mode_switch line per request
    ControlConnection::Options options;
    options.max_output_bytes = 1024;
    connection_ = std::make_shared<ControlConnection>(loop_, sv[0], handler_, options,
                                                      [](ControlConnection*) {});
    ASSERT_TRUE(connection_->start().ok());
  }
  void TearDown() override {
    Logger::instance().set_sink(nullptr);
    connection_.reset();
    close(client_);
  }
  // Everything the connection has written so far.
  std::string Received() {
    std::string all;
    char buf[65536];
    ssize_t n;
    while ((n = recv(client_, buf, sizeof buf, MSG_DONTWAIT)) > 0) all.append(buf, size_t(n));
    return all;
  }

  SimFdLoop loop_;
  testing::FakeControlTarget target_;
  ControlHandler handler_{loop_, target_, Nanos(0)};
  std::shared_ptr<ControlConnection> connection_;
  int client_ = -1;
};

TEST_F(ControlConnectionTest, RepliesNotReadStopTheRequestsBehindThem) {
  constexpr size_t kRequests = 300;
  const std::string request = R"({"cmd":"mode","mode":"wb"})" "\n";
  std::string all;
  for (size_t i = 0; i < kRequests; ++i) all += request;
  ASSERT_EQ(send(client_, all.data(), all.size(), MSG_NOSIGNAL), ssize_t(all.size()));
  loop_.Pump();
  // The kernel takes a few replies (about 45 bytes each, a few hundred bytes of buffer each),
  // the connection 1024 bytes' worth; then it stops starting requests.
  const size_t started = target_.mode_calls().size();
  RecordProperty("started_before_reading", int(started));
  EXPECT_GE(started, 1u);
  EXPECT_LT(started, 100u) << "the client reads nothing, yet " << started << " requests ran";
  // The client reads: the rest run, in order, each answered once.
  std::string replies;
  auto lines = [&replies] { return size_t(std::count(replies.begin(), replies.end(), '\n')); };
  for (int round = 0; round < 1000 && lines() < kRequests; ++round) {
    replies += Received();
    loop_.Pump();
  }
  EXPECT_EQ(target_.mode_calls().size(), kRequests);
  EXPECT_EQ(lines(), kRequests);
  EXPECT_EQ(replies.substr(0, replies.find('\n')),
            R"({"ok":true,"mode":"wb","previous_mode":"wt"})");
}

}  // namespace
}  // namespace tiercache

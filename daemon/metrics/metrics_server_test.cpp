#include "daemon/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "cachelib/common/epoll_event_loop.h"
#include "daemon/control/testing/fake_control_target.h"

namespace tiercache {
namespace {

// Sends `request` to 127.0.0.1:port and returns everything the server sends until it closes.
// Reads time out after 60 s so a bug fails the test instead of hanging it.
std::string Exchange(uint16_t port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval tv{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), ssize_t(request.size()));
  std::string reply;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) reply.append(buf, size_t(n));
  ::close(fd);
  return reply;
}

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loop = std::move(LoopThread::Start("metrics-test")).value();
    loop->run_sync([&] {
      auto started = MetricsServer::Start(loop->loop(), "127.0.0.1:0",
                                          [this] { return "served " + std::to_string(++renders) + "\n"; });
      ASSERT_TRUE(started.ok()) << started.status().ToString();
      server = std::move(started).value();
    });
  }
  void TearDown() override { loop->run_sync([&] { server.reset(); }); }

  std::unique_ptr<LoopThread> loop;
  std::unique_ptr<MetricsServer> server;
  int renders = 0;
};

TEST_F(MetricsServerTest, AnswersEachRequestOnceAndCloses) {
  EXPECT_EQ(Exchange(server->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
            "HTTP/1.0 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 9\r\n"
            "Connection: close\r\n\r\n"
            "served 1\n");
  EXPECT_TRUE(Exchange(server->port(), "GET /metrics HTTP/1.0\r\n\r\n").ends_with("\r\n\r\nserved 2\n"));
  // A POST with a body still gets its 405 whole.
  EXPECT_EQ(Exchange(server->port(), "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
                .substr(0, 33),
            "HTTP/1.0 405 Method Not Allowed\r\n");
  EXPECT_EQ(Exchange(server->port(), "GET /nope HTTP/1.0\r\n\r\n").substr(0, 24),
            "HTTP/1.0 404 Not Found\r\n");
  EXPECT_EQ(renders, 2);
}

TEST_F(MetricsServerTest, OversizedHeadIsRefused) {
  std::string head = "GET /metrics HTTP/1.1\r\nX: " + std::string(MetricsServer::kMaxHeadBytes, 'a');
  EXPECT_EQ(Exchange(server->port(), head).substr(0, 50),
            "HTTP/1.0 431 Request Header Fields Too Large\r\nCont");
}

TEST(MetricsServerPrometheusTest, RendersTheTargetsStats) {
  testing::FakeControlTarget target;
  const std::string text = MetricsServer::PrometheusOf(target)();
  EXPECT_EQ(text.substr(0, 25), "# HELP tiercache_requests");
  EXPECT_NE(text.find("tiercache_latency_seconds_count{"), std::string::npos) << text;
}

}  // namespace
}  // namespace tiercache

#include "daemon/metrics/metrics_http.h"

#include <gtest/gtest.h>

namespace tiercache {
namespace {

std::string Body() { return "tiercache_x 1\n"; }

TEST(MetricsHttpTest, ListenAddressDefaultsToLocalhost) {
  EXPECT_EQ(MetricsListenAddress("9100").value(), "127.0.0.1:9100");
  EXPECT_EQ(MetricsListenAddress("0.0.0.0:9100").value(), "0.0.0.0:9100");
  EXPECT_EQ(MetricsListenAddress("[::1]:0").value(), "[::1]:0");
  EXPECT_EQ(MetricsListenAddress("").status().message(),
            "expected PORT or HOST:PORT, got \"\"");
  EXPECT_FALSE(MetricsListenAddress("70000").ok());
  EXPECT_FALSE(MetricsListenAddress("localhost:").ok());
  EXPECT_FALSE(MetricsListenAddress(":9100").ok());
  EXPECT_FALSE(MetricsListenAddress("91x").ok());
}

TEST(MetricsHttpTest, HeadCompleteAtTheEmptyLine) {
  EXPECT_FALSE(HttpHeadComplete("GET /metrics HTTP/1.1\r\nHost: x\r\n"));
  EXPECT_TRUE(HttpHeadComplete("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(HttpHeadComplete("GET /metrics HTTP/1.0\n\n"));
}

TEST(MetricsHttpTest, GetMetricsServesTheText) {
  EXPECT_EQ(MetricsHttpResponse("GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", Body),
            "HTTP/1.0 200 OK\r\n"
            "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 14\r\n"
            "Connection: close\r\n\r\n"
            "tiercache_x 1\n");
  // A query string (Prometheus may add one) is ignored.
  EXPECT_EQ(MetricsHttpResponse("GET /metrics?x=1 HTTP/1.0\r\n\r\n", Body).substr(0, 17),
            "HTTP/1.0 200 OK\r\n");
}

TEST(MetricsHttpTest, OtherPathsMethodsAndGarbageAreRefused) {
  int renders = 0;
  auto render = [&renders] {
    ++renders;
    return std::string();
  };
  EXPECT_EQ(MetricsHttpResponse("GET / HTTP/1.1\r\n\r\n", render),
            "HTTP/1.0 404 Not Found\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 24\r\n"
            "Connection: close\r\n\r\n"
            "not found; try /metrics\n");
  EXPECT_EQ(MetricsHttpResponse("POST /metrics HTTP/1.1\r\n\r\n", render),
            "HTTP/1.0 405 Method Not Allowed\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 9\r\n"
            "Allow: GET\r\n"
            "Connection: close\r\n\r\n"
            "only GET\n");
  EXPECT_EQ(MetricsHttpResponse("hello\r\n\r\n", render).substr(0, 26),
            "HTTP/1.0 400 Bad Request\r\n");
  EXPECT_EQ(MetricsHttpResponse("GET /metrics\r\n\r\n", render).substr(0, 26),
            "HTTP/1.0 400 Bad Request\r\n");
  EXPECT_EQ(renders, 0);
}

}  // namespace
}  // namespace tiercache

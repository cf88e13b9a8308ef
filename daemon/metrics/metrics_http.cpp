#include "daemon/metrics/metrics_http.h"

#include <cstdlib>

namespace tiercache {
namespace {

std::string Response(const char* status, const std::string& content_type, const std::string& body,
                     const char* extra_header = "") {
  return std::string("HTTP/1.0 ") + status + "\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" + extra_header +
         "Connection: close\r\n\r\n" + body;
}

std::string Plain(const char* status, const std::string& body, const char* extra_header = "") {
  return Response(status, "text/plain; charset=utf-8", body, extra_header);
}

}  // namespace

Result<std::string> MetricsListenAddress(const std::string& value) {
  const size_t colon = value.rfind(':');
  const std::string port = colon == std::string::npos ? value : value.substr(colon + 1);
  const std::string host = colon == std::string::npos ? "127.0.0.1" : value.substr(0, colon);
  char* end = nullptr;
  const long number = port.empty() ? -1 : std::strtol(port.c_str(), &end, 10);
  if (host.empty() || port.empty() || *end != '\0' || number < 0 || number > 65535) {
    return Status::InvalidArgument("expected PORT or HOST:PORT, got \"" + value + "\"");
  }
  return host + ":" + port;
}

bool HttpHeadComplete(std::string_view received) {
  return received.find("\r\n\r\n") != std::string_view::npos ||
         received.find("\n\n") != std::string_view::npos;
}

std::string MetricsHttpResponse(std::string_view head, const std::function<std::string()>& render) {
  // Request line: METHOD SP TARGET SP HTTP/x.y
  const std::string_view line = head.substr(0, head.find_first_of("\r\n"));
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.substr(sp2 + 1).substr(0, 5) != "HTTP/") {
    return Plain("400 Bad Request", "bad request\n");
  }
  const std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if (target != "/metrics") return Plain("404 Not Found", "not found; try /metrics\n");
  if (method != "GET") return Plain("405 Method Not Allowed", "only GET\n", "Allow: GET\r\n");
  return Response("200 OK", "text/plain; version=0.0.4; charset=utf-8", render());
}

}  // namespace tiercache

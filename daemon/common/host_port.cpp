#include "daemon/common/host_port.h"

namespace tiercache {

Status SplitHostPort(const std::string& host_port, std::string& host, std::string& port) {
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos || colon + 1 == host_port.size()) {
    return Status::InvalidArgument("expected HOST:PORT, got '" + host_port + "'");
  }
  host = host_port.substr(0, colon);
  port = host_port.substr(colon + 1);
  // getaddrinfo takes a larger number modulo 65536: another port than the one asked for.
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535) {
    return Status::InvalidArgument("expected HOST:PORT with a PORT of 0-65535, got '" +
                                   host_port + "'");
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return Status::Ok();
}

}  // namespace tiercache

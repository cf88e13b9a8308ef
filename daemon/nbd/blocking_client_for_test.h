// Test-only: the client side of a socketpair to a Connection on a real loop thread, with
// blocking sends and receives (connection_alloc_test, connection_ring_test).
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <cstddef>

#include "daemon/nbd/client_bytes_for_test.h"

namespace tiercache::nbd {

inline void SendAll(int fd, const std::byte* data, size_t size) {
  while (size > 0) {
    ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    data += n;
    size -= size_t(n);
  }
}

inline void RecvAll(int fd, std::byte* data, size_t size) {
  while (size > 0) {
    ssize_t n = recv(fd, data, size, 0);
    ASSERT_GT(n, 0);
    data += n;
    size -= size_t(n);
  }
}

// Sends the client flags and NBD_OPT_GO for the default export, and reads the greeting and the
// option replies up to the GO's ack: the connection is then in transmission.
inline void NegotiateDefaultExport(int fd) {
  Bytes go = GoForDefaultExport();
  SendAll(fd, go.data(), go.size());
  std::byte b[1];
  Bytes seen;
  while (seen.size() < 20 || LoadBe64(seen.data() + seen.size() - 20) != kOptReplyMagic ||
         LoadBe32(seen.data() + seen.size() - 8) != kRepAck) {
    RecvAll(fd, b, 1);
    if (::testing::Test::HasFatalFailure()) return;
    seen.push_back(b[0]);
  }
}

}  // namespace tiercache::nbd

// Test-only: the bytes an NBD client sends, for tests that speak the protocol by hand over a
// socket (connection_test, server_test).
#pragma once

#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {

// Client flags (fixed newstyle, no zeroes), then NBD_OPT_GO for the default export "".
inline Bytes GoForDefaultExport() {
  Bytes out;
  PutBe32(out, kClientFlagFixedNewstyle | kClientFlagNoZeroes);
  PutBe64(out, kOptMagic);
  PutBe32(out, kOptGo);
  PutBe32(out, 6);  // name length (4) + name + info request count (2)
  PutBe32(out, 0);
  PutBe16(out, 0);
  return out;
}

// A request header (and payload, for WRITE).
inline Bytes RequestBytes(uint16_t flags, uint16_t type, uint64_t cookie, uint64_t offset,
                          uint32_t length, const Bytes& payload = {}) {
  Bytes out;
  PutBe32(out, kRequestMagic);
  PutBe16(out, flags);
  PutBe16(out, type);
  PutBe64(out, cookie);
  PutBe64(out, offset);
  PutBe32(out, length);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

}  // namespace tiercache::nbd

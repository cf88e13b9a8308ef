// libFuzzer target over the NBD server's byte parsers: the handshake state machine (fed in
// fuzzer-chosen chunk sizes, as a slow socket would), then, once transmission is reached, the
// request header parser and validator over the remaining bytes, skipping payloads the way a
// connection does. Also the option payload parsers on the raw input. Build: TIERCACHE_FUZZ=ON
// with clang.
#include <cstddef>
#include <cstdint>
#include <span>

#include "daemon/nbd/export_info.h"
#include "daemon/nbd/handshake.h"
#include "daemon/nbd/option_parser.h"
#include "daemon/nbd/protocol.h"
#include "daemon/nbd/reply.h"

namespace {

using tiercache::nbd::Bytes;
using tiercache::nbd::CheckedRequest;
using tiercache::nbd::ExportInfo;
using tiercache::nbd::Handshake;

void FuzzTransmission(std::span<const std::byte> in, const ExportInfo& info,
                      const tiercache::nbd::Negotiated& negotiated) {
  while (in.size() >= tiercache::nbd::kRequestHeaderSize) {
    auto header = tiercache::nbd::ParseRequestHeader(in);
    in = in.subspan(tiercache::nbd::kRequestHeaderSize);
    CheckedRequest r = tiercache::nbd::CheckRequest(header, info, negotiated);
    if (r.disconnect) return;
    if (r.payload > in.size()) return;
    in = in.subspan(r.payload);
    if (!r.status.ok()) {
      auto reply = tiercache::nbd::ErrorReply(negotiated.structured_replies, r.command.cookie,
                                              tiercache::nbd::NbdError(r.status, header.flags),
                                              r.status.message());
      if (reply.size() < 16) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ExportInfo info("disk", "fuzz disk", 1ull << 30, 512, 32u << 20);
  std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  (void)tiercache::nbd::ParseInfoRequest(input);
  (void)tiercache::nbd::ParseMetaContextRequest(input);
  if (size == 0) return 0;

  // First byte: the chunk size the "socket" delivers.
  const size_t chunk = 1 + size_t(data[0]) % 64;
  input = input.subspan(1);
  Handshake hs(info);
  Bytes out;
  hs.Start(out);
  size_t pos = 0;    // consumed by the handshake
  size_t avail = 0;  // delivered so far
  Handshake::Outcome outcome = Handshake::Outcome::kNeedMore;
  while (outcome == Handshake::Outcome::kNeedMore && avail < input.size()) {
    avail = std::min(input.size(), avail + chunk);
    size_t consumed = 0;
    outcome = hs.Feed(input.subspan(pos, avail - pos), consumed, out);
    pos += consumed;
    if (pos > avail) __builtin_trap();
  }
  if (outcome == Handshake::Outcome::kTransmission) {
    FuzzTransmission(input.subspan(pos), info, hs.negotiated());
  }
  return 0;
}

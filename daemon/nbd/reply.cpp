#include "daemon/nbd/reply.h"

#include <algorithm>
#include <cstring>

#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

// Longest error message sent; the protocol allows 4096 bytes, people read far less.
constexpr size_t kMaxMessage = 1024;

void EncodeSimpleHeader(std::byte* p, uint32_t error, uint64_t cookie) {
  StoreBe32(p, kSimpleReplyMagic);
  StoreBe32(p + 4, error);
  StoreBe64(p + 8, cookie);
}

void EncodeStructuredHeader(std::byte* p, uint16_t flags, uint16_t type, uint64_t cookie,
                            uint32_t length) {
  StoreBe32(p, kStructuredReplyMagic);
  StoreBe16(p + 4, flags);
  StoreBe16(p + 6, type);
  StoreBe64(p + 8, cookie);
  StoreBe32(p + 16, length);
}

}  // namespace

size_t ReadReplyHeaderSize(bool structured) {
  return structured ? kStructuredReplyHeaderSize + 8 : kSimpleReplyHeaderSize;
}

void EncodeReadReplyHeader(std::byte* p, bool structured, uint64_t cookie, uint64_t offset,
                           uint32_t length) {
  if (!structured) {
    EncodeSimpleHeader(p, 0, cookie);
    return;
  }
  EncodeStructuredHeader(p, kReplyFlagDone, kReplyTypeOffsetData, cookie, 8 + length);
  StoreBe64(p + kStructuredReplyHeaderSize, offset);
}

IoBuffer SimpleReply(uint64_t cookie, uint32_t error) {
  IoBuffer b = IoBuffer::Allocate(kSimpleReplyHeaderSize);
  EncodeSimpleHeader(b.data(), error, cookie);
  return b;
}

IoBuffer ErrorReply(bool structured, uint64_t cookie, uint32_t error, std::string_view message) {
  if (!structured) return SimpleReply(cookie, error);
  message = message.substr(0, kMaxMessage);
  const uint32_t payload = uint32_t(4 + 2 + message.size());
  IoBuffer b = IoBuffer::Allocate(kStructuredReplyHeaderSize + payload);
  std::byte* p = b.data();
  EncodeStructuredHeader(p, kReplyFlagDone, kReplyTypeError, cookie, payload);
  p += kStructuredReplyHeaderSize;
  StoreBe32(p, error);
  StoreBe16(p + 4, uint16_t(message.size()));
  std::memcpy(p + 6, message.data(), message.size());
  return b;
}

IoBuffer BlockStatusReply(uint64_t cookie, uint32_t context_id, uint32_t extent_length,
                          uint32_t extent_flags) {
  const uint32_t payload = 4 + 8;
  IoBuffer b = IoBuffer::Allocate(kStructuredReplyHeaderSize + payload);
  std::byte* p = b.data();
  EncodeStructuredHeader(p, kReplyFlagDone, kReplyTypeBlockStatus, cookie, payload);
  p += kStructuredReplyHeaderSize;
  StoreBe32(p, context_id);
  StoreBe32(p + 4, extent_length);
  StoreBe32(p + 8, extent_flags);
  return b;
}

}  // namespace tiercache::nbd

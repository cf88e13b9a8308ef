// Encoders for transmission-phase replies: simple replies, and structured reply chunks
// (OFFSET_DATA for reads, BLOCK_STATUS, ERROR). Each returns the complete bytes of one reply.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "daemon/nbd/io_buffer.h"

namespace tiercache::nbd {

// Bytes in front of the data in a successful READ reply: the simple reply header, or the
// structured chunk header plus the 64-bit offset of NBD_REPLY_TYPE_OFFSET_DATA.
size_t ReadReplyHeaderSize(bool structured);
// Writes that header at `p` for a read of `length` bytes at `offset`. The data follows it as
// one chunk flagged DONE, so NBD_CMD_FLAG_DF is always honoured.
void EncodeReadReplyHeader(std::byte* p, bool structured, uint64_t cookie, uint64_t offset,
                           uint32_t length);

// A simple reply with no payload (success when error == 0).
IoBuffer SimpleReply(uint64_t cookie, uint32_t error);
// An error reply: a structured NBD_REPLY_TYPE_ERROR chunk (DONE) carrying `message` when
// structured replies were negotiated, otherwise a simple reply. REQUIRES: error != 0.
IoBuffer ErrorReply(bool structured, uint64_t cookie, uint32_t error, std::string_view message);
// One NBD_REPLY_TYPE_BLOCK_STATUS chunk (DONE) with a single extent.
IoBuffer BlockStatusReply(uint64_t cookie, uint32_t context_id, uint32_t extent_length,
                          uint32_t extent_flags);

}  // namespace tiercache::nbd

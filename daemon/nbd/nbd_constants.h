// NBD wire constants from the NetworkBlockDevice protocol document (doc/proto.md): magics,
// handshake and transmission flags, option and reply types, commands and error values.
// Pure data; no state.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tiercache::nbd {

// Magic numbers.
inline constexpr uint64_t kNbdMagic = 0x4e42444d41474943ull;       // "NBDMAGIC"
inline constexpr uint64_t kOptMagic = 0x49484156454f5054ull;       // "IHAVEOPT"
inline constexpr uint64_t kOptReplyMagic = 0x0003e889045565a9ull;  // option replies
inline constexpr uint32_t kRequestMagic = 0x25609513;
inline constexpr uint32_t kSimpleReplyMagic = 0x67446698;
inline constexpr uint32_t kStructuredReplyMagic = 0x668e33ef;

// Handshake flags (server, 16 bits) and client flags (32 bits).
inline constexpr uint16_t kFlagFixedNewstyle = 1 << 0;
inline constexpr uint16_t kFlagNoZeroes = 1 << 1;
inline constexpr uint32_t kClientFlagFixedNewstyle = 1 << 0;
inline constexpr uint32_t kClientFlagNoZeroes = 1 << 1;

// Transmission flags (16 bits).
inline constexpr uint16_t kFlagHasFlags = 1 << 0;
inline constexpr uint16_t kFlagReadOnly = 1 << 1;
inline constexpr uint16_t kFlagSendFlush = 1 << 2;
inline constexpr uint16_t kFlagSendFua = 1 << 3;
inline constexpr uint16_t kFlagRotational = 1 << 4;
inline constexpr uint16_t kFlagSendTrim = 1 << 5;
inline constexpr uint16_t kFlagSendWriteZeroes = 1 << 6;
inline constexpr uint16_t kFlagSendDf = 1 << 7;
inline constexpr uint16_t kFlagCanMultiConn = 1 << 8;
inline constexpr uint16_t kFlagSendCache = 1 << 10;
inline constexpr uint16_t kFlagSendFastZero = 1 << 11;

// Options.
inline constexpr uint32_t kOptExportName = 1;
inline constexpr uint32_t kOptAbort = 2;
inline constexpr uint32_t kOptList = 3;
inline constexpr uint32_t kOptStartTls = 5;
inline constexpr uint32_t kOptInfo = 6;
inline constexpr uint32_t kOptGo = 7;
inline constexpr uint32_t kOptStructuredReply = 8;
inline constexpr uint32_t kOptListMetaContext = 9;
inline constexpr uint32_t kOptSetMetaContext = 10;

// Option reply types.
inline constexpr uint32_t kRepAck = 1;
inline constexpr uint32_t kRepServer = 2;
inline constexpr uint32_t kRepInfo = 3;
inline constexpr uint32_t kRepMetaContext = 4;
inline constexpr uint32_t kRepErrUnsup = 0x80000001;
inline constexpr uint32_t kRepErrPolicy = 0x80000002;
inline constexpr uint32_t kRepErrInvalid = 0x80000003;
inline constexpr uint32_t kRepErrPlatform = 0x80000004;
inline constexpr uint32_t kRepErrTlsReqd = 0x80000005;
inline constexpr uint32_t kRepErrUnknown = 0x80000006;
inline constexpr uint32_t kRepErrShutdown = 0x80000007;
inline constexpr uint32_t kRepErrBlockSizeReqd = 0x80000008;
inline constexpr uint32_t kRepErrTooBig = 0x80000009;

// NBD_INFO_* types inside NBD_REP_INFO.
inline constexpr uint16_t kInfoExport = 0;
inline constexpr uint16_t kInfoName = 1;
inline constexpr uint16_t kInfoDescription = 2;
inline constexpr uint16_t kInfoBlockSize = 3;

// Commands.
inline constexpr uint16_t kCmdRead = 0;
inline constexpr uint16_t kCmdWrite = 1;
inline constexpr uint16_t kCmdDisc = 2;
inline constexpr uint16_t kCmdFlush = 3;
inline constexpr uint16_t kCmdTrim = 4;
inline constexpr uint16_t kCmdCache = 5;
inline constexpr uint16_t kCmdWriteZeroes = 6;
inline constexpr uint16_t kCmdBlockStatus = 7;

// Command flags.
inline constexpr uint16_t kCmdFlagFua = 1 << 0;
inline constexpr uint16_t kCmdFlagNoHole = 1 << 1;
inline constexpr uint16_t kCmdFlagDf = 1 << 2;
inline constexpr uint16_t kCmdFlagReqOne = 1 << 3;
inline constexpr uint16_t kCmdFlagFastZero = 1 << 4;

// Structured reply flags and chunk types.
inline constexpr uint16_t kReplyFlagDone = 1 << 0;
inline constexpr uint16_t kReplyTypeNone = 0;
inline constexpr uint16_t kReplyTypeOffsetData = 1;
inline constexpr uint16_t kReplyTypeOffsetHole = 2;
inline constexpr uint16_t kReplyTypeBlockStatus = 5;
inline constexpr uint16_t kReplyTypeError = 0x8001;
inline constexpr uint16_t kReplyTypeErrorOffset = 0x8002;

// Error values carried in replies.
inline constexpr uint32_t kEperm = 1;
inline constexpr uint32_t kEio = 5;
inline constexpr uint32_t kEnomem = 12;
inline constexpr uint32_t kEinval = 22;
inline constexpr uint32_t kEnospc = 28;
inline constexpr uint32_t kEoverflow = 75;
inline constexpr uint32_t kEnotsup = 95;
inline constexpr uint32_t kEshutdown = 108;

// Wire sizes.
inline constexpr size_t kRequestHeaderSize = 28;
inline constexpr size_t kSimpleReplyHeaderSize = 16;
inline constexpr size_t kStructuredReplyHeaderSize = 20;
inline constexpr size_t kOptionHeaderSize = 16;

// Limits (ours, not the protocol's).
// Longest string (export name, meta context query) accepted; the protocol's MUST bound.
inline constexpr uint32_t kMaxStringLength = 4096;
// Largest option payload read during the handshake; a larger one disconnects.
inline constexpr uint32_t kMaxOptionLength = 64 * 1024;
// Options accepted on one connection before it is treated as a denial of service.
inline constexpr uint32_t kMaxOptions = 256;
// The metadata context id given to base:allocation.
inline constexpr uint32_t kBaseAllocationId = 1;
inline constexpr const char* kBaseAllocation = "base:allocation";

}  // namespace tiercache::nbd

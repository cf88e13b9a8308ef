#include "daemon/nbd/protocol.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "daemon/nbd/reply.h"
#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

constexpr uint64_t kSize = 1ull << 20;  // 1 MiB export, 512-byte blocks

Bytes EncodeHeader(uint16_t flags, uint16_t type, uint64_t cookie, uint64_t offset, uint32_t length,
                   uint32_t magic = kRequestMagic) {
  Bytes b;
  PutBe32(b, magic);
  PutBe16(b, flags);
  PutBe16(b, type);
  PutBe64(b, cookie);
  PutBe64(b, offset);
  PutBe32(b, length);
  return b;
}

class ProtocolTest : public ::testing::Test {
 protected:
  ProtocolTest() {
    structured_.structured_replies = true;
    structured_.base_allocation = true;
    structured_.transmission_flags = info_.TransmissionFlags(true);
    simple_.transmission_flags = info_.TransmissionFlags(false);
  }

  CheckedRequest Check(uint16_t flags, uint16_t type, uint64_t offset, uint32_t length,
                       bool structured = true) {
    Bytes wire = EncodeHeader(flags, type, 0xabcdef0123456789ull, offset, length);
    return CheckRequest(ParseRequestHeader(wire), info_, structured ? structured_ : simple_);
  }
  // The NBD error the client would get.
  uint32_t Error(uint16_t flags, uint16_t type, uint64_t offset, uint32_t length,
                 bool structured = true) {
    CheckedRequest r = Check(flags, type, offset, length, structured);
    EXPECT_FALSE(r.disconnect);
    return NbdError(r.status, flags);
  }

  ExportInfo info_{"", "", kSize, 512, 32u << 20};
  Negotiated structured_;
  Negotiated simple_;
};

TEST_F(ProtocolTest, ParsesEveryHeaderField) {
  Bytes wire =
      EncodeHeader(0x0102, 0x0304, 0x1122334455667788ull, 0x99aabbccddeeff00ull, 0x01020304u);
  RequestHeader h = ParseRequestHeader(wire);
  EXPECT_EQ(h.magic, kRequestMagic);
  EXPECT_EQ(h.flags, 0x0102);
  EXPECT_EQ(h.type, 0x0304);
  EXPECT_EQ(h.cookie, 0x1122334455667788ull);
  EXPECT_EQ(h.offset, 0x99aabbccddeeff00ull);
  EXPECT_EQ(h.length, 0x01020304u);
}

TEST_F(ProtocolTest, ValidRequestsConvertWireFlags) {
  CheckedRequest w = Check(kCmdFlagFua, kCmdWrite, 4096, 8192);
  ASSERT_TRUE(w.status.ok()) << w.status.ToString();
  EXPECT_EQ(w.command.op, Op::kWrite);
  EXPECT_EQ(w.command.cookie, 0xabcdef0123456789ull);
  EXPECT_TRUE(w.command.write_flags.fua);
  EXPECT_EQ(w.payload, 8192u);

  CheckedRequest z = Check(kCmdFlagNoHole | kCmdFlagFastZero, kCmdWriteZeroes, 0, kSize);
  ASSERT_TRUE(z.status.ok());
  EXPECT_TRUE(z.command.fast_zero);
  EXPECT_FALSE(z.command.write_flags.fua);
  EXPECT_EQ(z.payload, 0u);

  CheckedRequest r = Check(kCmdFlagDf, kCmdRead, kSize - 512, 512);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.command.dont_fragment);

  EXPECT_TRUE(Check(kCmdFlagReqOne, kCmdBlockStatus, 0, 512).status.ok());
  EXPECT_TRUE(Check(0, kCmdFlush, 0, 0).status.ok());
  EXPECT_TRUE(Check(0, kCmdCache, 0, kSize).status.ok());
  EXPECT_TRUE(Check(kCmdFlagFua, kCmdTrim, 512, 1024).status.ok());
  // FUA is accepted (and ignored) on commands that write nothing.
  EXPECT_TRUE(Check(kCmdFlagFua, kCmdRead, 0, 512).status.ok());
}

TEST_F(ProtocolTest, OutOfRangeIsEinvalForReadsAndEnospcForWrites) {
  EXPECT_EQ(Error(0, kCmdRead, kSize, 512), kEinval);
  EXPECT_EQ(Error(0, kCmdTrim, kSize - 512, 1024), kEinval);
  EXPECT_EQ(Error(0, kCmdCache, kSize, 512), kEinval);
  EXPECT_EQ(Error(0, kCmdBlockStatus, kSize, 512), kEinval);
  EXPECT_EQ(Error(0, kCmdWrite, kSize - 512, 1024), kEnospc);
  EXPECT_EQ(Error(0, kCmdWriteZeroes, kSize + 512, 512), kEnospc);
}

TEST_F(ProtocolTest, RangeCheckDoesNotOverflow) {
  const uint64_t near_max = UINT64_MAX - 511;  // aligned; offset + length wraps
  EXPECT_EQ(Error(0, kCmdRead, near_max, 1024), kEinval);
  EXPECT_EQ(Error(0, kCmdWrite, near_max, 1024), kEnospc);
  EXPECT_EQ(Error(0, kCmdTrim, near_max, 0xfffffe00u), kEinval);
}

TEST_F(ProtocolTest, MisalignedAndZeroLengthAreEinval) {
  EXPECT_EQ(Error(0, kCmdRead, 1, 512), kEinval);
  EXPECT_EQ(Error(0, kCmdRead, 0, 511), kEinval);
  EXPECT_EQ(Error(0, kCmdWrite, 256, 512), kEinval);
  EXPECT_EQ(Error(0, kCmdWriteZeroes, 0, 100), kEinval);
  for (uint16_t type :
       {kCmdRead, kCmdWrite, kCmdTrim, kCmdCache, kCmdWriteZeroes, kCmdBlockStatus}) {
    EXPECT_EQ(Error(0, type, 0, 0), kEinval) << CommandName(type);
  }
}

TEST_F(ProtocolTest, UnknownCommandsAndFlagsAreEinval) {
  EXPECT_EQ(Error(0, 9, 0, 512), kEinval);
  EXPECT_EQ(Error(0, 0xffff, 0, 512), kEinval);
  EXPECT_EQ(Error(1 << 7, kCmdRead, 0, 512), kEinval);
  EXPECT_EQ(Error(kCmdFlagNoHole, kCmdWrite, 0, 512), kEinval);
  EXPECT_EQ(Error(kCmdFlagFastZero, kCmdTrim, 0, 512), kEinval);
  EXPECT_EQ(Error(kCmdFlagReqOne, kCmdRead, 0, 512), kEinval);
  EXPECT_EQ(Error(kCmdFlagDf, kCmdWrite, 0, 512), kEinval);
  // DF needs structured replies; BLOCK_STATUS needs base:allocation.
  EXPECT_EQ(Error(kCmdFlagDf, kCmdRead, 0, 512, /*structured=*/false), kEinval);
  EXPECT_EQ(Error(0, kCmdBlockStatus, 0, 512, /*structured=*/false), kEinval);
}

TEST_F(ProtocolTest, FlushMustHaveZeroOffsetAndLength) {
  EXPECT_EQ(Error(0, kCmdFlush, 512, 0), kEinval);
  EXPECT_EQ(Error(0, kCmdFlush, 0, 512), kEinval);
}

TEST_F(ProtocolTest, LengthLimits) {
  // Reads and cache requests above 32 MiB are refused; trims of any size are not.
  ExportInfo big{"", "", 1ull << 40, 512, 32u << 20};
  Bytes read = EncodeHeader(0, kCmdRead, 1, 0, (32u << 20) + 512);
  EXPECT_EQ(NbdError(CheckRequest(ParseRequestHeader(read), big, structured_).status, 0), kEinval);
  Bytes cache = EncodeHeader(0, kCmdCache, 1, 0, (32u << 20) + 512);
  EXPECT_EQ(NbdError(CheckRequest(ParseRequestHeader(cache), big, structured_).status, 0), kEinval);
  Bytes trim = EncodeHeader(0, kCmdTrim, 1, 0, 0xfffffe00u);
  EXPECT_TRUE(CheckRequest(ParseRequestHeader(trim), big, structured_).status.ok());
  Bytes zero = EncodeHeader(0, kCmdWriteZeroes, 1, 0, 0xfffffe00u);
  EXPECT_TRUE(CheckRequest(ParseRequestHeader(zero), big, structured_).status.ok());
}

TEST(ExportInfoTest, MinimumIsTheDeviceBlockSizePreferredAtLeast4096) {
  ExportInfo sectors{"", "", kSize, 512, 32u << 20};
  EXPECT_EQ(sectors.min_block(), 512u);
  EXPECT_EQ(sectors.preferred_block(), 4096u);
  EXPECT_EQ(sectors.max_block(), 32u << 20);
  ExportInfo pages{"", "", kSize, 4096, 32u << 20};
  EXPECT_EQ(pages.min_block(), 4096u);
  EXPECT_EQ(pages.preferred_block(), 4096u);
  ExportInfo big{"", "", kSize, 65536, (1u << 20) + 512};
  EXPECT_EQ(big.min_block(), 65536u);
  EXPECT_EQ(big.preferred_block(), 65536u);
  EXPECT_EQ(big.max_block(), 1u << 20);  // the device limit, rounded down to the minimum
  EXPECT_FALSE(ExportInfo::Validate("", "", 768, 32u << 20).ok());
  EXPECT_FALSE(ExportInfo::Validate("", "", 131072, 32u << 20).ok());
}

TEST_F(ProtocolTest, AlignmentFollowsTheExportMinimumBlockSize) {
  // 512-byte export: every command takes 512-aligned ranges.
  for (uint16_t type : {kCmdRead, kCmdTrim, kCmdCache, kCmdWriteZeroes}) {
    EXPECT_TRUE(Check(0, type, 1536, 512).status.ok()) << CommandName(type);
  }
  EXPECT_TRUE(Check(0, kCmdWrite, 1536, 512).status.ok());
  // 4096-byte export: the same requests are EINVAL, 4096-aligned ones pass.
  ExportInfo pages{"", "", kSize, 4096, 32u << 20};
  for (uint16_t type : {kCmdRead, kCmdWrite, kCmdTrim, kCmdCache, kCmdWriteZeroes}) {
    Bytes wire = EncodeHeader(0, type, 1, 1536, 512);
    CheckedRequest r = CheckRequest(ParseRequestHeader(wire), pages, structured_);
    EXPECT_EQ(NbdError(r.status, 0), kEinval) << CommandName(type);
    wire = EncodeHeader(0, type, 1, 8192, 4096);
    EXPECT_TRUE(CheckRequest(ParseRequestHeader(wire), pages, structured_).status.ok());
  }
  // Past the end of a 512-byte export: ENOSPC for WRITE and WRITE_ZEROES, else EINVAL.
  EXPECT_EQ(Error(0, kCmdWrite, kSize - 512, 1024), kEnospc);
  EXPECT_EQ(Error(0, kCmdWriteZeroes, kSize - 512, 1024), kEnospc);
  EXPECT_EQ(Error(0, kCmdRead, kSize - 512, 1024), kEinval);
  EXPECT_EQ(Error(0, kCmdTrim, kSize - 512, 1024), kEinval);
  EXPECT_EQ(Error(0, kCmdCache, kSize - 512, 1024), kEinval);
  EXPECT_EQ(Error(0, kCmdWrite, kSize - 512, 512), 0u);  // the last sector is in range
}

TEST_F(ProtocolTest, OversizedWritePayloadDisconnectsWithoutReading) {
  CheckedRequest r = Check(0, kCmdWrite, 0, (32u << 20) + 1);
  EXPECT_TRUE(r.disconnect);
  EXPECT_EQ(r.payload, 0u);
  // Exactly 32 MiB is a payload to skip (past the end here), not a disconnect.
  CheckedRequest ok = Check(0, kCmdWrite, 0, 32u << 20);
  EXPECT_FALSE(ok.disconnect);
  EXPECT_EQ(ok.payload, 32u << 20);
  EXPECT_EQ(NbdError(ok.status, 0), kEnospc);
}

TEST_F(ProtocolTest, RejectedWriteStillConsumesItsPayload) {
  CheckedRequest r = Check(kCmdFlagReqOne, kCmdWrite, 0, 4096);
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.payload, 4096u);
}

TEST_F(ProtocolTest, BadMagicDisconnects) {
  Bytes wire = EncodeHeader(0, kCmdRead, 1, 0, 512, 0x25609514);
  CheckedRequest r = CheckRequest(ParseRequestHeader(wire), info_, structured_);
  EXPECT_TRUE(r.disconnect);
}

TEST_F(ProtocolTest, DiscIgnoresItsFields) {
  CheckedRequest r = Check(0xffff, kCmdDisc, 123, 7);
  EXPECT_TRUE(r.status.ok());
  EXPECT_EQ(r.command.op, Op::kDisc);
}

TEST(NbdErrorTest, MapsEveryStatusCode) {
  EXPECT_EQ(NbdError(Status::Ok(), 0), 0u);
  EXPECT_EQ(NbdError(Status::InvalidArgument("x"), 0), kEinval);
  EXPECT_EQ(NbdError(Status::NoSpace("x"), 0), kEnospc);
  EXPECT_EQ(NbdError(Status::IoError("x"), 0), kEio);
  EXPECT_EQ(NbdError(Status::Corruption("x"), 0), kEio);
  EXPECT_EQ(NbdError(Status::NotFound("x"), 0), kEio);
  EXPECT_EQ(NbdError(Status::Busy("x"), 0), kEio);
  EXPECT_EQ(NbdError(Status::NotSupported("x"), 0), kEinval);
  EXPECT_EQ(NbdError(Status::NotSupported("x"), kCmdFlagFastZero), kEnotsup);
}

TEST(ReplyTest, SimpleAndStructuredEncodings) {
  IoBuffer simple = SimpleReply(0x0102030405060708ull, kEio);
  ASSERT_EQ(simple.size(), 16u);
  EXPECT_EQ(LoadBe32(simple.data()), kSimpleReplyMagic);
  EXPECT_EQ(LoadBe32(simple.data() + 4), kEio);
  EXPECT_EQ(LoadBe64(simple.data() + 8), 0x0102030405060708ull);

  IoBuffer err = ErrorReply(true, 7, kEinval, "bad");
  ASSERT_EQ(err.size(), 20u + 6u + 3u);
  EXPECT_EQ(LoadBe32(err.data()), kStructuredReplyMagic);
  EXPECT_EQ(LoadBe16(err.data() + 4), kReplyFlagDone);
  EXPECT_EQ(LoadBe16(err.data() + 6), kReplyTypeError);
  EXPECT_EQ(LoadBe64(err.data() + 8), 7u);
  EXPECT_EQ(LoadBe32(err.data() + 16), 9u);
  EXPECT_EQ(LoadBe32(err.data() + 20), kEinval);
  EXPECT_EQ(LoadBe16(err.data() + 24), 3u);
  EXPECT_EQ(ErrorReply(false, 7, kEinval, "bad").size(), 16u);

  IoBuffer bs = BlockStatusReply(9, kBaseAllocationId, 4096, 0);
  ASSERT_EQ(bs.size(), 32u);
  EXPECT_EQ(LoadBe16(bs.data() + 6), kReplyTypeBlockStatus);
  EXPECT_EQ(LoadBe32(bs.data() + 16), 12u);
  EXPECT_EQ(LoadBe32(bs.data() + 20), kBaseAllocationId);
  EXPECT_EQ(LoadBe32(bs.data() + 24), 4096u);
  EXPECT_EQ(LoadBe32(bs.data() + 28), 0u);

  std::byte hdr[28];
  ASSERT_EQ(ReadReplyHeaderSize(true), 28u);
  EncodeReadReplyHeader(hdr, true, 5, 1024, 512);
  EXPECT_EQ(LoadBe16(hdr + 4), kReplyFlagDone);
  EXPECT_EQ(LoadBe16(hdr + 6), kReplyTypeOffsetData);
  EXPECT_EQ(LoadBe32(hdr + 16), 520u);
  EXPECT_EQ(LoadBe64(hdr + 20), 1024u);
}

}  // namespace
}  // namespace tiercache::nbd

#include "daemon/nbd/handshake.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/option_parser.h"

namespace tiercache::nbd {
namespace {

// One option reply as the client would see it.
struct OptReply {
  uint32_t option;
  uint32_t type;
  Bytes payload;
};

std::vector<OptReply> ParseReplies(const Bytes& out) {
  std::vector<OptReply> replies;
  WireReader r(out);
  while (r.remaining() > 0) {
    uint64_t magic;
    OptReply rep;
    uint32_t len = 0;
    EXPECT_TRUE(r.Be64(magic) && r.Be32(rep.option) && r.Be32(rep.type) && r.Be32(len));
    EXPECT_EQ(magic, kOptReplyMagic);
    std::string_view data;
    EXPECT_TRUE(r.String(len, data));
    auto* p = reinterpret_cast<const std::byte*>(data.data());
    rep.payload.assign(p, p + data.size());
    replies.push_back(std::move(rep));
  }
  return replies;
}

Bytes ClientFlags(uint32_t flags = kClientFlagFixedNewstyle | kClientFlagNoZeroes) {
  Bytes b;
  PutBe32(b, flags);
  return b;
}

Bytes Option(uint32_t option, const Bytes& data = {}) {
  Bytes b;
  PutBe64(b, kOptMagic);
  PutBe32(b, option);
  PutBe32(b, uint32_t(data.size()));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

Bytes InfoData(std::string_view name, std::vector<uint16_t> infos) {
  Bytes b;
  PutBe32(b, uint32_t(name.size()));
  PutString(b, name);
  PutBe16(b, uint16_t(infos.size()));
  for (uint16_t i : infos) PutBe16(b, i);
  return b;
}

Bytes MetaData(std::string_view name, std::vector<std::string> queries) {
  Bytes b;
  PutBe32(b, uint32_t(name.size()));
  PutString(b, name);
  PutBe32(b, uint32_t(queries.size()));
  for (const auto& q : queries) {
    PutBe32(b, uint32_t(q.size()));
    PutString(b, q);
  }
  return b;
}

Bytes Concat(std::initializer_list<Bytes> parts) {
  Bytes b;
  for (const Bytes& p : parts) b.insert(b.end(), p.begin(), p.end());
  return b;
}

std::string AsString(const Bytes& b, size_t from = 0) {
  return std::string(reinterpret_cast<const char*>(b.data()) + from, b.size() - from);
}

class HandshakeTest : public ::testing::Test {
 protected:
  // 1 GiB export, 512-byte blocks, 32 MiB device limit.
  ExportInfo info_{"disk", "a test disk", 1ull << 30, 512, 32u << 20};
  Handshake hs_{info_};

  // Feeds everything at once; returns the outcome and checks how much was consumed.
  Handshake::Outcome FeedAll(const Bytes& in, Bytes& out, size_t expect_consumed) {
    size_t consumed = 0;
    auto outcome = hs_.Feed(in, consumed, out);
    EXPECT_EQ(consumed, expect_consumed);
    return outcome;
  }
};

TEST_F(HandshakeTest, GreetingIsNewstyleWithFixedAndNoZeroes) {
  Bytes out;
  hs_.Start(out);
  Bytes expect;
  PutBe64(expect, kNbdMagic);
  PutBe64(expect, kOptMagic);
  PutBe16(expect, kFlagFixedNewstyle | kFlagNoZeroes);
  EXPECT_EQ(out, expect);
}

TEST_F(HandshakeTest, UnknownClientFlagsClose) {
  Bytes out;
  EXPECT_EQ(FeedAll(ClientFlags(1u << 5), out, 4), Handshake::Outcome::kClose);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(hs_.aborted());
}

TEST_F(HandshakeTest, StructuredMetaContextAndGoEnterTransmission) {
  Bytes in = Concat({ClientFlags(), Option(kOptStructuredReply),
                     Option(kOptSetMetaContext, MetaData("", {"base:allocation", "x-y:z"})),
                     Option(kOptGo, InfoData("", {kInfoName, kInfoBlockSize}))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kTransmission);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 7u);
  EXPECT_EQ(replies[0].type, kRepAck);
  EXPECT_EQ(replies[0].option, kOptStructuredReply);
  // SET_META_CONTEXT: base:allocation with a nonzero id; the unknown namespace is ignored.
  EXPECT_EQ(replies[1].type, kRepMetaContext);
  EXPECT_EQ(LoadBe32(replies[1].payload.data()), kBaseAllocationId);
  EXPECT_EQ(AsString(replies[1].payload, 4), "base:allocation");
  EXPECT_EQ(replies[2].type, kRepAck);
  // GO: export info, block sizes, name, ack.
  const uint16_t flags = kFlagHasFlags | kFlagSendFlush | kFlagSendFua | kFlagSendTrim |
                         kFlagSendWriteZeroes | kFlagSendDf | kFlagCanMultiConn | kFlagSendCache |
                         kFlagSendFastZero;
  ASSERT_EQ(replies[3].payload.size(), 12u);
  EXPECT_EQ(LoadBe16(replies[3].payload.data()), kInfoExport);
  EXPECT_EQ(LoadBe64(replies[3].payload.data() + 2), 1ull << 30);
  EXPECT_EQ(LoadBe16(replies[3].payload.data() + 10), flags);
  ASSERT_EQ(replies[4].payload.size(), 14u);
  EXPECT_EQ(LoadBe16(replies[4].payload.data()), kInfoBlockSize);
  EXPECT_EQ(LoadBe32(replies[4].payload.data() + 2), 512u);
  EXPECT_EQ(LoadBe32(replies[4].payload.data() + 6), 4096u);
  EXPECT_EQ(LoadBe32(replies[4].payload.data() + 10), 32u << 20);
  EXPECT_EQ(LoadBe16(replies[5].payload.data()), kInfoName);
  EXPECT_EQ(AsString(replies[5].payload, 2), "disk");
  EXPECT_EQ(replies[6].type, kRepAck);
  EXPECT_EQ(replies[6].option, kOptGo);
  EXPECT_TRUE(hs_.negotiated().structured_replies);
  EXPECT_TRUE(hs_.negotiated().base_allocation);
  EXPECT_EQ(hs_.negotiated().transmission_flags, flags);
}

TEST_F(HandshakeTest, GoWithoutStructuredRepliesHasNoDfFlag) {
  Bytes in = Concat({ClientFlags(), Option(kOptGo, InfoData("disk", {}))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kTransmission);
  EXPECT_EQ(hs_.negotiated().transmission_flags & kFlagSendDf, 0);
  EXPECT_FALSE(hs_.negotiated().structured_replies);
  EXPECT_FALSE(hs_.negotiated().base_allocation);
}

TEST_F(HandshakeTest, UnknownOptionIsUnsupportedAndNextOptionStillParsed) {
  Bytes in = Concat(
      {ClientFlags(), Option(77, Bytes(10, std::byte{1})), Option(kOptStartTls), Option(kOptList)});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 4u);
  EXPECT_EQ(replies[0].option, 77u);
  EXPECT_EQ(replies[0].type, kRepErrUnsup);
  EXPECT_EQ(replies[1].type, kRepErrUnsup);
  EXPECT_EQ(replies[2].type, kRepServer);
  EXPECT_EQ(LoadBe32(replies[2].payload.data()), 4u);
  EXPECT_EQ(AsString(replies[2].payload, 4), "diska test disk");
  EXPECT_EQ(replies[3].type, kRepAck);
}

TEST_F(HandshakeTest, ByteAtATimeFeedingGivesTheSameResult) {
  Bytes in = Concat({ClientFlags(), Option(kOptStructuredReply), Option(kOptGo, InfoData("", {}))});
  Bytes out;
  Handshake::Outcome outcome = Handshake::Outcome::kNeedMore;
  size_t pos = 0;
  size_t fed = 0;
  while (outcome == Handshake::Outcome::kNeedMore && fed < in.size()) {
    ++fed;  // the buffer grows by one byte per call, like a slow socket
    size_t consumed = 0;
    outcome = hs_.Feed(std::span(in).subspan(pos, fed - pos), consumed, out);
    pos += consumed;
  }
  EXPECT_EQ(outcome, Handshake::Outcome::kTransmission);
  EXPECT_EQ(pos, in.size());
  EXPECT_EQ(ParseReplies(out).size(), 4u);  // ack, export, block size, ack
}

TEST_F(HandshakeTest, BytesAfterGoAreLeftForTransmission) {
  Bytes in = Concat({ClientFlags(), Option(kOptGo, InfoData("", {}))});
  size_t handshake_size = in.size();
  in.resize(in.size() + 28, std::byte{0x25});
  Bytes out;
  EXPECT_EQ(FeedAll(in, out, handshake_size), Handshake::Outcome::kTransmission);
}

TEST_F(HandshakeTest, OversizedOptionClosesWithoutWaitingForItsData) {
  Bytes in = ClientFlags();
  PutBe64(in, kOptMagic);
  PutBe32(in, kOptGo);
  PutBe32(in, kMaxOptionLength + 1);
  Bytes out;
  EXPECT_EQ(FeedAll(in, out, 4), Handshake::Outcome::kClose);
  EXPECT_TRUE(out.empty());
}

TEST_F(HandshakeTest, BadOptionMagicCloses) {
  Bytes in = ClientFlags();
  PutBe64(in, 0x1234);
  PutBe32(in, kOptList);
  PutBe32(in, 0);
  Bytes out;
  EXPECT_EQ(FeedAll(in, out, 4), Handshake::Outcome::kClose);
  EXPECT_EQ(hs_.close_reason(), "bad option magic");
}

TEST_F(HandshakeTest, ExportNameSendsSizeFlagsAndZeroesUnlessNoZeroes) {
  Bytes in = Concat({ClientFlags(kClientFlagFixedNewstyle), Option(kOptExportName)});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kTransmission);
  ASSERT_EQ(out.size(), 8u + 2u + 124u);
  EXPECT_EQ(LoadBe64(out.data()), 1ull << 30);
  EXPECT_EQ(LoadBe16(out.data() + 8), hs_.negotiated().transmission_flags);
  EXPECT_EQ(out.back(), std::byte{0});

  Handshake other(info_);
  Bytes in2 =
      Concat({ClientFlags(), Option(kOptExportName, Bytes{std::byte{'d'}, std::byte{'i'},
                                                          std::byte{'s'}, std::byte{'k'}})});
  Bytes out2;
  size_t consumed = 0;
  ASSERT_EQ(other.Feed(in2, consumed, out2), Handshake::Outcome::kTransmission);
  EXPECT_EQ(out2.size(), 10u);
}

TEST_F(HandshakeTest, ExportNameForUnknownExportCloses) {
  Bytes in = Concat({ClientFlags(), Option(kOptExportName, Bytes(3, std::byte{'x'}))});
  Bytes out;
  EXPECT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kClose);
  EXPECT_TRUE(out.empty());
}

TEST_F(HandshakeTest, InfoRepliesThenGoStillPossible) {
  Bytes in = Concat({ClientFlags(), Option(kOptInfo, InfoData("", {kInfoDescription}))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 4u);  // export, block size, description, ack
  EXPECT_EQ(LoadBe16(replies[2].payload.data()), kInfoDescription);
  EXPECT_EQ(AsString(replies[2].payload, 2), "a test disk");
  EXPECT_EQ(replies[3].type, kRepAck);
  Bytes go = Option(kOptGo, InfoData("", {}));
  EXPECT_EQ(FeedAll(go, out, go.size()), Handshake::Outcome::kTransmission);
}

TEST_F(HandshakeTest, GoErrorsKeepNegotiating) {
  Bytes bad_count = InfoData("", {kInfoName});
  bad_count.push_back(std::byte{0});  // one byte too many for the info count
  Bytes name_past_end;
  PutBe32(name_past_end, 100);
  PutBe16(name_past_end, 0);
  Bytes in = Concat({ClientFlags(), Option(kOptGo, InfoData("nope", {})), Option(kOptGo, bad_count),
                     Option(kOptInfo, name_past_end)});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[0].type, kRepErrUnknown);
  EXPECT_EQ(replies[1].type, kRepErrInvalid);
  EXPECT_EQ(replies[2].type, kRepErrInvalid);
}

TEST_F(HandshakeTest, NameLongerThan4096Disconnects) {
  Bytes in = Concat({ClientFlags(), Option(kOptGo, InfoData(std::string(4097, 'a'), {}))});
  Bytes out;
  EXPECT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kClose);
  EXPECT_TRUE(out.empty());
}

TEST_F(HandshakeTest, MetaContextNeedsStructuredReplies) {
  Bytes in = Concat({ClientFlags(), Option(kOptSetMetaContext, MetaData("", {"base:allocation"})),
                     Option(kOptListMetaContext, MetaData("", {}))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].type, kRepErrInvalid);
  EXPECT_EQ(replies[1].type, kRepErrInvalid);
}

TEST_F(HandshakeTest, ListMetaContextWildcardsAndSetReplacesSelection) {
  Bytes in = Concat({ClientFlags(), Option(kOptStructuredReply),
                     Option(kOptListMetaContext, MetaData("", {})),
                     Option(kOptListMetaContext, MetaData("disk", {"base:"})),
                     Option(kOptSetMetaContext, MetaData("", {"base:allocation"})),
                     Option(kOptSetMetaContext, MetaData("", {"base:"}))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 8u);
  EXPECT_EQ(replies[1].type, kRepMetaContext);
  EXPECT_EQ(LoadBe32(replies[1].payload.data()), 0u);  // LIST ids are reserved as zero
  EXPECT_EQ(replies[3].type, kRepMetaContext);
  EXPECT_EQ(replies[5].type, kRepMetaContext);
  EXPECT_EQ(replies[7].type, kRepAck);  // "base:" selects nothing on SET
  EXPECT_FALSE(hs_.negotiated().base_allocation);
}

TEST_F(HandshakeTest, AbortAcksAndCloses) {
  Bytes in = Concat({ClientFlags(), Option(kOptAbort)});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kClose);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].type, kRepAck);
  EXPECT_TRUE(hs_.aborted());
}

TEST_F(HandshakeTest, OptionsWithUnexpectedDataAreInvalid) {
  Bytes in =
      Concat({ClientFlags(), Option(kOptList, Bytes(1)), Option(kOptStructuredReply, Bytes(2))});
  Bytes out;
  ASSERT_EQ(FeedAll(in, out, in.size()), Handshake::Outcome::kNeedMore);
  auto replies = ParseReplies(out);
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].type, kRepErrInvalid);
  EXPECT_EQ(replies[1].type, kRepErrInvalid);
  EXPECT_FALSE(hs_.negotiated().structured_replies);
}

TEST_F(HandshakeTest, TooManyOptionsClose) {
  Bytes in = ClientFlags();
  for (uint32_t i = 0; i <= kMaxOptions; ++i) in = Concat({in, Option(kOptList)});
  Bytes out;
  size_t consumed = 0;
  EXPECT_EQ(hs_.Feed(in, consumed, out), Handshake::Outcome::kClose);
  EXPECT_EQ(ParseReplies(out).size(), 2u * kMaxOptions);
}

TEST(OptionParserTest, MetaContextQueryCountBoundedByData) {
  Bytes data;
  PutBe32(data, 0);
  PutBe32(data, 0xffffffffu);  // absurd count, no queries
  auto p = ParseMetaContextRequest(data);
  EXPECT_EQ(p.verdict, OptionVerdict::kInvalid);
}

TEST(OptionParserTest, QueryLongerThan4096Disconnects) {
  auto p = ParseMetaContextRequest(MetaData("", {std::string(4097, 'q')}));
  EXPECT_EQ(p.verdict, OptionVerdict::kDisconnect);
}

TEST(OptionParserTest, InfoRequestParsesNameAndTypes) {
  Bytes data = InfoData("abc", {3, 1});  // the result views into it
  auto p = ParseInfoRequest(data);
  ASSERT_EQ(p.verdict, OptionVerdict::kOk);
  EXPECT_EQ(p.value.name, "abc");
  EXPECT_EQ(p.value.info_types, (std::vector<uint16_t>{3, 1}));
}

TEST(OptionParserTest, ExportNameWithNulDisconnects) {
  Bytes name{std::byte{'a'}, std::byte{0}};
  EXPECT_EQ(ParseExportName(name).verdict, OptionVerdict::kDisconnect);
}

}  // namespace
}  // namespace tiercache::nbd

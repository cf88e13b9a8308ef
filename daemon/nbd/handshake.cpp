#include "daemon/nbd/handshake.h"

#include "daemon/nbd/nbd_constants.h"
#include "daemon/nbd/option_parser.h"

namespace tiercache::nbd {

void AppendOptionReply(Bytes& out, uint32_t option, uint32_t type,
                       std::span<const std::byte> payload) {
  PutBe64(out, kOptReplyMagic);
  PutBe32(out, option);
  PutBe32(out, type);
  PutBe32(out, uint32_t(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
}

void AppendOptionError(Bytes& out, uint32_t option, uint32_t type, std::string_view message) {
  AppendOptionReply(out, option, type, std::as_bytes(std::span(message)));
}

const Handshake::OptionEntry Handshake::kOptionTable[] = {
    {kOptExportName, "NBD_OPT_EXPORT_NAME", &Handshake::OnExportName},
    {kOptAbort, "NBD_OPT_ABORT", &Handshake::OnAbort},
    {kOptList, "NBD_OPT_LIST", &Handshake::OnList},
    {kOptInfo, "NBD_OPT_INFO", &Handshake::OnInfoOrGo},
    {kOptGo, "NBD_OPT_GO", &Handshake::OnInfoOrGo},
    {kOptStructuredReply, "NBD_OPT_STRUCTURED_REPLY", &Handshake::OnStructuredReply},
    {kOptListMetaContext, "NBD_OPT_LIST_META_CONTEXT", &Handshake::OnMetaContext},
    {kOptSetMetaContext, "NBD_OPT_SET_META_CONTEXT", &Handshake::OnMetaContext},
};

void Handshake::Start(Bytes& out) {
  PutBe64(out, kNbdMagic);
  PutBe64(out, kOptMagic);
  PutBe16(out, kFlagFixedNewstyle | kFlagNoZeroes);
}

Handshake::Outcome Handshake::Feed(std::span<const std::byte> in, size_t& consumed, Bytes& out) {
  consumed = 0;
  for (;;) {
    std::span<const std::byte> rest = in.subspan(consumed);
    Action action;
    switch (state_) {
      case State::kClientFlags:
        action = FeedClientFlags(rest, consumed);
        break;
      case State::kOptions:
        action = FeedOption(rest, consumed, out);
        break;
      case State::kDone:
        return close_reason_.empty() ? Outcome::kTransmission : Outcome::kClose;
    }
    if (action == Action::kNeedMore) return Outcome::kNeedMore;
    if (action == Action::kTransmission) {
      state_ = State::kDone;
      return Outcome::kTransmission;
    }
    if (action == Action::kClose) {
      state_ = State::kDone;
      return Outcome::kClose;
    }
  }
}

Handshake::Action Handshake::FeedClientFlags(std::span<const std::byte> in, size_t& consumed) {
  if (in.size() < 4) return Action::kNeedMore;
  uint32_t flags = LoadBe32(in.data());
  consumed += 4;
  if (flags & ~(kClientFlagFixedNewstyle | kClientFlagNoZeroes)) {
    return Close("unknown client flags " + std::to_string(flags));
  }
  no_zeroes_ = flags & kClientFlagNoZeroes;
  state_ = State::kOptions;
  return Action::kContinue;
}

Handshake::Action Handshake::FeedOption(std::span<const std::byte> in, size_t& consumed,
                                        Bytes& out) {
  if (in.size() < kOptionHeaderSize) return Action::kNeedMore;
  if (LoadBe64(in.data()) != kOptMagic) return Close("bad option magic");
  uint32_t option = LoadBe32(in.data() + 8);
  uint32_t length = LoadBe32(in.data() + 12);
  if (length > kMaxOptionLength) {
    return Close("option " + std::to_string(option) + " data of " + std::to_string(length) +
                 " bytes exceeds the 64 KiB limit");
  }
  if (in.size() < kOptionHeaderSize + length) return Action::kNeedMore;
  if (++options_seen_ > kMaxOptions) return Close("too many options");
  consumed += kOptionHeaderSize + length;
  return DispatchOption(option, in.subspan(kOptionHeaderSize, length), out);
}

Handshake::Action Handshake::DispatchOption(uint32_t option, std::span<const std::byte> data,
                                            Bytes& out) {
  for (const OptionEntry& entry : kOptionTable) {
    if (entry.option == option) return (this->*entry.handler)(option, data, out);
  }
  AppendOptionError(out, option, kRepErrUnsup, "unsupported option " + std::to_string(option));
  return Action::kContinue;
}

const char* Handshake::OptionName(uint32_t option) {
  for (const OptionEntry& entry : kOptionTable) {
    if (entry.option == option) return entry.name;
  }
  return "unknown option";
}

Handshake::Action Handshake::Close(std::string reason) {
  close_reason_ = std::move(reason);
  return Action::kClose;
}

Handshake::Action Handshake::OnExportName(uint32_t, std::span<const std::byte> data, Bytes& out) {
  Parsed<std::string_view> name = ParseExportName(data);
  if (name.verdict != OptionVerdict::kOk) return Close(name.error);
  // This option cannot report errors: an unknown export ends the session.
  if (!info_.Matches(name.value)) return Close("unknown export requested");
  negotiated_.transmission_flags = info_.TransmissionFlags(negotiated_.structured_replies);
  PutBe64(out, info_.size());
  PutBe16(out, negotiated_.transmission_flags);
  if (!no_zeroes_) out.resize(out.size() + 124, std::byte{0});
  return Action::kTransmission;
}

Handshake::Action Handshake::OnAbort(uint32_t option, std::span<const std::byte>, Bytes& out) {
  AppendOptionReply(out, option, kRepAck);
  aborted_ = true;
  return Close("client aborted the handshake");
}

Handshake::Action Handshake::OnList(uint32_t option, std::span<const std::byte> data, Bytes& out) {
  if (!data.empty()) {
    AppendOptionError(out, option, kRepErrInvalid, "NBD_OPT_LIST takes no data");
    return Action::kContinue;
  }
  Bytes server;
  PutBe32(server, uint32_t(info_.name().size()));
  PutString(server, info_.name());
  PutString(server, info_.description());
  AppendOptionReply(out, option, kRepServer, server);
  AppendOptionReply(out, option, kRepAck);
  return Action::kContinue;
}

Handshake::Action Handshake::OnInfoOrGo(uint32_t option, std::span<const std::byte> data,
                                        Bytes& out) {
  Parsed<InfoRequest> req = ParseInfoRequest(data);
  if (req.verdict == OptionVerdict::kDisconnect) return Close(req.error);
  if (req.verdict == OptionVerdict::kInvalid) {
    AppendOptionError(out, option, kRepErrInvalid, req.error);
    return Action::kContinue;
  }
  if (!info_.Matches(req.value.name)) {
    AppendOptionError(out, option, kRepErrUnknown, "unknown export");
    return Action::kContinue;
  }
  uint16_t flags = info_.TransmissionFlags(negotiated_.structured_replies);
  SendInfoReplies(option, flags, req.value.info_types, out);
  AppendOptionReply(out, option, kRepAck);
  if (option != kOptGo) return Action::kContinue;
  negotiated_.transmission_flags = flags;
  return Action::kTransmission;
}

void Handshake::SendInfoReplies(uint32_t option, uint16_t flags,
                                std::span<const uint16_t> requested, Bytes& out) const {
  Bytes info;
  PutBe16(info, kInfoExport);
  PutBe64(info, info_.size());
  PutBe16(info, flags);
  AppendOptionReply(out, option, kRepInfo, info);
  // Always sent, even unrequested: the minimum block size is enforced.
  info.clear();
  PutBe16(info, kInfoBlockSize);
  PutBe32(info, info_.min_block());
  PutBe32(info, info_.preferred_block());
  PutBe32(info, info_.max_block());
  AppendOptionReply(out, option, kRepInfo, info);
  for (uint16_t type : requested) {
    std::string_view text;
    if (type == kInfoName) {
      text = info_.name();
    } else if (type == kInfoDescription && !info_.description().empty()) {
      text = info_.description();
    } else {
      continue;  // unknown, already sent, or nothing to say
    }
    info.clear();
    PutBe16(info, type);
    PutString(info, text);
    AppendOptionReply(out, option, kRepInfo, info);
  }
}

Handshake::Action Handshake::OnStructuredReply(uint32_t option, std::span<const std::byte> data,
                                               Bytes& out) {
  if (!data.empty()) {
    AppendOptionError(out, option, kRepErrInvalid, "NBD_OPT_STRUCTURED_REPLY takes no data");
    return Action::kContinue;
  }
  negotiated_.structured_replies = true;
  AppendOptionReply(out, option, kRepAck);
  return Action::kContinue;
}

Handshake::Action Handshake::OnMetaContext(uint32_t option, std::span<const std::byte> data,
                                           Bytes& out) {
  const bool list = option == kOptListMetaContext;
  // SET replaces the selection, even when it fails.
  if (!list) negotiated_.base_allocation = false;
  if (!negotiated_.structured_replies) {
    AppendOptionError(out, option, kRepErrInvalid, "structured replies not negotiated");
    return Action::kContinue;
  }
  Parsed<MetaContextRequest> req = ParseMetaContextRequest(data);
  if (req.verdict == OptionVerdict::kDisconnect) return Close(req.error);
  if (req.verdict == OptionVerdict::kInvalid) {
    AppendOptionError(out, option, kRepErrInvalid, req.error);
    return Action::kContinue;
  }
  if (!info_.Matches(req.value.name)) {
    AppendOptionError(out, option, kRepErrUnknown, "unknown export");
    return Action::kContinue;
  }
  // LIST with no queries lists everything; "base:" is a wildcard for LIST only.
  bool found = list && req.value.queries.empty();
  for (std::string_view q : req.value.queries) {
    if (q == kBaseAllocation || (list && q == "base:")) found = true;
  }
  if (found) {
    Bytes ctx;
    PutBe32(ctx, list ? 0 : kBaseAllocationId);
    PutString(ctx, kBaseAllocation);
    AppendOptionReply(out, option, kRepMetaContext, ctx);
  }
  if (!list) negotiated_.base_allocation = found;
  AppendOptionReply(out, option, kRepAck);
  return Action::kContinue;
}

}  // namespace tiercache::nbd

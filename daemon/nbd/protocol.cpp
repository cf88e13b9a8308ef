#include "daemon/nbd/protocol.h"

#include "daemon/nbd/wire.h"

namespace tiercache::nbd {
namespace {

// How a command's offset and length are checked.
enum class RangeRule {
  kNone,   // ignored (DISC)
  kZero,   // must both be zero (FLUSH)
  kRead,   // inside the export, else EINVAL
  kWrite,  // inside the export, else ENOSPC
};

struct CommandSpec {
  uint16_t type;
  Op op;
  const char* name;
  uint16_t allowed_flags;  // besides FUA, which every command accepts once negotiated
  RangeRule range;
  bool max_block_limited;  // length may not exceed the advertised maximum block size
};

constexpr CommandSpec kCommands[] = {
    {kCmdRead, Op::kRead, "NBD_CMD_READ", kCmdFlagDf, RangeRule::kRead, true},
    {kCmdWrite, Op::kWrite, "NBD_CMD_WRITE", 0, RangeRule::kWrite, true},
    {kCmdDisc, Op::kDisc, "NBD_CMD_DISC", 0, RangeRule::kNone, false},
    {kCmdFlush, Op::kFlush, "NBD_CMD_FLUSH", 0, RangeRule::kZero, false},
    {kCmdTrim, Op::kTrim, "NBD_CMD_TRIM", 0, RangeRule::kRead, false},
    {kCmdCache, Op::kCache, "NBD_CMD_CACHE", 0, RangeRule::kRead, true},
    {kCmdWriteZeroes, Op::kWriteZeroes, "NBD_CMD_WRITE_ZEROES", kCmdFlagNoHole | kCmdFlagFastZero,
     RangeRule::kWrite, false},
    {kCmdBlockStatus, Op::kBlockStatus, "NBD_CMD_BLOCK_STATUS", kCmdFlagReqOne, RangeRule::kRead,
     false},
};

const CommandSpec* FindCommand(uint16_t type) {
  for (const CommandSpec& spec : kCommands) {
    if (spec.type == type) return &spec;
  }
  return nullptr;
}

Status CheckFlags(const CommandSpec& spec, uint16_t flags, const Negotiated& negotiated) {
  uint16_t allowed = spec.allowed_flags;
  if (negotiated.transmission_flags & kFlagSendFua) allowed |= kCmdFlagFua;
  if (flags & ~allowed) {
    return Status::InvalidArgument(std::string(spec.name) + ": unsupported flags " +
                                   std::to_string(flags & ~allowed));
  }
  if ((flags & kCmdFlagDf) && !negotiated.structured_replies) {
    return Status::InvalidArgument("DF flag without structured replies");
  }
  if (spec.op == Op::kBlockStatus &&
      !(negotiated.structured_replies && negotiated.base_allocation)) {
    return Status::InvalidArgument("block status without base:allocation negotiated");
  }
  return Status::Ok();
}

Status CheckRange(const CommandSpec& spec, const RequestHeader& h, const ExportInfo& info) {
  if (spec.range == RangeRule::kNone) return Status::Ok();
  if (spec.range == RangeRule::kZero) {
    if (h.offset != 0 || h.length != 0) {
      return Status::InvalidArgument(std::string(spec.name) + ": offset and length must be 0");
    }
    return Status::Ok();
  }
  if (h.length == 0) return Status::InvalidArgument(std::string(spec.name) + ": zero length");
  if (spec.max_block_limited && h.length > info.max_block()) {
    return Status::InvalidArgument(std::string(spec.name) + ": length " + std::to_string(h.length) +
                                   " above the maximum block size");
  }
  if (h.offset % info.min_block() != 0 || h.length % info.min_block() != 0) {
    return Status::InvalidArgument(std::string(spec.name) + ": not aligned to " +
                                   std::to_string(info.min_block()) + " bytes");
  }
  // Overflow-safe form of offset + length > size.
  if (h.offset > info.size() || h.length > info.size() - h.offset) {
    std::string msg = std::string(spec.name) + ": range past the end of the export";
    return spec.range == RangeRule::kWrite ? Status::NoSpace(msg) : Status::InvalidArgument(msg);
  }
  return Status::Ok();
}

Command ToCommand(const CommandSpec& spec, const RequestHeader& h) {
  Command c;
  c.op = spec.op;
  c.cookie = h.cookie;
  c.offset = h.offset;
  c.length = h.length;
  c.write_flags.fua = (h.flags & kCmdFlagFua) != 0;
  c.fast_zero = (h.flags & kCmdFlagFastZero) != 0;
  c.req_one = (h.flags & kCmdFlagReqOne) != 0;
  c.dont_fragment = (h.flags & kCmdFlagDf) != 0;
  c.wire_flags = h.flags;
  return c;
}

}  // namespace

RequestHeader ParseRequestHeader(std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  RequestHeader h;
  h.magic = LoadBe32(p);
  h.flags = LoadBe16(p + 4);
  h.type = LoadBe16(p + 6);
  h.cookie = LoadBe64(p + 8);
  h.offset = LoadBe64(p + 16);
  h.length = LoadBe32(p + 24);
  return h;
}

CheckedRequest CheckRequest(const RequestHeader& header, const ExportInfo& info,
                            const Negotiated& negotiated) {
  CheckedRequest r;
  if (header.magic != kRequestMagic) {
    r.disconnect = true;
    r.reason = "bad request magic " + std::to_string(header.magic);
    return r;
  }
  if (header.type == kCmdWrite) {
    // Never buffer a payload we would refuse anyway; past 32 MiB it is not even skipped.
    if (header.length > ExportInfo::kMaxBlock) {
      r.disconnect = true;
      r.reason = "write payload of " + std::to_string(header.length) + " bytes over 32 MiB";
      return r;
    }
    r.payload = header.length;
  }
  const CommandSpec* spec = FindCommand(header.type);
  if (spec == nullptr) {
    r.status = Status::InvalidArgument("unknown command " + std::to_string(header.type));
    r.command.cookie = header.cookie;
    r.command.wire_flags = header.flags;
    return r;
  }
  r.command = ToCommand(*spec, header);
  if (spec->op == Op::kDisc) return r;
  r.status = CheckFlags(*spec, header.flags, negotiated);
  if (r.status.ok()) r.status = CheckRange(*spec, header, info);
  return r;
}

uint32_t NbdError(const Status& status, uint16_t wire_flags) {
  switch (status.code()) {
    case Status::Code::kOk:
      return 0;
    case Status::Code::kInvalidArgument:
      return kEinval;
    case Status::Code::kNoSpace:
      return kEnospc;
    case Status::Code::kNotSupported:
      return (wire_flags & kCmdFlagFastZero) ? kEnotsup : kEinval;
    case Status::Code::kIoError:
    case Status::Code::kCorruption:
    case Status::Code::kNotFound:
    case Status::Code::kBusy:
      return kEio;
  }
  return kEio;
}

const char* CommandName(uint16_t type) {
  const CommandSpec* spec = FindCommand(type);
  return spec ? spec->name : "unknown command";
}

}  // namespace tiercache::nbd

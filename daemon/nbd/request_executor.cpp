#include "daemon/nbd/request_executor.h"

#include <algorithm>
#include <cassert>

#include "cachelib/common/slot_pool.h"
#include "daemon/nbd/reply.h"

namespace tiercache::nbd {

// One request on its way through the device. Device callbacks must be copyable, so they hold
// a raw pointer to it and adopt it back when they run (the Device calls each exactly once).
struct RequestExecutor::Pending {
  Command cmd;
  bool structured = false;
  IoBuffer buf;  // WRITE payload, or READ reply (header room + data)
  ReplyFn done;
  uint64_t submitted = 0;  // range commands: bytes already handed to the Device
};

void RequestExecutor::PendingDelete::operator()(Pending* p) const {
  p->~Pending();
  SlotPool::Release(p, sizeof(Pending));
}

namespace {

IoBuffer StatusReply(const Command& cmd, bool structured, const Status& s) {
  if (s.ok()) return SimpleReply(cmd.cookie, 0);
  return ErrorReply(structured, cmd.cookie, NbdError(s, cmd.wire_flags), s.ToString());
}

}  // namespace

// Indexed by Op.
const RequestExecutor::Handler RequestExecutor::kHandlers[] = {
    &RequestExecutor::Read,         // kRead
    &RequestExecutor::Write,        // kWrite
    &RequestExecutor::Unexpected,   // kDisc: handled by the connection
    &RequestExecutor::Flush,        // kFlush
    &RequestExecutor::Trim,         // kTrim
    &RequestExecutor::Cache,        // kCache
    &RequestExecutor::WriteZeroes,  // kWriteZeroes
    &RequestExecutor::BlockStatus,  // kBlockStatus
};

RequestExecutor::RequestExecutor(Device& device, const Negotiated& negotiated,
                                 uint64_t range_chunk_bytes)
    : device_(device),
      structured_(negotiated.structured_replies),
      chunk_bytes_(std::max<uint64_t>(
          device.block_size(), range_chunk_bytes - range_chunk_bytes % device.block_size())) {}

void RequestExecutor::Execute(const Command& cmd, IoBuffer payload, ReplyFn done) {
  PendingPtr p(new (SlotPool::Allocate(sizeof(Pending))) Pending());
  p->cmd = cmd;
  p->structured = structured_;
  p->buf = std::move(payload);
  p->done = std::move(done);
  (this->*kHandlers[static_cast<size_t>(cmd.op)])(std::move(p));
}

IoBuffer RequestExecutor::ErrorFor(const Command& cmd, const Status& status) const {
  return StatusReply(cmd, structured_, status);
}

IoCallback RequestExecutor::ReplyWithStatus(PendingPtr p) {
  return [raw = p.release()](Status s) {
    PendingPtr owned(raw);
    owned->done(StatusReply(owned->cmd, owned->structured, s));
  };
}

void RequestExecutor::Read(PendingPtr p) {
  const size_t header = ReadReplyHeaderSize(structured_);
  p->buf = IoBuffer::AllocateAligned(header, p->cmd.length);
  std::span<std::byte> data = p->buf.span().subspan(header);
  uint64_t offset = p->cmd.offset;
  device_.read(offset, data, [raw = p.release()](Status s) {
    PendingPtr owned(raw);
    const Command& c = owned->cmd;
    if (!s.ok()) return owned->done(StatusReply(c, owned->structured, s));
    EncodeReadReplyHeader(owned->buf.data(), owned->structured, c.cookie, c.offset, c.length);
    owned->done(std::move(owned->buf));
  });
}

void RequestExecutor::Write(PendingPtr p) {
  std::span<const std::byte> data = p->buf.span();
  uint64_t offset = p->cmd.offset;
  WriteFlags flags = p->cmd.write_flags;
  device_.write(offset, data, flags, ReplyWithStatus(std::move(p)));
}

void RequestExecutor::Flush(PendingPtr p) {
  device_.flush(ReplyWithStatus(std::move(p)));
}

void RequestExecutor::Trim(PendingPtr p) { NextChunk(std::move(p)); }

void RequestExecutor::Cache(PendingPtr p) { NextChunk(std::move(p)); }

void RequestExecutor::WriteZeroes(PendingPtr p) {
  if (p->cmd.fast_zero) {
    // We cannot promise zeroing is faster than writing: fail fast, touch nothing.
    p->done(StatusReply(p->cmd, structured_, Status::NotSupported("fast zero not supported")));
    return;
  }
  NextChunk(std::move(p));
}

void RequestExecutor::NextChunk(PendingPtr p) {
  const Command& c = p->cmd;
  if (p->submitted == c.length) return FinishRange(std::move(p));
  const uint64_t offset = c.offset + p->submitted;
  const uint64_t length = std::min<uint64_t>(chunk_bytes_, c.length - p->submitted);
  const Op op = c.op;
  p->submitted += length;
  IoCallback next = [this, raw = p.release()](Status s) {
    PendingPtr owned(raw);
    if (!s.ok()) return owned->done(StatusReply(owned->cmd, owned->structured, s));
    NextChunk(std::move(owned));
  };
  if (op == Op::kTrim) return device_.discard(offset, length, std::move(next));
  // FUA is one flush after the last chunk (FinishRange), not one per chunk.
  if (op == Op::kWriteZeroes) return device_.write_zeroes(offset, length, {}, std::move(next));
  device_.prefetch(offset, length, std::move(next));
}

void RequestExecutor::FinishRange(PendingPtr p) {
  // FUA on a range: one flush once every chunk completed (Device::discard has no FUA at all).
  if (p->cmd.write_flags.fua && p->cmd.op != Op::kCache) {
    device_.flush(ReplyWithStatus(std::move(p)));
    return;
  }
  p->done(StatusReply(p->cmd, structured_, Status::Ok()));
}

void RequestExecutor::BlockStatus(PendingPtr p) {
  // base:allocation: the whole requested range is allocated data (flags 0), one extent.
  p->done(BlockStatusReply(p->cmd.cookie, kBaseAllocationId, p->cmd.length, 0));
}

void RequestExecutor::Unexpected(PendingPtr p) {
  assert(false && "NBD_CMD_DISC is not executed");
  p->done(StatusReply(p->cmd, structured_, Status::InvalidArgument("not executable")));
}

}  // namespace tiercache::nbd

#include "daemon/ublk/ublk_request_executor.h"

#include <cerrno>
#include <span>
#include <utility>

#include "cachelib/common/event_loop.h"
#include "cachelib/common/pooled_once.h"

namespace tiercache {

namespace {

// Both closures hold `done` (a std::function, 32 bytes): too big for std::function's inline
// storage, so each is pooled rather than costing a heap allocation per request.
IoCallback Reply(UblkRequestExecutor::Done done, uint64_t bytes) {
  return PooledOnce([done = std::move(done), bytes](Status s) {
    done(UblkRequestExecutor::ResultFor(s, bytes));
  });
}

void FailLater(UblkRequestExecutor::Done done, int32_t error) {
  EventLoop::current()->post(PooledOnce([done = std::move(done), error] { done(error); }));
}

}  // namespace

int32_t UblkRequestExecutor::ResultFor(const Status& status, uint64_t bytes) {
  if (!status.ok()) return -status.to_errno();
  return int32_t(bytes);
}

void UblkRequestExecutor::execute(const ublksrv_io_desc& iod, std::byte* buf, Done done) {
  const uint8_t op = ublksrv_get_op(&iod);
  const uint64_t offset = iod.start_sector << ublk::kSectorShift;
  const uint64_t length = uint64_t(iod.nr_sectors) << ublk::kSectorShift;
  const WriteFlags flags{.fua = (iod.op_flags & UBLK_IO_F_FUA) != 0};

  if ((op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE) && length > buffer_bytes_) {
    return FailLater(std::move(done), -EINVAL);
  }
  switch (op) {
    case UBLK_IO_OP_READ:
      device_.read(offset, std::span<std::byte>(buf, length), Reply(std::move(done), length));
      return;
    case UBLK_IO_OP_WRITE:
      device_.write(offset, std::span<const std::byte>(buf, length), flags,
                    Reply(std::move(done), length));
      return;
    case UBLK_IO_OP_FLUSH:
      device_.flush(Reply(std::move(done), 0));
      return;
    case UBLK_IO_OP_DISCARD:
      device_.discard(offset, length, Reply(std::move(done), 0));
      return;
    case UBLK_IO_OP_WRITE_ZEROES:
      device_.write_zeroes(offset, length, flags, Reply(std::move(done), 0));
      return;
    default:
      return FailLater(std::move(done), -EOPNOTSUPP);
  }
}

}  // namespace tiercache

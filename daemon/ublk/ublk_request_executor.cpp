#include "daemon/ublk/ublk_request_executor.h"

#include <cerrno>
#include <span>
#include <utility>

#include "cachelib/common/event_loop.h"

namespace tiercache {

int32_t UblkRequestExecutor::ResultFor(const Status& status, uint64_t bytes) {
  if (!status.ok()) return -status.to_errno();
  return int32_t(bytes);
}

void UblkRequestExecutor::execute(const ublksrv_io_desc& iod, std::byte* buf, Done done) {
  const uint8_t op = ublksrv_get_op(&iod);
  const uint64_t offset = iod.start_sector << ublk::kSectorShift;
  const uint64_t length = uint64_t(iod.nr_sectors) << ublk::kSectorShift;
  const WriteFlags flags{.fua = (iod.op_flags & UBLK_IO_F_FUA) != 0};
  auto reply_bytes = [done, length](Status s) { done(ResultFor(s, length)); };
  auto reply_zero = [done](Status s) { done(ResultFor(s, 0)); };

  if ((op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE) && length > buffer_bytes_) {
    EventLoop::current()->post([done] { done(-EINVAL); });
    return;
  }
  switch (op) {
    case UBLK_IO_OP_READ:
      device_.read(offset, std::span<std::byte>(buf, length), std::move(reply_bytes));
      return;
    case UBLK_IO_OP_WRITE:
      device_.write(offset, std::span<const std::byte>(buf, length), flags, std::move(reply_bytes));
      return;
    case UBLK_IO_OP_FLUSH:
      device_.flush(std::move(reply_zero));
      return;
    case UBLK_IO_OP_DISCARD:
      device_.discard(offset, length, std::move(reply_zero));
      return;
    case UBLK_IO_OP_WRITE_ZEROES:
      device_.write_zeroes(offset, length, flags, std::move(reply_zero));
      return;
    default:
      EventLoop::current()->post([done] { done(-EOPNOTSUPP); });
      return;
  }
}

}  // namespace tiercache

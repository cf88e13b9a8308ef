#include "daemon/ublk/ublk_commands.h"

#include <cstddef>
#include <cstring>

#include "daemon/ublk/ublk_loop_ring_commands.h"
#include "daemon/ublk/ublk_own_ring.h"

namespace tiercache {

static_assert(sizeof(io_uring_sqe) == 64 &&
                  offsetof(io_uring_sqe, cmd) + sizeof(ublksrv_io_cmd) <= sizeof(io_uring_sqe),
              "a ublk I/O command fits a 64-byte entry: no IORING_SETUP_SQE128 needed");

void PrepareUblkCommand(io_uring_sqe* sqe, int fd, const UblkCommand& cmd) {
  std::memset(static_cast<void*>(sqe), 0, sizeof *sqe);
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = fd;
  sqe->cmd_op = cmd.op;
  auto* io = reinterpret_cast<ublksrv_io_cmd*>(sqe->cmd);
  io->q_id = cmd.queue_id;
  io->tag = cmd.tag;
  io->result = cmd.result;
  io->addr = cmd.addr;
}

std::string UblkQueueName(uint16_t queue_id) {
  return "ublk queue " + std::to_string(queue_id);
}

Result<std::unique_ptr<UblkCommands>> UblkCommands::Create(EventLoop& loop, const Config& config,
                                                           Handler& handler) {
  if (!config.own_ring) {
    auto shared = UblkLoopRingCommands::Create(loop, config, handler);
    if (shared.ok()) return std::unique_ptr<UblkCommands>(std::move(shared).value());
  }
  auto own = UblkOwnRing::Create(loop, config, handler);
  if (!own.ok()) return own.status();
  return std::unique_ptr<UblkCommands>(std::move(own).value());
}

}  // namespace tiercache

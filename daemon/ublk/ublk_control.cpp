#include "daemon/ublk/ublk_control.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace tiercache {

Result<std::unique_ptr<UblkControl>> UblkControl::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) {
      return Status::NotFound(path + " does not exist: the kernel has no ublk driver loaded " +
                              "(modprobe ublk_drv; Linux 6.0+ with CONFIG_BLK_DEV_UBLK)");
    }
    return Status::FromErrno(err, "open " + path);
  }
  std::unique_ptr<UblkControl> control(new UblkControl(fd, path));
  int r = io_uring_queue_init(4, &control->ring_, IORING_SETUP_SQE128);
  if (r < 0) {
    control->ring_.ring_fd = -1;
    return Status::NotSupported(std::string("ublk: io_uring with 128-byte SQEs unavailable: ") +
                                std::strerror(-r));
  }
  return control;
}

UblkControl::~UblkControl() {
  if (ring_.ring_fd >= 0) io_uring_queue_exit(&ring_);
  close(fd_);
}

int UblkControl::command(uint32_t op, uint32_t dev_id, void* buf, uint16_t len, uint64_t data0) {
  std::lock_guard lock(mu_);
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (sqe == nullptr) return -EBUSY;
  std::memset(static_cast<void*>(sqe), 0, 2 * sizeof(io_uring_sqe));  // a 128-byte SQE
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->fd = fd_;
  sqe->cmd_op = op;
  auto* cmd = reinterpret_cast<ublksrv_ctrl_cmd*>(sqe->cmd);
  cmd->dev_id = dev_id;
  cmd->queue_id = uint16_t(-1);
  cmd->len = len;
  cmd->addr = reinterpret_cast<uintptr_t>(buf);
  cmd->data[0] = data0;
  int r = io_uring_submit(&ring_);
  if (r < 0) return r;
  io_uring_cqe* cqe = nullptr;
  do {
    r = io_uring_wait_cqe(&ring_, &cqe);
  } while (r == -EINTR);
  if (r < 0) return r;
  int res = cqe->res;
  io_uring_cqe_seen(&ring_, cqe);
  return res;
}

Status UblkControl::check(int res, const char* what, uint32_t dev_id) const {
  if (res >= 0) return Status::Ok();
  std::string context = std::string("ublk ") + what;
  if (dev_id != uint32_t(-1)) context += " (device " + std::to_string(dev_id) + ")";
  return Status::FromErrno(-res, context);
}

Result<uint64_t> UblkControl::get_features() {
  uint64_t features = 0;
  int res = command(ublk::kCmdGetFeatures, 0, &features, ublk::kFeaturesLen, 0);
  if (res < 0) {
    return Status::NotSupported(
        "ublk GET_FEATURES failed on " + path_ + " (" + std::strerror(-res) +
        "): the kernel's ublk driver predates Linux 6.5, or this is not a ublk control node");
  }
  // Every driver that answers GET_FEATURES offers at least UBLK_F_CMD_IOCTL_ENCODE.
  if (features == 0) {
    return Status::NotSupported("ublk GET_FEATURES on " + path_ +
                                " reported no features: this is not a ublk control node");
  }
  return features;
}

Status UblkControl::add_dev(ublksrv_ctrl_dev_info& info) {
  const uint32_t wanted_id = info.dev_id;
  int res = command(ublk::kCmdAddDev, wanted_id, &info, sizeof info, 0);
  if (res == -EEXIST) {
    return Status::Busy("ublk ADD_DEV: device " + std::to_string(wanted_id) + " already exists");
  }
  return check(res, "ADD_DEV", wanted_id);
}

Result<ublksrv_ctrl_dev_info> UblkControl::get_dev_info(uint32_t dev_id) {
  ublksrv_ctrl_dev_info info{};
  Status s =
      check(command(ublk::kCmdGetDevInfo, dev_id, &info, sizeof info, 0), "GET_DEV_INFO", dev_id);
  if (!s.ok()) return s;
  return info;
}

Status UblkControl::set_params(uint32_t dev_id, const ublk_params& params) {
  ublk_params copy = params;
  copy.len = sizeof copy;
  return check(command(ublk::kCmdSetParams, dev_id, &copy, sizeof copy, 0), "SET_PARAMS", dev_id);
}

Result<ublk_params> UblkControl::get_params(uint32_t dev_id) {
  ublk_params params{};
  params.len = sizeof params;
  Status s =
      check(command(ublk::kCmdGetParams, dev_id, &params, sizeof params, 0), "GET_PARAMS", dev_id);
  if (!s.ok()) return s;
  return params;
}

Status UblkControl::start_dev(uint32_t dev_id, pid_t server_pid) {
  return check(command(ublk::kCmdStartDev, dev_id, nullptr, 0, uint64_t(server_pid)), "START_DEV",
               dev_id);
}

Status UblkControl::stop_dev(uint32_t dev_id) {
  return check(command(ublk::kCmdStopDev, dev_id, nullptr, 0, 0), "STOP_DEV", dev_id);
}

Status UblkControl::del_dev(uint32_t dev_id) {
  return check(command(ublk::kCmdDelDev, dev_id, nullptr, 0, 0), "DEL_DEV", dev_id);
}

Status UblkControl::start_user_recovery(uint32_t dev_id) {
  return check(command(ublk::kCmdStartUserRecovery, dev_id, nullptr, 0, 0), "START_USER_RECOVERY",
               dev_id);
}

Status UblkControl::end_user_recovery(uint32_t dev_id, pid_t server_pid) {
  return check(command(ublk::kCmdEndUserRecovery, dev_id, nullptr, 0, uint64_t(server_pid)),
               "END_USER_RECOVERY", dev_id);
}

}  // namespace tiercache

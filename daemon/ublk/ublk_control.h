// UblkControl: the ublk control commands (ADD_DEV, SET_PARAMS, START_DEV, ...) sent as io_uring
// URING_CMDs to /dev/ublk-control, each waited for synchronously (START_DEV and
// END_USER_RECOVERY block until every queue has fetched its requests, so call them from a
// thread that does not serve a queue). Owns the control fd and a small ring.
// Thread-safe: commands are serialized by a mutex.
#pragma once

#include <liburing.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "cachelib/common/status.h"
#include "daemon/ublk/ublk_abi.h"

namespace tiercache {

class UblkControl {
 public:
  // Opens the control node. NotFound when it does not exist (ublk_drv not loaded),
  // NotSupported when io_uring is unavailable.
  static Result<std::unique_ptr<UblkControl>> Open(const std::string& path);
  ~UblkControl();
  UblkControl(const UblkControl&) = delete;
  UblkControl& operator=(const UblkControl&) = delete;

  // The UBLK_F_* flags the driver supports. NotSupported when the driver does not answer
  // (Linux < 6.5, or `path` is not a ublk control node).
  Result<uint64_t> get_features();
  // Creates the device. `info` is in/out: the kernel fills in dev_id, the granted flags and
  // the possibly reduced queue count and buffer size.
  Status add_dev(ublksrv_ctrl_dev_info& info);
  Result<ublksrv_ctrl_dev_info> get_dev_info(uint32_t dev_id);
  Status set_params(uint32_t dev_id, const ublk_params& params);
  Result<ublk_params> get_params(uint32_t dev_id);
  // Blocks until every queue has issued FETCH_REQ for every tag, then adds /dev/ublkbN.
  Status start_dev(uint32_t dev_id, pid_t server_pid);
  // Removes /dev/ublkbN after the requests in flight complete.
  Status stop_dev(uint32_t dev_id);
  // Frees the device number; waits until /dev/ublkcN is closed by everyone.
  Status del_dev(uint32_t dev_id);
  // Busy while the old server's /dev/ublkcN is still open or the device is not quiesced yet.
  Status start_user_recovery(uint32_t dev_id);
  // Blocks like start_dev, then resumes the queued requests on the new server.
  Status end_user_recovery(uint32_t dev_id, pid_t server_pid);

 private:
  UblkControl(int fd, const std::string& path) : fd_(fd), path_(path) {}
  // Sends one command and returns the completion's result (>= 0, or a negative errno).
  int command(uint32_t op, uint32_t dev_id, void* buf, uint16_t len, uint64_t data0);
  Status check(int res, const char* what, uint32_t dev_id) const;

  const int fd_;
  const std::string path_;
  std::mutex mu_;
  io_uring ring_{};  // GUARDED_BY(mu_)
};

}  // namespace tiercache

// The ublk kernel ABI as this server uses it: <linux/ublk_cmd.h> plus the parts newer than the
// header Debian 12 ships (Linux 6.1): ioctl-encoded command opcodes, GET_FEATURES and the later
// feature bits. Values are the kernel's uapi (include/uapi/linux/ublk_cmd.h, Linux 6.12).
// Constants and trivially copyable structs only.
#pragma once

#include <linux/ublk_cmd.h>
#include <sys/ioctl.h>

#include <cstdint>

namespace tiercache::ublk {

// Control commands (/dev/ublk-control), ioctl-encoded as the kernel requires when
// CONFIG_BLKDEV_UBLK_LEGACY_OPCODES is off.
inline constexpr uint32_t kCmdGetDevInfo = _IOR('u', UBLK_CMD_GET_DEV_INFO, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdAddDev = _IOWR('u', UBLK_CMD_ADD_DEV, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdDelDev = _IOWR('u', UBLK_CMD_DEL_DEV, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdStartDev = _IOWR('u', UBLK_CMD_START_DEV, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdStopDev = _IOWR('u', UBLK_CMD_STOP_DEV, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdSetParams = _IOWR('u', UBLK_CMD_SET_PARAMS, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdGetParams = _IOR('u', UBLK_CMD_GET_PARAMS, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdStartUserRecovery =
    _IOWR('u', UBLK_CMD_START_USER_RECOVERY, ublksrv_ctrl_cmd);
inline constexpr uint32_t kCmdEndUserRecovery =
    _IOWR('u', UBLK_CMD_END_USER_RECOVERY, ublksrv_ctrl_cmd);
// Linux 6.5+: answers a 64-bit mask of the UBLK_F_* flags the driver supports.
inline constexpr uint32_t kCmdGetFeatures = _IOR('u', 0x13, ublksrv_ctrl_cmd);
inline constexpr uint16_t kFeaturesLen = 8;

// I/O commands (/dev/ublkcN), ioctl-encoded.
inline constexpr uint32_t kIoFetchReq = _IOWR('u', UBLK_IO_FETCH_REQ, ublksrv_io_cmd);
inline constexpr uint32_t kIoCommitAndFetchReq =
    _IOWR('u', UBLK_IO_COMMIT_AND_FETCH_REQ, ublksrv_io_cmd);

// Feature flags (ublksrv_ctrl_dev_info::flags). The first five are in <linux/ublk_cmd.h>.
inline constexpr uint64_t kFeatureZeroCopy = UBLK_F_SUPPORT_ZERO_COPY;
inline constexpr uint64_t kFeatureCompInTask = UBLK_F_URING_CMD_COMP_IN_TASK;
inline constexpr uint64_t kFeatureNeedGetData = UBLK_F_NEED_GET_DATA;
inline constexpr uint64_t kFeatureUserRecovery = UBLK_F_USER_RECOVERY;
inline constexpr uint64_t kFeatureUserRecoveryReissue = UBLK_F_USER_RECOVERY_REISSUE;
inline constexpr uint64_t kFeatureUnprivileged = 1ull << 5;
inline constexpr uint64_t kFeatureCmdIoctlEncode = 1ull << 6;
inline constexpr uint64_t kFeatureUserCopy = 1ull << 7;
inline constexpr uint64_t kFeatureZoned = 1ull << 8;
inline constexpr uint64_t kFeatureUserRecoveryFailIo = 1ull << 9;

// Device states (ublksrv_ctrl_dev_info::state).
inline constexpr uint16_t kStateDead = UBLK_S_DEV_DEAD;
inline constexpr uint16_t kStateLive = UBLK_S_DEV_LIVE;
inline constexpr uint16_t kStateQuiesced = UBLK_S_DEV_QUIESCED;
inline constexpr uint16_t kStateFailIo = 3;

// The per-queue descriptor array is mmap()ed from /dev/ublkcN at this stride per queue.
inline constexpr uint64_t kMaxQueueDepth = UBLK_MAX_QUEUE_DEPTH;
inline constexpr uint64_t kSectorShift = 9;

static_assert(sizeof(ublksrv_ctrl_cmd) == 32, "fits the 80-byte command area of a 128-byte SQE");
static_assert(sizeof(ublksrv_io_cmd) == 16, "fits the 16-byte command area of a 64-byte SQE");
static_assert(sizeof(ublksrv_ctrl_dev_info) == 64);
static_assert(sizeof(ublksrv_io_desc) == 24);

}  // namespace tiercache::ublk

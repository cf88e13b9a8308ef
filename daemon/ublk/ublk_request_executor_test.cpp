#include "daemon/ublk/ublk_request_executor.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "cachelib/common/sim_event_loop.h"
#include "cachelib/device/device_wrapper.h"
#include "cachelib/device/error_device.h"
#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Pattern;

// Records the WriteFlags of the last write / write_zeroes before forwarding.
class FlagRecorder final : public DeviceWrapper {
 public:
  using DeviceWrapper::DeviceWrapper;
  std::optional<bool> last_fua;

 protected:
  void write_impl(uint64_t offset, std::span<const std::byte> buf, WriteFlags flags,
                  IoCallback cb) override {
    last_fua = flags.fua;
    DeviceWrapper::write_impl(offset, buf, flags, std::move(cb));
  }
  void write_zeroes_impl(uint64_t offset, uint64_t length, WriteFlags flags,
                         IoCallback cb) override {
    last_fua = flags.fua;
    DeviceWrapper::write_zeroes_impl(offset, length, flags, std::move(cb));
  }
};

constexpr uint64_t kDevSize = 1 << 20;
constexpr uint64_t kBufBytes = 64 * 1024;

ublksrv_io_desc Desc(uint8_t op, uint64_t offset, uint64_t length, uint32_t flags = 0) {
  ublksrv_io_desc d{};
  d.op_flags = op | flags;
  d.start_sector = offset >> 9;
  d.nr_sectors = uint32_t(length >> 9);
  return d;
}

class UblkRequestExecutorTest : public ::testing::Test {
 protected:
  // Runs one request; checks that the result is not delivered inline.
  int32_t Run(Device& dev, const ublksrv_io_desc& d) {
    UblkRequestExecutor executor(dev, kBufBytes);
    std::optional<int32_t> result;
    {
      EventLoop::ScopedCurrent scope(&loop_);
      executor.execute(d, buf_.data(), [&](int32_t r) { result = r; });
    }
    EXPECT_FALSE(result.has_value()) << "completed inline";
    loop_.run_until_idle();
    EXPECT_TRUE(result.has_value());
    return result.value_or(INT32_MIN);
  }

  SimEventLoop loop_;
  MemoryDevice mem_{"mem", kDevSize, 512};
  FlagRecorder dev_{mem_};
  std::vector<std::byte> buf_ = std::vector<std::byte>(kBufBytes);
};

TEST_F(UblkRequestExecutorTest, ReadReturnsByteCountAndData) {
  auto data = Pattern(1, 8192, 12288);
  mem_.write_now(8192, data);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_READ, 8192, 12288)), 12288);
  EXPECT_EQ(0, std::memcmp(buf_.data(), data.data(), data.size()));
}

TEST_F(UblkRequestExecutorTest, WriteReturnsByteCountAndStoresData) {
  auto data = Pattern(2, 4096, 8192);
  std::memcpy(buf_.data(), data.data(), data.size());
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE, 4096, 8192)), 8192);
  std::vector<std::byte> back(8192);
  mem_.read_now(4096, back);
  EXPECT_EQ(back, data);
  EXPECT_EQ(dev_.last_fua, false);
}

TEST_F(UblkRequestExecutorTest, FuaFlagReachesTheDevice) {
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE, 0, 4096, UBLK_IO_F_FUA)), 4096);
  EXPECT_EQ(dev_.last_fua, true);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE_ZEROES, 0, 4096, UBLK_IO_F_FUA)), 0);
  EXPECT_EQ(dev_.last_fua, true);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE_ZEROES, 0, 4096)), 0);
  EXPECT_EQ(dev_.last_fua, false);
}

TEST_F(UblkRequestExecutorTest, FlushDiscardWriteZeroesReturnZero) {
  mem_.write_now(0, Pattern(3, 0, 65536));
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_FLUSH, 0, 0)), 0);
  EXPECT_EQ(dev_.stats().flushes.load(), 1u);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_DISCARD, 0, 16384)), 0);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE_ZEROES, 32768, 8192)), 0);
  std::vector<std::byte> back(65536);
  mem_.read_now(0, back);
  auto expected = Pattern(3, 0, 65536);
  std::fill(expected.begin(), expected.begin() + 16384, std::byte{0});
  std::fill(expected.begin() + 32768, expected.begin() + 40960, std::byte{0});
  EXPECT_EQ(back, expected);
  EXPECT_EQ(dev_.stats().discards.load(), 1u);
  EXPECT_EQ(dev_.stats().write_zeroes.load(), 1u);
}

TEST_F(UblkRequestExecutorTest, UnknownOpIsNotSupported) {
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE_SAME, 0, 4096)), -EOPNOTSUPP);
  EXPECT_EQ(Run(dev_, Desc(0x7f, 0, 4096)), -EOPNOTSUPP);
  EXPECT_EQ(dev_.stats().writes.load(), 0u);
}

TEST_F(UblkRequestExecutorTest, RangeErrorsUseTheDeviceErrno) {
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_READ, kDevSize - 4096, 8192)), -EINVAL);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE, kDevSize - 4096, 8192)), -ENOSPC);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE_ZEROES, kDevSize, 4096)), -ENOSPC);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_DISCARD, kDevSize, 4096)), -EINVAL);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_READ, 0, 0)), -EINVAL);
}

TEST_F(UblkRequestExecutorTest, RequestLargerThanTheBufferIsRejected) {
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_READ, 0, kBufBytes + 4096)), -EINVAL);
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_WRITE, 0, kBufBytes + 4096)), -EINVAL);
  EXPECT_EQ(dev_.stats().reads.load() + dev_.stats().writes.load(), 0u);
  // Discard and write-zeroes carry no payload: no buffer limit.
  EXPECT_EQ(Run(dev_, Desc(UBLK_IO_OP_DISCARD, 0, kBufBytes * 4)), 0);
}

TEST_F(UblkRequestExecutorTest, DeviceErrorsBecomeEio) {
  ErrorDevice err(mem_);
  err.fail_range(0, 4096);
  EXPECT_EQ(Run(err, Desc(UBLK_IO_OP_READ, 0, 4096)), -EIO);
  EXPECT_EQ(Run(err, Desc(UBLK_IO_OP_WRITE, 0, 4096)), -EIO);
  EXPECT_EQ(Run(err, Desc(UBLK_IO_OP_READ, 4096, 4096)), 4096);
  err.fail_nth(1, ErrorDevice::kFlush);
  EXPECT_EQ(Run(err, Desc(UBLK_IO_OP_FLUSH, 0, 0)), -EIO);
}

TEST(UblkResultTest, ResultForMapsStatusToNegativeErrno) {
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::Ok(), 4096), 4096);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::Ok(), 0), 0);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::IoError("x"), 4096), -EIO);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::Corruption("x"), 4096), -EIO);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::NoSpace("x"), 4096), -ENOSPC);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::InvalidArgument("x"), 4096), -EINVAL);
  EXPECT_EQ(UblkRequestExecutor::ResultFor(Status::NotSupported("x"), 4096), -EOPNOTSUPP);
}

}  // namespace
}  // namespace tiercache

#include "cachelib/device/fault_injecting_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "cachelib/device/memory_device.h"
#include "tests/support/sync_io.h"

namespace tiercache {
namespace {

using testing::Pattern;
constexpr uint64_t kSize = 1 << 20;
constexpr uint64_t kBlock = 4096;

// Equal byte vectors, or the first differing offset (gtest would print every byte).
::testing::AssertionResult SameBytes(const std::vector<std::byte>& got,
                                     const std::vector<std::byte>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "sizes " << got.size() << " != " << want.size();
  }
  auto [a, b] = std::mismatch(got.begin(), got.end(), want.begin());
  if (a == got.end()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "first difference at byte " << (a - got.begin());
}

class FaultInjectingDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { mem_.write_now(0, Pattern(100, 0, kSize)); }  // the durable base

  Status Write(uint64_t off, uint64_t len, uint64_t seed, bool fua = false) {
    return testing::SyncWrite(loop_, dev_, off, Pattern(seed, off, len), WriteFlags{.fua = fua});
  }
  Status Flush() { return testing::SyncFlush(loop_, dev_); }
  Status PowerCut(std::optional<uint64_t> seed = std::nullopt) {
    std::optional<Status> result;
    {
      EventLoop::ScopedCurrent scope(&loop_);
      dev_.power_cut([&](Status s) { result = std::move(s); }, seed);
    }
    EXPECT_FALSE(result.has_value()) << "power_cut completed inline";
    loop_.run_until([&] { return result.has_value(); });
    return result.value_or(Status::IoError("power cut never completed"));
  }
  // What the target holds now.
  std::vector<std::byte> Target(uint64_t off, uint64_t len) {
    std::vector<std::byte> out(len);
    mem_.read_now(off, out);
    return out;
  }
  // Expected contents: the base with [off, off + len) taken from pattern `seed`.
  void Expect(std::vector<std::byte>& want, uint64_t off, uint64_t len, uint64_t seed) {
    auto p = Pattern(seed, off, len);
    std::copy(p.begin(), p.end(), want.begin() + off);
  }

  SimEventLoop loop_;
  MemoryDevice mem_{"mem", kSize, 4096};
  FaultInjectingDevice dev_{mem_, "fi"};
};

TEST_F(FaultInjectingDeviceTest, UnflushedWritesAreRevertedAndRequestsFailUntilReset) {
  ASSERT_TRUE(Write(0, 2 * kBlock, 1).ok());
  ASSERT_TRUE(testing::SyncWriteZeroes(loop_, dev_, 8 * kBlock, kBlock).ok());
  EXPECT_TRUE(
      SameBytes(Target(0, 2 * kBlock), Pattern(1, 0, 2 * kBlock)));  // written through at once
  EXPECT_EQ(dev_.unflushed_writes(), 2u);
  ASSERT_TRUE(PowerCut().ok());
  EXPECT_TRUE(SameBytes(Target(0, kSize), Pattern(100, 0, kSize)));
  EXPECT_EQ(dev_.reverted_writes(), 2u);
  EXPECT_FALSE(dev_.powered());
  std::vector<std::byte> buf(kBlock);
  Status s = testing::SyncRead(loop_, dev_, 0, buf);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "fi: read after power cut");
  EXPECT_EQ(Write(0, kBlock, 2).message(), "fi: write after power cut");
  EXPECT_EQ(Flush().message(), "fi: flush after power cut");
  EXPECT_TRUE(SameBytes(Target(0, kBlock), Pattern(100, 0, kBlock)));
  dev_.reset();
  EXPECT_TRUE(dev_.powered());
  ASSERT_TRUE(testing::SyncRead(loop_, dev_, 0, buf).ok());
  EXPECT_EQ(buf, Pattern(100, 0, kBlock));
}

TEST_F(FaultInjectingDeviceTest, FlushedWritesSurvive) {
  ASSERT_TRUE(Write(0, 4 * kBlock, 1).ok());
  ASSERT_TRUE(Flush().ok());
  ASSERT_TRUE(Write(2 * kBlock, 4 * kBlock, 2).ok());  // overlaps the flushed write
  EXPECT_EQ(dev_.unflushed_writes(), 1u);
  ASSERT_TRUE(PowerCut().ok());
  auto want = Pattern(100, 0, kSize);
  Expect(want, 0, 4 * kBlock, 1);
  EXPECT_TRUE(SameBytes(Target(0, kSize), want));
  EXPECT_EQ(dev_.reverted_writes(), 1u);
}

TEST_F(FaultInjectingDeviceTest, FuaWriteSurvivesBetweenRevertedWrites) {
  ASSERT_TRUE(Write(0, 8 * kBlock, 1).ok());                 // reverted, except under the FUA
  ASSERT_TRUE(Write(2 * kBlock, 2 * kBlock, 2, true).ok());  // durable
  ASSERT_TRUE(Write(kBlock, 2 * kBlock, 3).ok());            // reverted: back to FUA/base data
  ASSERT_TRUE(PowerCut().ok());
  auto want = Pattern(100, 0, kSize);
  Expect(want, 2 * kBlock, 2 * kBlock, 2);
  EXPECT_TRUE(SameBytes(Target(0, kSize), want));
  EXPECT_EQ(dev_.reverted_writes(), 2u);
}

TEST_F(FaultInjectingDeviceTest, OverlappingWritesRevertNewestFirst) {
  ASSERT_TRUE(Write(0, 4 * kBlock, 1).ok());
  ASSERT_TRUE(Write(2 * kBlock, 4 * kBlock, 2).ok());
  ASSERT_TRUE(Write(kBlock, kBlock, 3).ok());
  ASSERT_TRUE(PowerCut().ok());
  EXPECT_TRUE(SameBytes(Target(0, kSize), Pattern(100, 0, kSize)));
}

TEST_F(FaultInjectingDeviceTest, FlushCoversOnlyWritesCompletedBeforeIt) {
  auto early = Pattern(1, 0, kBlock), late = Pattern(2, kBlock, kBlock);
  ASSERT_TRUE(testing::SyncWrite(loop_, dev_, 0, early).ok());
  std::optional<Status> flushed, written;
  {
    EventLoop::ScopedCurrent scope(&loop_);
    dev_.flush([&](Status s) { flushed = s; });
    dev_.write(kBlock, late, {},
               [&](Status s) { written = s; });  // completes after the flush began
  }
  loop_.run_until_idle();
  ASSERT_TRUE(flushed && flushed->ok() && written && written->ok());
  ASSERT_TRUE(PowerCut().ok());
  auto want = Pattern(100, 0, kSize);
  Expect(want, 0, kBlock, 1);
  EXPECT_TRUE(SameBytes(Target(0, kSize), want));
}

TEST_F(FaultInjectingDeviceTest, WritesInFlightAtThePowerCutFailAndAreReverted) {
  auto data = Pattern(1, 0, 2 * kBlock);
  std::optional<Status> written, cut;
  {
    EventLoop::ScopedCurrent scope(&loop_);
    dev_.write(0, data, {}, [&](Status s) { written = s; });
    dev_.power_cut([&](Status s) { cut = s; });
  }
  loop_.run_until_idle();
  ASSERT_TRUE(written && cut);
  EXPECT_EQ(written->message(), "fi: power cut before completion");
  EXPECT_TRUE(cut->ok());
  EXPECT_TRUE(SameBytes(Target(0, kSize), Pattern(100, 0, kSize)));
  EXPECT_EQ(dev_.reverted_writes(), 1u);
}

TEST_F(FaultInjectingDeviceTest, DiscardIsNotReverted) {
  ASSERT_TRUE(testing::SyncDiscard(loop_, dev_, 0, kBlock).ok());
  ASSERT_TRUE(PowerCut().ok());
  auto want = Pattern(100, 0, kSize);
  std::fill(want.begin(), want.begin() + kBlock, std::byte{0});
  EXPECT_TRUE(SameBytes(Target(0, kSize), want));
}

TEST_F(FaultInjectingDeviceTest, SeededPowerCutKeepsAReproducibleSubset) {
  constexpr int kWrites = 32;
  std::vector<std::vector<std::byte>> outcomes;
  for (int round = 0; round < 2; ++round) {
    mem_.write_now(0, Pattern(100, 0, kSize));
    dev_.reset();
    for (int i = 0; i < kWrites; ++i) ASSERT_TRUE(Write(i * 2 * kBlock, kBlock, i + 1).ok());
    ASSERT_TRUE(PowerCut(42).ok());
    uint64_t kept = 0;
    for (int i = 0; i < kWrites; ++i) {
      auto got = Target(i * 2 * kBlock, kBlock);
      bool survived = got == Pattern(i + 1, i * 2 * kBlock, kBlock);
      // Each write either survives whole or is reverted whole.
      ASSERT_TRUE(survived || got == Pattern(100, i * 2 * kBlock, kBlock)) << "write " << i;
      kept += survived;
    }
    EXPECT_EQ(kept + dev_.reverted_writes(), uint64_t(kWrites));
    EXPECT_GT(kept, 0u);
    EXPECT_LT(kept, uint64_t(kWrites));
    outcomes.push_back(Target(0, kSize));
  }
  EXPECT_TRUE(SameBytes(outcomes[0], outcomes[1]));  // same seed, same survivors
}

// A MemoryDevice front with a 64 KiB request limit, so that undo data moves in pieces.
class SmallIoDevice final : public Device {
 public:
  explicit SmallIoDevice(MemoryDevice& mem)
      : Device("small", mem.size(), mem.block_size(), 64 << 10), mem_(mem) {}
  uint64_t largest_write = 0;

 protected:
  void read_impl(uint64_t off, std::span<std::byte> buf, IoCallback cb) override {
    mem_.read(off, buf, std::move(cb));
  }
  void write_impl(uint64_t off, std::span<const std::byte> buf, WriteFlags f,
                  IoCallback cb) override {
    largest_write = std::max<uint64_t>(largest_write, buf.size());
    mem_.write(off, buf, f, std::move(cb));
  }
  void flush_impl(IoCallback cb) override { mem_.flush(std::move(cb)); }
  void discard_impl(uint64_t off, uint64_t len, IoCallback cb) override {
    mem_.discard(off, len, std::move(cb));
  }
  void write_zeroes_impl(uint64_t off, uint64_t len, WriteFlags f, IoCallback cb) override {
    mem_.write_zeroes(off, len, f, std::move(cb));
  }

 private:
  MemoryDevice& mem_;
};

TEST_F(FaultInjectingDeviceTest, LargeWriteZeroesUndoneInPieces) {
  SmallIoDevice small(mem_);
  FaultInjectingDevice dev(small, "fi2");
  ASSERT_TRUE(testing::SyncWriteZeroes(loop_, dev, kBlock, kSize - 2 * kBlock).ok());
  EXPECT_TRUE(SameBytes(Target(kBlock, kBlock), std::vector<std::byte>(kBlock)));
  EXPECT_EQ(mem_.stats().reads.load(), (kSize - 2 * kBlock + (64 << 10) - 1) / (64 << 10));
  std::optional<Status> cut;
  {
    EventLoop::ScopedCurrent scope(&loop_);
    dev.power_cut([&](Status s) { cut = s; });
  }
  loop_.run_until_idle();
  ASSERT_TRUE(cut && cut->ok());
  EXPECT_EQ(small.largest_write, 64u << 10);
  EXPECT_TRUE(SameBytes(Target(0, kSize), Pattern(100, 0, kSize)));
}

}  // namespace
}  // namespace tiercache

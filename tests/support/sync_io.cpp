#include "tests/support/sync_io.h"

#include <optional>

namespace tiercache::testing {
namespace {

template <typename Submit>
Status RunToCompletion(SimEventLoop& loop, Submit submit) {
  std::optional<Status> result;
  {
    EventLoop::ScopedCurrent scope(&loop);
    submit([&](Status s) { result = std::move(s); });
  }
  loop.run_until([&] { return result.has_value(); });
  if (!result) return Status::IoError("request never completed");
  return *result;
}

}  // namespace

Status SyncRead(SimEventLoop& loop, Device& dev, uint64_t offset, std::span<std::byte> buf) {
  return RunToCompletion(loop, [&](IoCallback cb) { dev.read(offset, buf, std::move(cb)); });
}

Status SyncWrite(SimEventLoop& loop, Device& dev, uint64_t offset,
                 std::span<const std::byte> buf, WriteFlags flags) {
  return RunToCompletion(loop,
                         [&](IoCallback cb) { dev.write(offset, buf, flags, std::move(cb)); });
}

Status SyncFlush(SimEventLoop& loop, Device& dev) {
  return RunToCompletion(loop, [&](IoCallback cb) { dev.flush(std::move(cb)); });
}

Status SyncDiscard(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length) {
  return RunToCompletion(loop,
                         [&](IoCallback cb) { dev.discard(offset, length, std::move(cb)); });
}

Status SyncWriteZeroes(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length) {
  return RunToCompletion(
      loop, [&](IoCallback cb) { dev.write_zeroes(offset, length, {}, std::move(cb)); });
}

std::vector<std::byte> Pattern(uint64_t seed, uint64_t offset, size_t length) {
  std::vector<std::byte> out(length);
  for (size_t i = 0; i < length; ++i) {
    uint64_t x = (offset + i) / 8 * 0x9E3779B97F4A7C15ull ^ seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    out[i] = std::byte(x >> (8 * ((offset + i) % 8)));
  }
  return out;
}

}  // namespace tiercache::testing

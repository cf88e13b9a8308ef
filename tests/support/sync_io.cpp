#include "tests/support/sync_io.h"

#include <cstring>
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

Status SyncPrefetch(SimEventLoop& loop, Device& dev, uint64_t offset, uint64_t length) {
  return RunToCompletion(loop, [&](IoCallback cb) { dev.prefetch(offset, length, std::move(cb)); });
}

namespace {
uint64_t PatternWord(uint64_t seed, uint64_t word_index) {
  uint64_t word = word_index * 0x9E3779B97F4A7C15ull ^ (seed + 1) * 0xBF58476D1CE4E5B9ull;
  word ^= word >> 31;
  word *= 0x94D049BB133111EBull;
  return word ^ (word >> 29);
}
}  // namespace

std::vector<std::byte> Pattern(uint64_t seed, uint64_t offset, size_t length) {
  // One 64-bit word per aligned 8 bytes of the device (little-endian): a byte's value depends only
  // on (seed, its absolute offset), so a misplaced byte always shows.
  std::vector<std::byte> out(length);
  size_t i = 0;
  for (; i < length && (offset + i) % 8 != 0; ++i) {
    out[i] = std::byte(PatternWord(seed, (offset + i) / 8) >> (8 * ((offset + i) % 8)));
  }
  for (; i + 8 <= length; i += 8) {
    uint64_t w = PatternWord(seed, (offset + i) / 8);
    std::memcpy(out.data() + i, &w, 8);
  }
  for (; i < length; ++i) {
    out[i] = std::byte(PatternWord(seed, (offset + i) / 8) >> (8 * ((offset + i) % 8)));
  }
  return out;
}

}  // namespace tiercache::testing

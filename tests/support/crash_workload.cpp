#include "tests/support/crash_workload.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace tiercache::testing {

FormatOptions CrashFormatOptions(uint64_t seed) {
  static constexpr CacheMode kModes[] = {CacheMode::kWriteThrough, CacheMode::kWriteBack,
                                         CacheMode::kWriteAround, CacheMode::kPassThrough};
  FormatOptions f;
  f.line_size = seed % 2 ? 16384 : 4096;
  f.mode = kModes[(seed / 2) % 4];
  return f;
}

CacheOptions CrashCacheOptions(bool commit_before_ack) {
  CacheOptions o;
  o.shards = 2;
  o.commit_before_ack = commit_before_ack;
  o.cleaning_options.dirty_high = 0.5;
  o.cleaning_options.idle_after = std::chrono::microseconds(50);
  // Trust rounds often, so power cuts land inside them and meet trusted clean lines.
  o.trust_interval = std::chrono::microseconds(100);
  // A few lines per step, so foreground I/O and power cuts also land between a round's steps.
  o.trust_batch = 4;
  o.policies.sequential =
      SequentialOptions{.read_cutoff_bytes = 16384, .write_cutoff_bytes = 16384};
  return o;
}

CrashWorkload::CrashWorkload(uint64_t seed, CacheHarness& h, bool durable_acks)
    : rng_(seed), h_(h), durable_acks_(durable_acks), model_(h.cache->size()) {}

void CrashWorkload::run(uint64_t ops) {
  for (uint64_t i = 0; i < ops && !::testing::Test::HasFailure(); ++i) {
    step();
    for (uint32_t k = rng_() % 4; k > 0; --k) h_.loop.run_one();
    if (in_flight_ >= 24) h_.loop.run_until([&] { return in_flight_ < 12; });
  }
  // The crash point: after a burst, a random number of device completions and continuations in.
  for (uint32_t k = 1 + rng_() % 8; k > 0; --k) step();
  for (uint32_t k = rng_() % 300; k > 0 && h_.loop.run_one(); --k) {
  }
}

void CrashWorkload::drain() {
  // Bounded: an old instance's cleaner may retry against dead devices forever.
  for (uint64_t k = 0; k < 10'000'000 && in_flight_ > 0 && h_.loop.run_one(); ++k) {
  }
  EXPECT_EQ(in_flight_, 0u) << "requests never completed";
}

void CrashWorkload::step() {
  uint32_t r = rng_() % 100;
  if (r < 35) return submit_read();
  if (r < 75) return submit_write(false);
  if (r < 82) return submit_write(true);
  if (r < 89) return submit_trim();
  if (r < 97) return submit_flush();
  return switch_mode();
}

uint64_t CrashWorkload::pick_length() {
  if (rng_() % 3 == 0) {  // 512-byte sectors, not a multiple of 4 KiB: partial 4 KiB sectors
    uint64_t n = 1 + rng_() % 24;
    return (n % 8 == 0 ? n + 1 : n) * 512;
  }
  static constexpr uint64_t kSizes[] = {4096, 4096, 8192, 12288, 16384, 32768, 65536};
  return kSizes[rng_() % 7];
}

uint64_t CrashWorkload::pick_offset(uint64_t length) {
  const uint64_t size = h_.cache->size();
  const uint64_t region = rng_() % 4 == 0 ? size : size / 4;  // mostly a hot quarter
  const uint64_t granule = length % 4096 ? 512 : 4096;
  uint64_t off = rng_() % (region / granule) * granule;
  if (rng_() % 4 == 0) off = last_end_;  // streams past the sequential cutoff
  if (off + length > size) off = size - length;
  last_end_ = off + length;
  return off;
}

void CrashWorkload::finish(const char* op, const Status& s, const std::function<void()>& apply) {
  --in_flight_;
  if (frozen_) return;
  if (!s.ok()) {
    if (!errors_ok_) ADD_FAILURE() << op << " failed: " << s.ToString();
    return;
  }
  apply();
}

void CrashWorkload::submit_read() {
  const uint64_t len = pick_length(), off = pick_offset(len);
  auto buf = std::make_shared<std::vector<std::byte>>(len);
  auto expect = std::make_shared<SectorModel::Expected>(model_.expect_read(off, len));
  ++in_flight_;
  EventLoop::ScopedCurrent scope(&h_.loop);
  h_.cache->read(off, *buf, [this, buf, expect, off](Status s) {
    finish("read", s, [&] {
      std::string diff = model_.check_read(off, *buf, *expect);
      if (!diff.empty()) ADD_FAILURE() << diff;
    });
  });
}

void CrashWorkload::submit_write(bool zeroes) {
  const uint64_t len = pick_length(), off = pick_offset(len);
  const uint64_t value = zeroes ? 0 : 1 + rng_() % (uint64_t(1) << 62);
  const bool fua = rng_() % 6 == 0;
  const uint64_t seq = model_.submit_write(off, len, value);
  auto done = [this, seq, off, len, fua, zeroes](Status s) {
    finish(zeroes ? "write_zeroes" : "write", s,
           [&] { model_.acked(seq, off, len, fua || durable_acks_); });
  };
  ++in_flight_;
  EventLoop::ScopedCurrent scope(&h_.loop);
  if (zeroes) return h_.cache->write_zeroes(off, len, {.fua = fua}, done);
  auto data = std::make_shared<std::vector<std::byte>>(Pattern(value, off, len));
  h_.cache->write(off, *data, {.fua = fua}, [data, done](Status s) { done(std::move(s)); });
}

void CrashWorkload::submit_trim() {
  const uint64_t len = pick_length(), off = pick_offset(len);
  const uint64_t seq = model_.submit_trim(off, len);
  ++in_flight_;
  EventLoop::ScopedCurrent scope(&h_.loop);
  h_.cache->discard(off, len, [this, seq, off, len](Status s) {
    finish("trim", s, [&] { model_.acked(seq, off, len, durable_acks_); });
  });
}

void CrashWorkload::submit_flush() {
  auto covered = std::make_shared<SectorModel::Covered>(model_.flush_submitted());
  ++in_flight_;
  EventLoop::ScopedCurrent scope(&h_.loop);
  h_.cache->flush([this, covered](Status s) {
    finish("flush", s, [&] { model_.flushed(*covered); });
  });
}

void CrashWorkload::switch_mode() {
  static constexpr CacheMode kModes[] = {CacheMode::kWriteThrough, CacheMode::kWriteBack,
                                         CacheMode::kWriteAround, CacheMode::kPassThrough};
  const CacheMode mode = kModes[rng_() % 4];
  const bool drain = rng_() % 2;
  ++in_flight_;
  EventLoop::ScopedCurrent scope(&h_.loop);
  h_.cache->set_mode(mode, drain, [this](Status s) { finish("set_mode", s, [] {}); });
}

void CrashWorkload::verify() {
  ASSERT_EQ(in_flight_, 0u);
  constexpr uint64_t kChunk = 64 * 1024;
  const uint64_t size = h_.cache->size();
  std::vector<std::byte> image(size);
  for (uint64_t off = 0; off < size; off += kChunk) {
    std::span<std::byte> chunk(image.data() + off, std::min(kChunk, size - off));
    Status s = SyncRead(h_.loop, *h_.cache, off, chunk);
    ASSERT_TRUE(s.ok()) << "read at " << off << " after reopen: " << s.ToString();
    std::string diff = model_.check_after_crash(off, chunk);
    ASSERT_TRUE(diff.empty()) << diff;
  }
  // What the cache serves as clean must be what the core holds: nothing stale survives in it.
  Status s = SyncCleanAll(h_.loop, *h_.cache);
  ASSERT_TRUE(s.ok()) << "clean_all after reopen: " << s.ToString();
  std::vector<std::byte> core(size);
  h_.core_mem.read_now(0, core);
  for (uint64_t sector = 0; sector < model_.sectors(); ++sector) {
    if (model_.maybe_trimmed(sector)) continue;
    const uint64_t at = sector * SectorModel::kSector;
    ASSERT_EQ(std::memcmp(image.data() + at, core.data() + at, SectorModel::kSector), 0)
        << "sector " << sector << ": the cache served other data than the core holds after "
        << "clean_all";
  }
  model_.settle(image);
}

}  // namespace tiercache::testing

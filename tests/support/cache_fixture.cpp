#include "tests/support/cache_fixture.h"

#include <gtest/gtest.h>

#include <optional>

namespace tiercache::testing {
namespace {

template <typename T, typename Submit>
T RunUntilDone(SimEventLoop& loop, Submit submit) {
  std::optional<T> result;
  {
    EventLoop::ScopedCurrent scope(&loop);
    submit([&](T r) { result.emplace(std::move(r)); });
  }
  loop.run_until([&] { return result.has_value(); });
  if (!result) return T(Status::IoError("operation never completed"));
  return std::move(*result);
}

}  // namespace

Status SyncFormat(SimEventLoop& loop, Device& ssd, const CoreIdentity& core,
                  const FormatOptions& options) {
  return RunUntilDone<Status>(loop, [&](std::function<void(Status)> cb) {
    MetadataStore::Format(ssd, core, options, std::move(cb));
  });
}

Result<std::unique_ptr<Cache>> SyncOpenCache(SimEventLoop& loop, Device& ssd, Device& core,
                                             const CoreIdentity& core_id,
                                             const CacheOptions& options) {
  using R = Result<std::unique_ptr<Cache>>;
  return RunUntilDone<R>(loop, [&](std::function<void(R)> cb) {
    Cache::Open(ssd, core, core_id, options, std::move(cb));
  });
}

Status SyncClose(SimEventLoop& loop, Cache& cache, bool forget_clean) {
  return RunUntilDone<Status>(loop,
                              [&](IoCallback cb) { cache.close(std::move(cb), forget_clean); });
}

Status SyncSetMode(SimEventLoop& loop, Cache& cache, CacheMode mode, bool drain) {
  return RunUntilDone<Status>(loop,
                              [&](IoCallback cb) { cache.set_mode(mode, drain, std::move(cb)); });
}

Status SyncSetPolicies(SimEventLoop& loop, Cache& cache, const PolicyOptions& policies) {
  return RunUntilDone<Status>(loop,
                              [&](IoCallback cb) { cache.set_policies(policies, std::move(cb)); });
}

Status SyncCleanAll(SimEventLoop& loop, Cache& cache) {
  return RunUntilDone<Status>(loop, [&](IoCallback cb) { cache.clean_all(nullptr, std::move(cb)); });
}

Status SyncSetCleaning(SimEventLoop& loop, Cache& cache, const std::string& policy,
                       const CleaningOptions& options) {
  return RunUntilDone<Status>(
      loop, [&](IoCallback cb) { cache.set_cleaning(policy, options, std::move(cb)); });
}

CacheHarness::CacheHarness(uint64_t ssd_bytes, uint64_t core_bytes, FormatOptions format,
                           CacheOptions opts)
    : ssd_mem("ssd", ssd_bytes, 4096),
      core_mem("core", core_bytes, 512),
      ssd(&ssd_mem),
      core(&core_mem),
      core_id{"core", core_bytes, 0x1234},
      options(opts) {
  options.background_loop = &loop;
  Status s = SyncFormat(loop, ssd_mem, core_id, format);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

void CacheHarness::open() {
  cache.reset();
  auto r = SyncOpenCache(loop, *ssd, *core, core_id, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  cache = std::move(r).value();
}

void CacheHarness::restart() {
  ASSERT_NE(cache, nullptr);
  Status s = SyncClose(loop, *cache);
  ASSERT_TRUE(s.ok()) << s.ToString();
  open();
}

void CacheHarness::crash_restart() {
  auto ssd_at_crash = ssd_mem.snapshot();
  auto core_at_crash = core_mem.snapshot();
  if (cache) {
    Status s = SyncClose(loop, *cache);
    ASSERT_TRUE(s.ok()) << s.ToString();
    cache.reset();
  }
  ssd_mem.restore(ssd_at_crash);
  core_mem.restore(core_at_crash);
  open();
}

uint64_t CounterOf(const PolicyReport::Counters& counters, std::string_view name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  return ~uint64_t{0};
}

}  // namespace tiercache::testing

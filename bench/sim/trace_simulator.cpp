#include "bench/sim/trace_simulator.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>

#include "bench/sim/sim_core_device.h"
#include "bench/sim/sim_ssd_device.h"
#include "cachelib/common/sim_event_loop.h"

namespace tiercache::bench {
namespace {

constexpr uint64_t kCoreFingerprint = 0x73696d636f726531ull;  // "simcore1"

// Submits one operation with the loop current, then runs the loop until nothing is left.
template <typename T, typename Submit>
T RunToIdle(SimEventLoop& loop, Submit submit) {
  std::optional<T> result;
  {
    EventLoop::ScopedCurrent scope(&loop);
    submit([&result](T r) { result.emplace(std::move(r)); });
  }
  loop.run_until_idle();
  if (!result) return T(Status::IoError("sim: an operation never completed"));
  return std::move(*result);
}

Status Submit(SimEventLoop& loop, Cache& cache, const SimRequest& r, std::byte* buf) {
  return RunToIdle<Status>(loop, [&](IoCallback done) {
    switch (r.op) {
      case TraceOp::kRead:
        return cache.read(r.offset, std::span<std::byte>(buf, r.length), std::move(done));
      case TraceOp::kWrite:
        return cache.write(r.offset, std::span<const std::byte>(buf, r.length), {},
                           std::move(done));
      case TraceOp::kFlush:
        return cache.flush(std::move(done));
      case TraceOp::kDiscard:
        return cache.discard(r.offset, r.length, std::move(done));
    }
  });
}

Status Replay(SimEventLoop& loop, Cache& cache, const ReplayPlan& plan) {
  // One zeroed buffer serves every request: the devices keep no data, so contents do not matter.
  std::unique_ptr<std::byte, decltype(&std::free)> buf(
      static_cast<std::byte*>(std::aligned_alloc(ReplayPlan::kBlock, plan.max_length())),
      &std::free);
  std::fill_n(buf.get(), plan.max_length(), std::byte{0});
  for (const SimRequest& r : plan.requests()) {
    Status s = Submit(loop, cache, r, buf.get());
    if (!s.ok()) {
      // Never expected (the devices cannot fail): report where, keeping the engine's words.
      return Status::IoError(std::string(TraceOpName(r.op)) + " at " + std::to_string(r.offset) +
                             " (+" + std::to_string(r.length) + "): " + s.ToString());
    }
  }
  return Status::Ok();
}

}  // namespace

Result<SimResult> TraceSimulator::run(const SimCase& c) const {
  TC_RETURN_IF_ERROR(c.validate());
  const format::Layout layout = SimSsdLayout(c.cache_bytes);
  SimEventLoop loop;
  SimSsdDevice ssd(layout.required_size(), layout.data_offset);
  SimCoreDevice core(plan_.core_bytes());
  const CoreIdentity core_id{"sim-core", core.size(), kCoreFingerprint};
  TC_RETURN_IF_ERROR(RunToIdle<Status>(loop, [&](std::function<void(Status)> done) {
    MetadataStore::Format(ssd, core_id, c.format_options(), std::move(done));
  }));
  using Opened = Result<std::unique_ptr<Cache>>;
  Opened opened = RunToIdle<Opened>(loop, [&](std::function<void(Opened)> done) {
    Cache::Open(ssd, core, core_id, c.cache_options(&loop), std::move(done));
  });
  if (!opened.ok()) return opened.status();
  std::unique_ptr<Cache> cache = std::move(opened).value();
  Status replayed = Replay(loop, *cache, plan_);
  SimResult r;
  r.sim_case = c;
  r.requests = plan_.trace_requests();
  r.block_accesses = plan_.block_accesses();
  r.counters = cache->counters();
  r.policies = cache->policy_report();
  Status closed = RunToIdle<Status>(loop, [&](IoCallback done) { cache->close(std::move(done)); });
  TC_RETURN_IF_ERROR(replayed);
  TC_RETURN_IF_ERROR(closed);
  return r;
}

}  // namespace tiercache::bench
